/** Driving runs over MCP tools in tests: a driver on a memory store with a scripted agent. */
import { createDriver, memoryStore, scriptedAgent, type DriverOptions, type JournalEvent, type ScriptStep, type Store, type Tool } from "../../../src/index.js";

export function driverOf(tools: readonly Tool<never, unknown>[], script: readonly ScriptStep[], options: Partial<DriverOptions> & { store?: Store } = {}) {
  const store = options.store ?? memoryStore();
  const driver = createDriver({ store, agent: scriptedAgent(script), tools, ...options });
  return { driver, store };
}

/** The observations of a run's finished calls, in order. */
export async function observations(store: Store, runId: string): Promise<Record<string, unknown>[]> {
  const events = (await store.read(runId as never)) as JournalEvent[];
  return events.filter((e) => e.type === "call.finished").map((e) => (e as unknown as { observation: Record<string, unknown> }).observation);
}

export async function eventsOf(store: Store, runId: string): Promise<Record<string, unknown>[]> {
  return (await store.read(runId as never)) as unknown as Record<string, unknown>[];
}

/** A context for calling a tool directly, outside a driver. */
export function bareContext(overrides: Record<string, unknown> = {}) {
  return {
    runId: "run_x",
    step: 1,
    callId: "c1",
    attempt: 1,
    idempotencyKey: "run_x:1:c1",
    fencingToken: 1,
    signal: new AbortController().signal,
    permit: () => ({ permission: "allow" as const }),
    progress: () => {},
    putArtifact: async (b: Uint8Array) => ({ sha256: "x", size: b.length }),
    ...overrides,
  } as never;
}
