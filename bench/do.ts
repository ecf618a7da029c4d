/**
 * `npm run bench -- do`: durable steps in a Durable Object (workerd through
 * miniflare), each against the same number of raw transactions of one
 * ~100-byte insert, confirmed the same way, in the same object and the same
 * run (rounds alternate which goes first).
 *
 * On disk by default (`durableObjectsPersist`: SQLite files, a commit
 * fsyncs); miniflare's in-memory storage is shown beside, labelled "memory".
 *
 * - hosted, local_mutation: the run's object drives it. Each step journals
 *   its start, confirmed before the effect (by `storage.sync()`, or by the
 *   output gate holding the effect's RPC), then its outcome (committed with
 *   what follows). Baseline per step: an insert, confirmed the same way,
 *   then a second insert.
 * - hosted, read_only: one append per step, which nothing waits for (a
 *   read-only call needs no durable start); baseline: one insert per step.
 * - the journal write alone: an append of a read-only step's four events,
 *   confirmed, against one insert, confirmed the same way.
 * - Worker over RPC: a driver in the Worker; every append is an RPC whose
 *   answer the output gate holds until it is confirmed. Baseline: the same
 *   number of RPCs from the Worker, each one insert in the run's object.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../scripts/lib/bundle.js";
import { RUN_OBJECTS } from "../scripts/lib/worker.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

export type StorageMode = "disk" | "memory";
type Case =
  | "hosted-sync.local-mutation"
  | "hosted-output-gate.local-mutation"
  | "hosted-sync.read-only"
  | "journal-write.sync"
  | "journal-write.output-gate"
  | "worker-rpc.local-mutation"
  | "worker-rpc.read-only";

export interface DoFigure {
  readonly mode: StorageMode;
  readonly case: Case;
  readonly steps: number;
  /** Journal writes (appends) per step, and confirmations (a sync or a gated message waited for) per step, as the run counted them. */
  readonly appendsPerStep: number;
  readonly confirmsPerStep: number;
  /** What the baseline does per step. */
  readonly baseline: string;
  readonly rawMsPerStep: number;
  readonly msPerStep: number;
  /** Steps: baseline time ÷ driver time (goal at least 0.9). Journal write: append time ÷ insert time (goal at most 1.25). */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

interface Spec {
  readonly case: Case;
  readonly baseline: string;
  readonly driver: (o: string, n: number) => string;
  readonly raw: (o: string, n: number) => string;
  readonly goal: string;
}

const SPECS: readonly Spec[] = [
  {
    case: "hosted-sync.local-mutation",
    baseline: "2 inserts, the first confirmed by sync()",
    driver: (o, n) => `/hosted?object=${o}&steps=${n}&durability=sync&class=local_mutation`,
    raw: (o, n) => `/raw?object=${o}&steps=${n}&durability=sync&writes=2`,
    goal: ">= 0.9",
  },
  {
    case: "hosted-output-gate.local-mutation",
    baseline: "2 inserts, the first confirmed by the gated RPC the tool makes",
    driver: (o, n) => `/hosted?object=${o}&steps=${n}&durability=output-gate&class=local_mutation`,
    raw: (o, n) => `/raw?object=${o}&steps=${n}&durability=output-gate&writes=2`,
    goal: ">= 0.9",
  },
  {
    case: "hosted-sync.read-only",
    baseline: "1 insert, not waited for",
    driver: (o, n) => `/hosted?object=${o}&steps=${n}&durability=sync&class=read_only`,
    raw: (o, n) => `/raw?object=${o}&steps=${n}&durability=sync&writes=1&confirm=no`,
    goal: "informative",
  },
  {
    case: "journal-write.sync",
    baseline: "1 insert, confirmed by sync()",
    driver: (o, n) => `/append?object=${o}&steps=${n}&durability=sync`,
    raw: (o, n) => `/raw?object=${o}&steps=${n}&durability=sync&writes=1`,
    goal: "<= 1.25",
  },
  {
    case: "journal-write.output-gate",
    baseline: "1 insert, confirmed by a gated RPC",
    driver: (o, n) => `/append?object=${o}&steps=${n}&durability=output-gate`,
    raw: (o, n) => `/raw?object=${o}&steps=${n}&durability=output-gate&writes=1`,
    goal: "<= 1.25",
  },
  {
    case: "worker-rpc.local-mutation",
    baseline: "2 RPCs from the Worker, each one insert, answered once confirmed",
    driver: (o, n) => `/remote?object=${o}&steps=${n}&class=local_mutation`,
    raw: (o, n) => `/raw-rpc?object=${o}&steps=${n}&writes=2`,
    goal: "informative",
  },
  {
    case: "worker-rpc.read-only",
    baseline: "1 RPC from the Worker, one insert, answered once confirmed",
    driver: (o, n) => `/remote?object=${o}&steps=${n}&class=read_only`,
    raw: (o, n) => `/raw-rpc?object=${o}&steps=${n}&writes=1`,
    goal: "informative",
  },
];

/** The journal write is compared the other way round: its time over the baseline's. */
const isWrite = (c: Case): boolean => c.startsWith("journal-write");

export async function benchDo(options: { quick?: boolean; modes?: readonly StorageMode[]; cases?: readonly Case[] } = {}): Promise<DoFigure[]> {
  const figures: DoFigure[] = [];
  const script = await bundleWorker("bench/workers/do-bench.ts");
  const rounds = options.quick ? 5 : 9;
  const n = options.quick ? 60 : 200;
  for (const mode of options.modes ?? (["disk", "memory"] as const)) {
    const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-do-"));
    const mf = new Miniflare({ name: "bench", modules: true, script, compatibilityDate: "2026-07-01", ...RUN_OBJECTS, ...(mode === "disk" ? { durableObjectsPersist: dir } : {}) });
    /** Milliseconds for one request, checked: a run must complete with every event. */
    const time = async (path: string, steps: number): Promise<{ ms: number; appends: number; confirms: number }> => {
      const t0 = performance.now();
      const res = await mf.dispatchFetch(`http://localhost${path}`);
      const body = (await res.json()) as { status: string; seq: number; appends?: number; confirms?: number };
      const ms = performance.now() - t0;
      // run.created, run.resumed, four events a step, the final decision, run.completed.
      if (!res.ok || body.status !== "completed" || body.seq !== 4 * steps + 4) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms, appends: body.appends ?? 0, confirms: body.confirms ?? 0 };
    };
    try {
      const specs = SPECS.filter((s) => (options.cases === undefined || options.cases.includes(s.case)) && (mode === "disk" || s.goal !== "informative"));
      for (const s of specs) {
        const slug = `${mode}-${s.case}`.replace(/[^a-z0-9-]/g, "-");
        await time(s.driver(`warm-d-${slug}`, 20), 20);
        await time(s.raw(`warm-r-${slug}`, 20), 20);
        const counted: { appends: number; confirms: number }[] = [];
        const got = await alternate(rounds, ["driver", "raw"] as const, async (what, round) => {
          const r = await time(what === "driver" ? s.driver(`d-${slug}-${round}`, n) : s.raw(`r-${slug}-${round}`, n), n);
          if (what === "driver") counted.push(r);
          return r.ms / n;
        });
        const r = isWrite(s.case) ? ratioOf(got.driver, got.raw) : ratioOf(got.raw, got.driver);
        figures.push({
          mode,
          case: s.case,
          steps: n,
          appendsPerStep: isWrite(s.case) ? 1 : median(counted.map((c) => c.appends)) / n,
          confirmsPerStep: isWrite(s.case) ? 1 : median(counted.map((c) => c.confirms)) / n,
          baseline: s.baseline,
          rawMsPerStep: median(got.raw),
          msPerStep: median(got.driver),
          ratio: r.ratio,
          ratioMin: r.min,
          ratioMax: r.max,
        });
      }
    } finally {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return figures;
}

const goalOf = (f: DoFigure): string => (f.mode === "memory" ? "informative" : (SPECS.find((s) => s.case === f.case)?.goal ?? "informative"));
const storage = (m: StorageMode): string => (m === "disk" ? "on disk (SQLite files, a commit fsyncs)" : "in memory (miniflare without persistence)");

export function printDo(figures: DoFigure[]): void {
  console.log("do: steps in a Durable Object (workerd) against the same number of raw ~100-byte inserts, confirmed the same way, same object (or the same RPC hop)");
  console.log("| storage | what | appends per step | confirmations per step | baseline per step | baseline | driver per step | ratio (spread) | goal |");
  console.log("|---|---|---:|---:|---|---:|---:|---:|---|");
  for (const f of figures) {
    console.log(
      `| ${f.mode} | ${f.case} | ${f.appendsPerStep.toFixed(2)} | ${f.confirmsPerStep.toFixed(2)} | ${f.baseline} | ${formatNs(f.rawMsPerStep * 1e6)} | ${formatNs(f.msPerStep * 1e6)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) | ${goalOf(f)} |`,
    );
  }
  console.log("steps: ratio = baseline time ÷ driver time; journal write: ratio = one confirmed append of 4 events ÷ one confirmed ~100-byte insert");
}

export function doResults(figures: DoFigure[]): Result[] {
  return figures.map((f) => {
    const what = isWrite(f.case)
      ? `one journal append (a read-only step's 4 events), confirmed ÷ ${f.baseline}, Durable Object, ${storage(f.mode)}`
      : `baseline time (${f.baseline}) ÷ driver time per step, ${f.case} (${f.appendsPerStep.toFixed(2)} appends and ${f.confirmsPerStep.toFixed(2)} confirmations per step), Durable Object, ${storage(f.mode)}`;
    return result(`durable.do.${f.mode}.${f.case}`, what, f.ratio, goalOf(f), {
      storage: f.mode,
      rawMsPerStep: f.rawMsPerStep,
      msPerStep: f.msPerStep,
      appendsPerStep: f.appendsPerStep,
      confirmsPerStep: f.confirmsPerStep,
      spread: [f.ratioMin, f.ratioMax],
    });
  });
}
