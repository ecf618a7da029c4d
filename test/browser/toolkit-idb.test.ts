import { describe, it } from "vitest";
import { idbWorkspace } from "../../adapters/idb/index.js";
import { workspaceToolCases } from "../toolkit/cases.js";

let n = 0;
describe("workspace tools on IndexedDB, in Chromium", () => {
  workspaceToolCases({ name: "idb", make: async () => idbWorkspace({ name: `ws-${Date.now()}-${++n}` }) }, (name, fn) => it(name, fn));
});
