/**
 * `npm run bench -- long-run`: a long run's cost per step stays flat under
 * the trimmer. isoagent's driver with its OpenAI Responses adapter
 * (`openaiAgent`) over an in-process transport (test/helpers/fake-provider.ts:
 * no HTTP; each request's text parsed, each answer streamed in the wire
 * format with usage counting the request), the memory store, and the
 * context budget of bench/trimmed-run.ts (4,000 tokens, trimContext keeping
 * 4 outputs), which a run passes near step 30. Each step calls `probe`,
 * whose ~300-character output differs from step to step. Runs of N = 100
 * and N = 2,000 steps alternate round by round; the figure is the time per
 * step at 2,000 over the time per step at 100.
 */
import { openaiAgent } from "../src/agents/openai/index.js";
import { createDriver, memoryStore } from "../src/index.js";
import { formatNs, measureAsync } from "./harness.js";
import { result, type Result } from "./results.js";
import { probeProvider, probeTool, TRIMMED } from "./trimmed-run.js";

export interface LongRunFigure {
  readonly steps: number;
  readonly nsPerStep: number;
  /** Time per step ÷ at the shortest N, median of the same-round ratios, and its spread. */
  readonly ratio: number;
  readonly spread: readonly [number, number];
  /** From one checked run: compactions journaled, the largest request (estimated tokens, as the fake counts them), events. */
  readonly compactions: number;
  readonly largestRequestTokens: number;
  readonly events: number;
}

const SHORT = 100;
const LONG = 2000;

/** One run of n steps; throws unless it completed after n + 1 requests. */
async function trimmedRun(n: number) {
  const provider = probeProvider(n);
  const store = memoryStore();
  const agent = openaiAgent({ model: "gpt-fake", transport: provider.transport, instructions: "Probe until done." });
  const driver = createDriver({ store, agent, tools: [probeTool()], limits: { maxSteps: 0 }, context: TRIMMED });
  const outcome = await driver.start("probe a lot");
  if (outcome.status !== "completed" || provider.requests.length !== n + 1) throw new Error(`long-run: ${outcome.status} after ${provider.requests.length} requests of ${n + 1}`);
  return { store, runId: outcome.runId, requests: provider.requests };
}

export async function benchLongRun(options: { quick?: boolean } = {}): Promise<LongRunFigure[]> {
  // One checked run of each length: n calls made, the budget reached at N = 100 already.
  const checked = new Map<number, { compactions: number; largest: number; events: number }>();
  for (const n of [SHORT, LONG]) {
    const run = await trimmedRun(n);
    const events = await run.store.read(run.runId);
    const compactions = events.filter((e) => e.type === "context.compacted").length;
    const calls = events.filter((e) => e.type === "call.finished").length;
    if (calls !== n) throw new Error(`long-run: ${calls} calls of ${n}`);
    if (compactions === 0) throw new Error(`long-run: a run of ${n} steps never reached the budget`);
    checked.set(n, { compactions, largest: run.requests.reduce((m, r) => Math.max(m, r.inputTokens), 0), events: events.length });
  }
  const contenders = [SHORT, LONG].map((n) => ({ name: `N = ${n}`, ops: n, run: () => trimmedRun(n) }));
  const measured = await measureAsync(contenders, { rounds: options.quick ? 3 : 7, warmup: 2 });
  return measured.map((m, k) => {
    const n = [SHORT, LONG][k]!;
    const c = checked.get(n)!;
    return { steps: n, nsPerStep: m.medianNs, ratio: m.ratio, spread: [m.ratioMin, m.ratioMax] as const, compactions: c.compactions, largestRequestTokens: c.largest, events: c.events };
  });
}

export function printLongRun(figures: LongRunFigure[]): void {
  console.log(`long-run: time per step under the trimmer (budget ${TRIMMED.budgetTokens} tokens, keepRecent 4), the Responses adapter over an in-process transport, memory store`);
  console.log("| steps | per step | ÷ N = 100 | compactions | largest request (tokens) | events |");
  console.log("|---:|---:|---:|---:|---:|---:|");
  for (const f of figures)
    console.log(`| ${f.steps} | ${formatNs(f.nsPerStep)} | ${f.ratio.toFixed(2)} (${f.spread[0].toFixed(2)}–${f.spread[1].toFixed(2)}) | ${f.compactions} | ${f.largestRequestTokens} | ${f.events} |`);
  for (const x of longRunResults(figures)) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function longRunResults(figures: LongRunFigure[]): Result[] {
  const short = figures.find((f) => f.steps === SHORT);
  const long = figures.find((f) => f.steps === LONG);
  if (short === undefined || long === undefined) return [];
  return [
    result(
      "long-run.flat",
      `time per step at N = ${LONG} ÷ at N = ${SHORT}, trimmer on (budget ${TRIMMED.budgetTokens} tokens, reached by step 30), Responses adapter over an in-process transport, memory store`,
      long.ratio,
      "<= 1.25",
      {
        spread: long.spread,
        nsPerStep: { [SHORT]: Math.round(short.nsPerStep), [LONG]: Math.round(long.nsPerStep) },
        compactions: { [SHORT]: short.compactions, [LONG]: long.compactions },
        largestRequestTokens: { [SHORT]: short.largestRequestTokens, [LONG]: long.largestRequestTokens },
        events: { [SHORT]: short.events, [LONG]: long.events },
      },
    ),
  ];
}
