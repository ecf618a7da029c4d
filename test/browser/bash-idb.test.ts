import { describe, it } from "vitest";
import { idbWorkspace } from "../../adapters/idb/index.js";
import { bashCases } from "../toolkit/bash-cases.js";

let n = 0;
describe("bash on IndexedDB, in Chromium", () => {
  bashCases({ name: "idb", make: async () => idbWorkspace({ name: `bash-${Date.now()}-${++n}` }) }, (name, fn) => it(name, fn, 60_000));
});
