import { describe, it } from "vitest";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { bashCases } from "./bash-cases.js";

describe("bash on the memory workspace", () => {
  bashCases({ name: "memory", make: async () => memoryWorkspace() }, (name, fn) => it(name, fn, 60_000));
});
