/**
 * Measures, in its own process (run with --expose-gc), the heap a run keeps,
 * after forced collections. Prints one JSON line.
 *
 * - `memory-probe.ts` (no argument): a completed 10,000-event run, no
 *   budget: the store holding it and a driver.
 * - `memory-probe.ts long`: a run of about 100,000 events under the trimmer
 *   (bench/trimmed-run.ts), the memory store:
 *   1. live: while its agent is deciding the step after the last (the driver
 *      holds the session), the heap the store and the driver keep against
 *      the journal serialized (the artifacts of its elided outputs, which
 *      the store also keeps, are counted in the heap, not in the journal);
 *   2. resumed: the run left running, a new driver resumes it and, while its
 *      agent is deciding, the heap that driver added against the snapshot
 *      and the events after it, serialized (what a resume reads).
 */
import { AgentError, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Agent, type AgentDecision, type Tool } from "../src/index.js";
import { eventsPerStep, probeCall, probeTool, TRIMMED } from "./trimmed-run.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const settle = (): number => {
  for (let k = 0; k < 5; k++) gc();
  return process.memoryUsage().heapUsed;
};
const serialized = (values: readonly unknown[]): number => Buffer.byteLength(values.map((e) => JSON.stringify(e)).join("\n"));

if (process.argv[2] === "long") await long();
else await completed();

async function completed(): Promise<void> {
  const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
  const steps = 2499; // 4 events a step, plus created, resumed, the final decision and completed: 10,000 events
  const agent = scriptedAgent((view) => (view.step <= steps ? calls({ name: "noop", args: "{}" }) : final("done")));
  // Warm up the code paths, so compiled code is not counted as the run's.
  await createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: 100 } }).start("warm");

  const before = settle();
  const store = memoryStore();
  const driver = createDriver({ store, agent, tools: [noop], limits: { maxSteps: steps + 1 } });
  const outcome = await driver.start("bench");
  const after = settle();
  const events = await store.read(outcome.runId);
  console.log(JSON.stringify({ events: events.length, journalBytes: serialized(events), retainedBytes: after - before }));
  void driver;
}

/** An agent that probes at steps 1..steps, then waits at the next decision until `release` is called with what to do. */
function pausingAgent(steps: number) {
  let release: (d: AgentDecision | Error) => void = () => {};
  let paused: () => void = () => {};
  const pausedAt = new Promise<void>((r) => (paused = r));
  const agent: Agent = {
    async decide(view) {
      if (view.step <= steps) {
        const c = probeCall(view.step);
        return calls({ name: c.name, args: c.args, callId: `call_${view.step}` });
      }
      paused();
      const what = await new Promise<AgentDecision | Error>((r) => (release = r));
      if (what instanceof Error) throw what;
      return what;
    },
  };
  return { agent, pausedAt, release: (d: AgentDecision | Error) => release(d) };
}

async function long(): Promise<void> {
  const tools = [probeTool()];
  // Warm up the code paths (and the bench's estimate of events a step).
  const perStep = await eventsPerStep();
  const steps = Math.round((100_000 - 3) / perStep);

  // 1. Live: the run built, its driver waiting on the agent.
  const before = settle();
  const store = memoryStore();
  const live = pausingAgent(steps);
  const running = createDriver({ store, agent: live.agent, tools, limits: { maxSteps: 0 }, context: TRIMMED }).start("probe a lot");
  await live.pausedAt;
  const whileLive = settle();
  live.release(new AgentError("the bench's agent is away", { retryable: true }));
  const left = await running;
  if (left.status !== "running" || left.stopped !== "agent_unavailable") throw new Error(`the bench run is ${left.status}`);
  const events = await store.read(left.runId);
  const journalBytes = serialized(events);

  // 2. Resumed: a new driver takes the run up and waits on its agent.
  const snapshot = await store.getSnapshot(left.runId);
  const tail = await store.read(left.runId, (snapshot?.seq ?? 0) + 1);
  const readBytes = serialized(snapshot === null ? [] : [snapshot]) + serialized(tail);
  const idle = settle();
  const resumed = pausingAgent(0);
  const driving = createDriver({ store, agent: resumed.agent, tools, limits: { maxSteps: 0 }, context: TRIMMED }).resume(left.runId);
  await resumed.pausedAt;
  const whileResumed = settle();
  resumed.release(final("done"));
  const done = await driving;
  if (done.status !== "completed") throw new Error(`the resumed run is ${done.status}`);
  console.log(
    JSON.stringify({
      events: events.length,
      steps,
      journalBytes,
      liveBytes: whileLive - before,
      snapshotBytes: snapshot === null ? 0 : serialized([snapshot]),
      tailEvents: tail.length,
      readBytes,
      resumedBytes: whileResumed - idle,
    }),
  );
}
