/**
 * `npm run bench -- scale-do [--runs=N]`: many runs at once through the
 * Worker `npm start` runs (examples/worker on workerd through miniflare,
 * storage on disk as `npm start` keeps it), each run its own Durable Object,
 * 20 read_only steps each (the task `{ "steps": 20 }`, a scripted agent).
 *
 * First one run alone, then N runs (1,000 by default; 200 with --quick)
 * created at once over at most 100 connections at a time, each create with
 * an Idempotency-Key and retried with it on a network error, so a retried
 * create never makes a second run. The runs are done when the index lists
 * none running; then every run's journal is read back and checked (completed,
 * 20 steps, nothing lost). Reported: runs/s and durable steps/s from the
 * first run made to the last completed (the objects' clock), p50/p99 of a
 * run's latency and of a step's (each run's mean, its wait for its object
 * included: workerd's clock moves only on I/O, and read-only steps do none,
 * so one step's own timestamps cannot be told apart), the errors and
 * retries, the machine load, and the same for the run alone.
 *
 * What it does not predict: here every object lives in one workerd process
 * on this machine's cores, so the figure is this machine's throughput for
 * the runtime and SQLite, not Cloudflare's, which spreads objects over many
 * machines (each object single-threaded, so one run's step latency is the
 * part that carries over).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../scripts/lib/bundle.js";
import { RUN_OBJECTS } from "../scripts/lib/worker.js";
import { load, result, type Result } from "./results.js";

const STEPS = 20;
const CONNECTIONS = 100;
const TOKEN = "scale-bench-token-0123456789abcdef";

export interface ScaleDoFigure {
  readonly runs: number;
  readonly steps: number;
  /** From the first create sent to the index listing none running (the client's clock, with its polling). */
  readonly seconds: number;
  /** From the first run.created to the last run.completed (the objects' clock): what runs/s is of. */
  readonly span: number;
  readonly runsPerS: number;
  readonly stepsPerS: number;
  /** A step's latency (ms): a run's time from its creation to its end over its steps, p50 and p99 over the runs. */
  readonly stepP50: number;
  readonly stepP99: number;
  /** A run's latency (ms, run.created to run.completed). */
  readonly runP50: number;
  readonly runP99: number;
  readonly completed: number;
  /** Runs not completed, or completed without all their steps. */
  readonly problems: readonly string[];
  /** Creates retried after a network error (same Idempotency-Key), and creates that failed for good. */
  readonly retries: number;
  readonly errors: number;
  readonly load: { readonly start: number; readonly end: number };
}

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Runs `f` over `items`, at most `n` at once. */
async function pool<T, R>(items: readonly T[], n: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const k = next++;
        out[k] = await f(items[k]!);
      }
    }),
  );
  return out;
}

interface Event {
  readonly type: string;
  readonly at: number;
}

async function wave(base: string, runs: number): Promise<ScaleDoFigure> {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  let retries = 0;
  let errors = 0;
  const start = load();
  const t = performance.now();
  const ids = await pool(
    Array.from({ length: runs }, (_, k) => k),
    CONNECTIONS,
    async () => {
      const key = randomUUID();
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await fetch(`${base}/runs`, { method: "POST", headers: { ...headers, "idempotency-key": key }, body: JSON.stringify({ task: { steps: STEPS } }) });
          const body = (await res.json()) as { runId?: string; error?: { code: string } };
          if (res.status === 201) return body.runId!;
          if (res.status < 500 || attempt >= 5) {
            errors++;
            return undefined;
          }
        } catch {
          if (attempt >= 5) {
            errors++;
            return undefined;
          }
        }
        retries++;
      }
    },
  );
  // Done when the index lists no run running (it hears of each status change before the caller does).
  for (;;) {
    const res = await fetch(`${base}/runs?status=running&limit=1`, { headers });
    if (((await res.json()) as { runs: unknown[] }).runs.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t) / 1000;
  const end = load();
  const made = ids.filter((id): id is string => id !== undefined);
  const problems: string[] = [];
  const stepMs: number[] = [];
  const runMs: number[] = [];
  let completed = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  await pool(made, 20, async (runId) => {
    const { events } = (await (await fetch(`${base}/runs/${runId}/events`, { headers })).json()) as { events: Event[] };
    const finished = events.filter((e) => e.type === "call.finished").length;
    const done = events.find((e) => e.type === "run.completed");
    if (done === undefined || finished !== STEPS) {
      problems.push(`${runId}: ${done === undefined ? "not completed" : "completed"} with ${finished} of ${STEPS} steps`);
      return;
    }
    completed++;
    first = Math.min(first, events[0]!.at);
    last = Math.max(last, done.at);
    runMs.push(done.at - events[0]!.at);
    // A step's latency, as the run's mean from its creation (waiting for its object included): workerd's
    // clock moves only on I/O, and a run's read-only steps do none, so their own timestamps are equal.
    stepMs.push((done.at - events[0]!.at) / STEPS);
  });
  // The wave's span by the objects' clock, from the first run made to the last completed (the client's poll adds up to 100 ms).
  const span = Math.max(1, last - first) / 1000;
  return {
    runs,
    steps: STEPS,
    seconds,
    span,
    runsPerS: completed / span,
    stepsPerS: (completed * STEPS) / span,
    stepP50: quantile(stepMs, 0.5),
    stepP99: quantile(stepMs, 0.99),
    runP50: quantile(runMs, 0.5),
    runP99: quantile(runMs, 0.99),
    completed,
    problems,
    retries,
    errors,
    load: { start, end },
  };
}

export async function benchScaleDo(options: { quick?: boolean; runs?: number } = {}): Promise<ScaleDoFigure[]> {
  const data = mkdtempSync(join(tmpdir(), "isoagent-bench-scale-do-"));
  const mf = new Miniflare({
    name: "isoagent",
    modules: true,
    script: await bundleWorker("examples/worker/index.ts"),
    compatibilityDate: "2026-07-01",
    ...RUN_OBJECTS,
    durableObjectsPersist: join(data, "do"),
    bindings: { ISOAGENT_TOKEN: TOKEN },
    host: "127.0.0.1",
    port: 0,
  });
  try {
    const base = (await mf.ready).toString().replace(/\/$/, "");
    const alone = await wave(base, 1);
    const many = await wave(base, options.runs ?? (options.quick ? 200 : 1000));
    return [alone, many];
  } finally {
    await mf.dispose();
    rmSync(data, { recursive: true, force: true });
  }
}

export function printScaleDo(figures: ScaleDoFigure[]): void {
  console.log(
    `scale-do: runs at once through npm start's Worker (workerd via miniflare, one process, storage on disk), each its own Durable Object, ${STEPS} read_only steps, creates over ≤ ${CONNECTIONS} connections with an Idempotency-Key`,
  );
  console.log("| runs | wall s (client) | span s (objects) | runs/s | durable steps/s | step p50 / p99 ms | run p50 / p99 ms | completed | retries | errors | load |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const f of figures) {
    console.log(
      `| ${f.runs} | ${f.seconds.toFixed(2)} | ${f.span.toFixed(2)} | ${f.runsPerS.toFixed(1)} | ${f.stepsPerS.toFixed(0)} | ${f.stepP50.toFixed(1)} / ${f.stepP99.toFixed(1)} | ${f.runP50} / ${f.runP99} | ${f.completed} | ${f.retries} | ${f.errors} | ${f.load.start} → ${f.load.end} |`,
    );
    for (const p of f.problems.slice(0, 5)) console.log(`  problem: ${p}`);
  }
  console.log(
    "one workerd process on this machine: the figure is this machine's throughput, not Cloudflare's, which spreads objects across machines; a step's latency in one object is what carries over",
  );
}

export function scaleDoResults(figures: ScaleDoFigure[]): Result[] {
  const [alone, many] = figures as [ScaleDoFigure, ScaleDoFigure];
  return [
    result(
      `scale.do.disk.runs-${many.runs}`,
      `runs/s of ${many.runs} runs at once ÷ runs/s of one run alone, through npm start's Worker (one workerd process, miniflare storage on disk), ${STEPS} read_only steps each; ${many.runsPerS.toFixed(1)} runs/s, ${many.stepsPerS.toFixed(0)} durable steps/s, step p50/p99 ${many.stepP50.toFixed(1)}/${many.stepP99.toFixed(1)} ms (alone ${alone.stepP50.toFixed(1)}), ${many.completed} of ${many.runs} completed, ${many.retries} retries, ${many.errors} errors`,
      many.runsPerS / alone.runsPerS,
      "informative",
      { storage: "disk", alone, many },
    ),
  ];
}
