/** Runs to export, import and move in the move tests: a real driver's journals, with artifacts and approvals. */
import { call, calls, createDriver, defineTool, final, manualClock, memoryStore, rulesPolicy, scriptedAgent, sequentialIds, strictObject, string, type ManualClock, type Store, type Tool } from "../../src/index.js";
import { toolShapes } from "../../src/move/index.js";

export const BIG = "line of a long output\n".repeat(4000);

export const readTool = defineTool<{ path: string }>({
  name: "read_file",
  description: "Read a file.",
  inputSchema: strictObject({ path: string() }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: (a) => `${BIG}${a.path}`,
});

export const writeTool = defineTool<{ path: string; content: string }>({
  name: "write_file",
  description: "Write a file.",
  inputSchema: strictObject({ path: string(), content: string() }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 1000,
  call: (a) => ({ written: a.content.length }),
});

export const TOOLS = [readTool, writeTool] as Tool<never, unknown>[];
export const SHAPES = toolShapes(TOOLS);

export const agentFor = () => scriptedAgent([calls(call("read_file", { path: "a" })), calls(call("read_file", { path: "b" })), calls(call("write_file", { path: "out.md", content: "x" })), final("done")]);

export function driverOn(store: Store, clock: ManualClock, owner = "d") {
  return createDriver({ store, clock, ids: sequentialIds(`run_${owner}_`), owner, agent: agentFor(), tools: TOOLS, policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]) });
}

/** A run that read two long outputs (two artifacts) and waits for the approval of a write. */
export async function waitingRun(store = memoryStore({ clock: manualClock() }), clock = manualClock()) {
  const driver = driverOn(store, clock);
  const outcome = await driver.start("read a and b, write out.md");
  return { store, clock, driver, runId: outcome.runId, outcome };
}
