/** Runs to export, import and move in the move tests: a real driver's journals, with artifacts and approvals. */
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Store, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds, type ManualClock } from "../../src/testkit/index.js";
import { generateBundleKey, signingKey, toolShapes, trustedKeys, type BundleKeyAlgorithm, type PlaceKeys } from "../../src/move/index.js";

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

export const agentFor = () =>
  scriptedAgent([calls(call("read_file", { path: "a" })), calls(call("read_file", { path: "b" })), calls(call("write_file", { path: "out.md", content: "x" })), final("done")]);

export function driverOn(store: Store, clock: ManualClock, owner = "d") {
  return createDriver({ store, clock, ids: sequentialIds(`run_${owner}_`), owner, agent: agentFor(), tools: TOOLS, policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]) });
}

/** A run that read two long outputs (two artifacts) and waits for the approval of a write. */
export async function waitingRun(store = memoryStore({ clock: manualClock() }), clock = manualClock()) {
  const driver = driverOn(store, clock);
  const outcome = await driver.start("read a and b, write out.md");
  return { store, clock, driver, runId: outcome.runId, outcome };
}

/** Keys for places that trust each other: each signs with its own key and trusts every other's. */
export async function trustingKeys<N extends string>(names: readonly N[], algorithm: BundleKeyAlgorithm = "Ed25519"): Promise<Record<N, PlaceKeys>> {
  const pairs = await Promise.all(names.map((n) => generateBundleKey(`key-${n.replace(/[^A-Za-z0-9_.:-]/g, "-")}`, algorithm)));
  const out = {} as Record<N, PlaceKeys>;
  for (const [k, name] of names.entries()) {
    out[name] = { signing: await signingKey(pairs[k]!.privateJwk), trusted: await trustedKeys(pairs.filter((_, j) => j !== k).map((p) => p.publicJwk)) };
  }
  return out;
}
