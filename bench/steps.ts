/**
 * `npm run bench -- steps`: the driver's cost per step on the memory store
 * (a scripted agent, a no-op read_only tool, every step journaled with its
 * hash chain), against the same run through each peer's agent loop with a
 * fake model (OpenAI Agents SDK, Vercel AI SDK, LangGraph.js), at N = 50,
 * 200 and 400 steps, alternating contenders round by round. Each run checks
 * it made exactly N tool calls.
 */
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../src/index.js";
import { formatNs, measureAsync } from "./harness.js";
import { PEER_LOOPS } from "./peers/steps.js";
import { result, type Result } from "./results.js";

export interface StepsFigure {
  readonly steps: number;
  /** Nanoseconds per step, by contender ("isoagent" and each peer). */
  readonly nsPerStep: Readonly<Record<string, number>>;
  /** Each contender's time ÷ isoagent's, median of the same-round ratios, and its spread. */
  readonly ratio: Readonly<Record<string, number>>;
  readonly spread: Readonly<Record<string, readonly [number, number]>>;
}

async function isoagentRun(n: number): Promise<void> {
  let executed = 0;
  const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => (executed++, "ok") }) as Tool<
    never,
    unknown
  >;
  const agent = scriptedAgent((view) => (view.step <= n ? calls(call("noop")) : final("done")));
  const driver = createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: n + 1 } });
  const outcome = await driver.start("bench");
  if (outcome.status !== "completed" || executed !== n) throw new Error(`isoagent: ${outcome.status} after ${executed} of ${n} calls`);
}

export async function benchSteps(options: { quick?: boolean } = {}): Promise<StepsFigure[]> {
  const figures: StepsFigure[] = [];
  for (const n of options.quick ? [50, 200, 400] : [50, 200, 400]) {
    const contenders = [{ name: "isoagent", ops: n, run: () => isoagentRun(n) }, ...PEER_LOOPS.map((p) => ({ name: p.name, ops: n, run: () => p.run(n) }))];
    const measured = await measureAsync(contenders, { rounds: options.quick ? 3 : 7, warmup: 2 });
    figures.push({
      steps: n,
      nsPerStep: Object.fromEntries(measured.map((m, k) => [contenders[k]!.name, m.medianNs])),
      ratio: Object.fromEntries(measured.map((m, k) => [contenders[k]!.name, m.ratio])),
      spread: Object.fromEntries(measured.map((m, k) => [contenders[k]!.name, [m.ratioMin, m.ratioMax] as const])),
    });
  }
  return figures;
}

export function printSteps(figures: StepsFigure[]): void {
  const names = Object.keys(figures[0]!.nsPerStep);
  console.log("steps: time per step (a no-op tool call, then a final answer), isoagent's driver on the memory store against each peer's loop with a fake model, same runs");
  console.log(`| steps | ${names.join(" | ")} |`);
  console.log(`|---:|${names.map(() => "---:").join("|")}|`);
  for (const f of figures) console.log(`| ${f.steps} | ${names.map((n) => formatNs(f.nsPerStep[n]!)).join(" | ")} |`);
  const r = stepsResults(figures);
  for (const x of r.filter((x) => x.goal !== "informative")) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function stepsResults(figures: StepsFigure[]): Result[] {
  const at = (n: number) => figures.find((f) => f.steps === n);
  const out: Result[] = [];
  const mid = at(200);
  if (mid !== undefined) {
    const peers = Object.entries(mid.nsPerStep).filter(([k]) => k !== "isoagent");
    const [fastest] = peers.reduce((a, b) => (b[1] < a[1] ? b : a));
    // The peer's time over isoagent's, round by round: isoagent's steps/s over the peer's.
    out.push(
      result("steps.vs-fastest-peer", `isoagent steps/s ÷ the fastest peer's (${fastest}) at N = 200, journaling every step with its hash chain`, mid.ratio[fastest]!, ">= 5", {
        nsPerStep: mid.nsPerStep,
        spreadOfRatio: mid.spread[fastest],
      }),
    );
  }
  const low = at(50);
  const high = at(400);
  if (low !== undefined && high !== undefined) {
    out.push(
      result("steps.flat", "isoagent time per step at N = 400 ÷ at N = 50", high.nsPerStep["isoagent"]! / low.nsPerStep["isoagent"]!, "<= 1.25", {
        n50: low.nsPerStep["isoagent"],
        n400: high.nsPerStep["isoagent"],
      }),
    );
    for (const name of Object.keys(low.nsPerStep).filter((k) => k !== "isoagent")) {
      out.push(
        result(`steps.peer-growth.${name.split(" ")[0]!.toLowerCase()}`, `${name}: time per step at N = 400 ÷ at N = 50 (informative)`, high.nsPerStep[name]! / low.nsPerStep[name]!, "informative", {
          n50: low.nsPerStep[name],
          n400: high.nsPerStep[name],
        }),
      );
    }
  }
  return out;
}
