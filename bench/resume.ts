/**
 * `npm run bench -- resume`: how long a new driver takes to take up a run,
 * against the journal's length (100, 10,000 and 100,000 events): the run
 * waits for an approval at the end, so a resume loads its state (the latest
 * snapshot and the events after it) and returns, as after a restart.
 */
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type RunId, type Store, type Tool } from "../src/index.js";
import { formatNs, median } from "./harness.js";
import { result, type Result } from "./results.js";

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
const ask = defineTool({ name: "ask", description: "Wait for a person.", inputSchema: strictObject({}), sideEffect: "local_mutation", permission: "ask", timeoutMs: 1000, call: () => "ok" }) as Tool<
  never,
  unknown
>;

/** A run of about `events` events, left waiting for an approval. */
async function waitingRun(events: number): Promise<{ store: Store; runId: RunId; seq: number }> {
  const steps = Math.max(1, Math.round((events - 6) / 4));
  const agent = scriptedAgent((view) => (view.step <= steps ? calls(call("noop")) : view.step === steps + 1 ? calls(call("ask")) : final("done")));
  const store = memoryStore();
  const outcome = await createDriver({ store, agent, tools: [noop, ask], limits: { maxSteps: steps + 2 } }).start("bench");
  if (outcome.status !== "waiting") throw new Error(`the bench run is ${outcome.status}`);
  return { store, runId: outcome.runId, seq: outcome.seq };
}

export interface ResumeFigure {
  readonly events: number;
  readonly resumeNs: number;
}

export async function benchResume(options: { quick?: boolean } = {}): Promise<ResumeFigure[]> {
  const figures: ResumeFigure[] = [];
  const runs = [];
  for (const n of [100, 10_000, 100_000]) runs.push({ n, ...(await waitingRun(n)) });
  const times = runs.map(() => [] as number[]);
  const rounds = options.quick ? 5 : 15;
  for (let r = 0; r < rounds + 2; r++) {
    const order = r % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
    for (const i of order) {
      const run = runs[i]!;
      const driver = createDriver({ store: run.store, agent: scriptedAgent([final("x")]), tools: [noop, ask] });
      const t = performance.now();
      const outcome = await driver.resume(run.runId);
      const ns = (performance.now() - t) * 1e6;
      if (outcome.status !== "waiting") throw new Error("the resumed run should wait");
      if (r >= 2) times[i]!.push(ns);
    }
  }
  runs.forEach((run, k) => figures.push({ events: run.seq, resumeNs: median(times[k]!) }));
  return figures;
}

export function printResume(figures: ResumeFigure[]): void {
  console.log("resume: a new driver takes up a run waiting for an approval (latest snapshot + the events after it)");
  console.log("| events | resume |");
  console.log("|---:|---:|");
  for (const f of figures) console.log(`| ${f.events} | ${formatNs(f.resumeNs)} |`);
}

export function resumeResults(figures: ResumeFigure[]): Result[] {
  const small = figures[0]!;
  const large = figures[figures.length - 1]!;
  return [
    result("resume.flat", `resume at ${large.events} events ÷ at ${small.events} events`, large.resumeNs / small.resumeNs, "<= 2", {
      byEvents: Object.fromEntries(figures.map((f) => [f.events, Math.round(f.resumeNs)])),
    }),
  ];
}
