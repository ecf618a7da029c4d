import { describe, it } from "vitest";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { workspaceToolCases } from "./cases.js";

describe("workspace tools on the memory workspace", () => {
  workspaceToolCases({ name: "memory", make: async () => memoryWorkspace() }, (name, fn) => it(name, fn));
});
