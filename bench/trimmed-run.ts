/**
 * The long runs the `long-run`, `resume-ask` and `memory` benchmarks
 * measure: a read-only `probe` tool whose every output is different (about
 * 300 characters naming its step, as a file read or a search would be), so
 * the trimmer elides each into a notice naming its own artifact, and a
 * context budget of 4,000 tokens that a run passes near step 30 (each step
 * adds about 100 estimated tokens), with the deterministic trimmer keeping
 * the 4 most recent outputs.
 *
 * `runOfSteps` and `runOfEvents` make such a run quickly with a scripted
 * agent (no request is built; the trimmer still runs, on estimates from the
 * items' characters), and leave it `running` with the agent unavailable (a
 * retryable AgentError at the step after the last), so a resume asks the
 * agent again. `probeProvider` is the in-process Responses provider the
 * benchmarks that ask a model adapter use.
 */
import { AgentError, calls, createDriver, defineTool, memoryStore, scriptedAgent, strictObject, trimContext, type RunId, type Store, type Tool } from "../src/index.js";
import type { RunCreated } from "../src/journal/index.js";
import { fakeResponses } from "../test/helpers/fake-provider.js";

/** The context options every long run of the bench uses. */
export const TRIMMED = { budgetTokens: 4000, strategy: trimContext({ keepRecent: 4 }) } as const;

/** An output of about 300 characters that names `n`, so no two steps' outputs (or artifacts) are alike. */
export const probeOutput = (n: number): string => `probe ${n}: ${"lorem ipsum dolor sit amet ".repeat(11)}(${n})`;

export function probeTool(): Tool<never, unknown> {
  return defineTool<{ n: number }>({
    name: "probe",
    description: "Probe n and return what was found.",
    inputSchema: strictObject({ n: { type: "integer" } as never }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    call: (a) => probeOutput(a.n),
  }) as Tool<never, unknown>;
}

/** The call a long run makes at step `n`. */
export const probeCall = (n: number) => ({ name: "probe", args: `{"n":${n}}` });

/**
 * An in-process Responses provider (test/helpers/fake-provider.ts: the
 * request text parsed, the answer streamed in the wire format, usage
 * counting the request) that asks for `probe` at steps 1..steps and answers
 * "done" after.
 */
export function probeProvider(steps: number, firstStep = 1) {
  return fakeResponses(({ step }) => {
    const n = firstStep + step - 1;
    return n <= steps ? { calls: [{ id: `call_${n}`, ...probeCall(n) }] } : { text: "done" };
  });
}

export interface BuiltRun {
  readonly store: Store;
  readonly runId: RunId;
  /** Events in the journal. */
  readonly events: number;
  /** Steps taken. */
  readonly steps: number;
}

/** A run of `steps` probe steps under the trimmer, left running for a resume to ask the agent. */
export async function runOfSteps(steps: number, store: Store = memoryStore()): Promise<BuiltRun> {
  const agent = scriptedAgent((view) => {
    if (view.step > steps) throw new AgentError("the bench's agent is away", { retryable: true });
    const c = probeCall(view.step);
    return calls({ name: c.name, args: c.args, callId: `call_${view.step}` });
  });
  const driver = createDriver({ store, agent, tools: [probeTool()], limits: { maxSteps: 0 }, context: TRIMMED });
  const outcome = await driver.start("probe a lot");
  if (outcome.status !== "running" || outcome.stopped !== "agent_unavailable") throw new Error(`the bench run is ${outcome.status} (${outcome.stopped ?? "-"})`);
  return { store, runId: outcome.runId, events: outcome.seq, steps };
}

/** Events a probe step adds, on average, measured once on a run of 1,000 steps (compactions included). */
let perStep: number | undefined;
export async function eventsPerStep(): Promise<number> {
  perStep ??= ((await runOfSteps(1000)).events - 3) / 1000;
  return perStep;
}

/** A run of about `events` events (within a step's), left running. */
export async function runOfEvents(events: number, store?: Store): Promise<BuiltRun> {
  const steps = Math.max(1, Math.round((events - 3) / (await eventsPerStep())));
  return runOfSteps(steps, store);
}

/** A copy of a run in a fresh memory store: its journal and its latest snapshot. */
export async function copyRun(from: Store, runId: RunId): Promise<Store> {
  const events = await from.read(runId);
  const to = memoryStore();
  await to.createRun(events[0] as RunCreated);
  const lease = await to.acquireLease(runId, "bench-copier", 600_000);
  if (lease === null) throw new Error("no lease on a fresh store");
  const last = events[events.length - 1]!;
  // The status each batch leaves: the run's, running (a copy is of a run left running).
  for (let k = 1; k < events.length; k += 4096) await to.append(runId, events.slice(k, k + 4096), { expectedSeq: events[k - 1]!.seq, lease }, "running");
  await to.releaseLease(lease);
  const snapshot = await from.getSnapshot(runId);
  if (snapshot !== null) await to.putSnapshot(runId, snapshot);
  if ((await to.read(runId, last.seq))[0]?.hash !== last.hash) throw new Error("the copy differs");
  return to;
}
