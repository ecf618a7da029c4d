/**
 * `npm run bench -- resume-ask`: a resume that asks the agent, against the
 * journal's length. Runs of about 100, 10,000 and 100,000 events are built
 * under the trimmer (bench/trimmed-run.ts: a scripted agent, the memory
 * store, a budget of 4,000 tokens) and left running with the agent away.
 * Each sample takes a fresh copy of one (made, and the heap collected,
 * before the clock starts), and times a new driver resuming it: it loads
 * the latest snapshot and the events after it, asks the agent once (the
 * OpenAI Responses adapter over an in-process transport, test/helpers/
 * fake-provider.ts: the request built from the transcript, the answer
 * streamed and parsed), journals the final answer and completes. The sizes
 * alternate round by round. (`resume` measures the cheaper resume of a run
 * waiting for an approval, which asks nobody.) Each size is resumed twice
 * per round: by a driver with the run's context budget, and by one with
 * none (issue 29: the transcript comes from the snapshot and the tail, not
 * from the whole journal, budget or not).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { openaiAgent } from "../src/agents/openai/index.js";
import { createDriver, type RunId, type Store } from "../src/index.js";
import { fakeResponses } from "../test/helpers/fake-provider.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";
import { copyRun, probeTool, runOfEvents, TRIMMED, type BuiltRun } from "./trimmed-run.js";

export interface ResumeAskFigure {
  /** Whether the resuming driver had the run's context budget. */
  readonly budget: boolean;
  readonly events: number;
  readonly resumeNs: number;
  /** Time ÷ at the fewest events, median of the same-round ratios, and its spread. */
  readonly ratio: number;
  readonly spread: readonly [number, number];
  /** What the resume read: the snapshot's size (JSON) and the events after it; what it sent: the request's size. */
  readonly snapshotBytes: number;
  readonly tailEvents: number;
  readonly requestChars: number;
  readonly transcriptItems: number;
}

/** A full collection, so the garbage of one sample's copy is not collected in the next one's clock. */
const collect: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

async function resumeOnce(store: Store, runId: RunId, budget: boolean): Promise<{ ns: number; requestChars: number }> {
  const provider = fakeResponses(() => ({ text: "done" }));
  const driver = createDriver({
    store,
    agent: openaiAgent({ model: "gpt-fake", transport: provider.transport, instructions: "Probe until done." }),
    tools: [probeTool()],
    ...(budget ? { context: TRIMMED } : {}),
  });
  collect();
  const t = performance.now();
  const outcome = await driver.resume(runId);
  const ns = (performance.now() - t) * 1e6;
  if (outcome.status !== "completed" || outcome.output !== "done" || provider.requests.length !== 1) throw new Error(`resume-ask: ${outcome.status} after ${provider.requests.length} requests`);
  return { ns, requestChars: provider.requests[0]!.chars };
}

export async function benchResumeAsk(options: { quick?: boolean } = {}): Promise<ResumeAskFigure[]> {
  const sizes = [100, 10_000, 100_000] as const;
  const runs: (BuiltRun & { snapshotBytes: number; tailEvents: number; transcriptItems: number })[] = [];
  for (const n of sizes) {
    const run = await runOfEvents(n);
    const snapshot = await run.store.getSnapshot(run.runId);
    runs.push({
      ...run,
      snapshotBytes: snapshot === null ? 0 : JSON.stringify(snapshot).length,
      tailEvents: run.events - (snapshot?.seq ?? 0),
      transcriptItems: snapshot?.state.transcript.length ?? 0,
    });
  }
  const names = [...sizes.map((n) => `b${n}`), ...sizes.map((n) => `n${n}`)];
  const chars = new Map<string, number>();
  const warm = 2;
  const samples = await alternate((options.quick ? 5 : 15) + warm, names, async (name) => {
    const run = runs[names.indexOf(name) % sizes.length]!;
    const r = await resumeOnce(await copyRun(run.store, run.runId), run.runId, name.startsWith("b"));
    chars.set(name, r.requestChars);
    return r.ns;
  });
  return names.map((name, k) => {
    const run = runs[k % sizes.length]!;
    const base = samples[`${name[0]}${sizes[0]}`]!.slice(warm);
    const times = samples[name]!.slice(warm);
    const r = ratioOf(times, base);
    return {
      budget: name.startsWith("b"),
      events: run.events,
      resumeNs: median(times),
      ratio: r.ratio,
      spread: [r.min, r.max] as const,
      snapshotBytes: run.snapshotBytes,
      tailEvents: run.tailEvents,
      requestChars: chars.get(name)!,
      transcriptItems: run.transcriptItems,
    };
  });
}

export function printResumeAsk(figures: ResumeAskFigure[]): void {
  console.log("resume-ask: a new driver resumes a run left running under the trimmer and asks the agent once (Responses adapter, in-process transport; memory store)");
  console.log("| context budget | events | resume + ask | ÷ fewest | snapshot read | events after it | transcript items | request |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const f of figures)
    console.log(
      `| ${f.budget ? "trimmer" : "none"} | ${f.events} | ${formatNs(f.resumeNs)} | ${f.ratio.toFixed(2)} (${f.spread[0].toFixed(2)}–${f.spread[1].toFixed(2)}) | ${(f.snapshotBytes / 1024).toFixed(0)} KB | ${f.tailEvents} | ${f.transcriptItems} | ${f.requestChars} chars |`,
    );
  for (const x of resumeAskResults(figures)) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function resumeAskResults(figures: ResumeAskFigure[]): Result[] {
  return [true, false].map((budget) => {
    const rows = figures.filter((f) => f.budget === budget);
    const small = rows[0]!;
    const large = rows[rows.length - 1]!;
    return result(
      budget ? "resume-ask.flat" : "resume-ask.flat-no-budget",
      `resume and one step that asks the agent at ${large.events} events ÷ at ${small.events}, ${budget ? "trimmer on" : "no context budget (the run was built under the trimmer)"}, Responses adapter over an in-process transport, memory store`,
      large.ratio,
      "<= 2",
      {
        spread: large.spread,
        byEvents: Object.fromEntries(
          rows.map((f) => [f.events, { ns: Math.round(f.resumeNs), snapshotBytes: f.snapshotBytes, tailEvents: f.tailEvents, transcriptItems: f.transcriptItems, requestChars: f.requestChars }]),
        ),
      },
    );
  });
}
