/**
 * The crash matrix for bash: a local_mutation tool whose effect is a
 * workspace commit with a receipt. Two commands append to one file (an
 * effect that is not idempotent by itself); crashed at every point around
 * the first, and resumed by a new driver, the run must end as the
 * uncrashed one did, with the file appended to once per call: the receipt
 * answers the attempt run again after a crash (reconciled by bash's hook).
 */
import { call, calls, final, memoryStore, scriptedAgent, type Store, type Tool } from "../../src/index.js";
import type { ManualClock } from "../../src/clock.js";
import { crashTest, type CrashResult, type CrashScenario } from "../../src/testkit/index.js";
import { memoryWorkspace, type Workspace } from "../../src/toolkit/index.js";
import { bashTool } from "../../src/toolkit/bash/index.js";

/** The scenario over a workspace made by `make` (memory by default). */
export function bashScenario(make: () => Workspace = () => memoryWorkspace()): CrashScenario {
  return {
    name: "bash (local_mutation, receipts)",
    task: { goal: "append a and b to list.txt" },
    tool: "bash",
    idempotent: true,
    setup() {
      const ws = make();
      const bash = bashTool({ workspace: ws, requireApproval: false });
      let state: Record<string, string> = {};
      // The world is read after each run (the crash tests compare it), so it is kept current here.
      const tool = {
        ...bash.tool,
        call: async (args: { command: string }, ctx: Parameters<Tool<{ command: string }, string>["call"]>[1]) => {
          try {
            return await bash.tool.call(args, ctx);
          } finally {
            state = {};
            for (const f of await ws.list("")) state[f.path] = new TextDecoder().decode((await ws.read(f.path))!);
          }
        },
      };
      return { tools: [tool as unknown as Tool<never, unknown>], state: () => state, reconcile: bash.reconcile };
    },
    agent: () => scriptedAgent([calls(call("bash", { command: "echo a >> list.txt; wc -l < list.txt" })), calls(call("bash", { command: "echo b >> list.txt; cat list.txt" })), final("appended")]),
  };
}

/** bash crashed at every point, on a store. */
export function bashCrashMatrix(createStore: (clock: ManualClock) => Store | Promise<Store> = (clock) => memoryStore({ clock })): Promise<CrashResult[]> {
  return crashTest(bashScenario(), { createStore });
}
