/**
 * `npm run bench -- idb`: durable steps on IndexedDB in Chromium, against the
 * same number of raw transactions of one ~100-byte put, at the same
 * durability, in the same page and run (rounds alternate).
 *
 * On disk by default: a persistent profile (`launchPersistentContext`),
 * where a strict transaction waits for fdatasync. Chromium's in-memory
 * context (`launch()` + `newPage()`) never syncs, whatever the durability,
 * so its figures are shown beside, labelled "memory", and hold no goal.
 *
 * Per mode and durability:
 * - read_only steps (one transaction each) against one raw transaction;
 * - local_mutation steps (two: the start, durable before the effect, then the
 *   outcome) against two raw transactions;
 * - the journal write alone (the store's append of a read-only step's four
 *   events) against one raw transaction: goal at most 1.25;
 * - where that write's time goes (informative): the same transaction done by
 *   hand (the append's own lean record added, with and without the read of
 *   the run's record) against a raw put, and the append against it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium, type BrowserContext } from "playwright-core";
import { serveStatic } from "../scripts/lib/static-server.js";
import { CHROMIUM } from "../test/helpers/chromium.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

export type StorageMode = "disk" | "memory";
type Durability = "strict" | "relaxed";

export interface IdbFigure {
  readonly mode: StorageMode;
  readonly durability: Durability;
  /** What is compared with raw transactions. */
  readonly what: "read_only" | "local_mutation" | "append" | Breakdown;
  readonly steps: number;
  /** Raw transactions per step (or per append) the comparison is against. */
  readonly rawPerStep: number;
  /** Readwrite transactions per step the driver took (the run's setup and end included); for `append`, 1. */
  readonly transactionsPerStep: number;
  readonly rawMsPerTx: number;
  /** ms per step (or per append). */
  readonly msPerStep: number;
  /**
   * For steps: raw time for the same number of transactions ÷ the driver's
   * time (goal at least 0.9). For `append`: the append's time ÷ one raw
   * transaction's (goal at most 1.25).
   */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

const CLASSES = ["read_only", "local_mutation"] as const;

/**
 * Where a journal write's time goes (informative): `put-record`, a
 * transaction adding the append's own lean record ÷ a raw ~100-byte put;
 * `read-put-record`, the same with the run's record read too (the whole
 * shape of an append) ÷ a raw put; `append-vs-shaped`, the store's append ÷
 * that shaped transaction (what the store adds: encoding, the lease check,
 * its bookkeeping).
 */
type Breakdown = "put-record" | "read-put-record" | "append-vs-shaped";
const BREAKDOWN: Record<Breakdown, string> = {
  "put-record": "a transaction adding the append's lean record (4 events) ÷ one ~100-byte put",
  "read-put-record": "the same, reading the run's record too (an append's whole shape) ÷ one ~100-byte put",
  "append-vs-shaped": "the store's append ÷ that shaped transaction (what the store adds)",
};

async function open(mode: StorageMode, profile: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const options = { executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true };
  if (mode === "disk") {
    const context = await chromium.launchPersistentContext(profile, options);
    return { context, close: () => context.close() };
  }
  const browser = await chromium.launch(options);
  const context = await browser.newContext();
  return { context, close: () => browser.close() };
}

export async function benchIdb(options: { quick?: boolean; modes?: readonly StorageMode[] } = {}): Promise<IdbFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><html><body><script type="module" src="./idb.js"></script></body></html>');
  await build({ entryPoints: ["bench/pages/idb.ts"], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, "idb.js"), logLevel: "warning" });
  const site = await serveStatic(dir);
  const figures: IdbFigure[] = [];
  const steps = options.quick ? 60 : 200;
  const rounds = options.quick ? 5 : 9;
  try {
    for (const mode of options.modes ?? (["disk", "memory"] as const)) {
      const profile = mkdtempSync(join(tmpdir(), "isoagent-bench-profile-"));
      const browser = await open(mode, profile);
      try {
        const page = await browser.context.newPage();
        await page.goto(site.url);
        await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
        for (const durability of mode === "disk" ? (["strict", "relaxed"] as const) : (["strict"] as const)) {
          // Warm-up, then alternate.
          await page.evaluate(([n, d]) => window.bench.raw(n, d), [20, durability] as const);
          await page.evaluate(([n, d]) => window.bench.append(n, d), [20, durability] as const);
          await page.evaluate(([n, d]) => window.bench.shaped(n, d, true), [20, durability] as const);
          for (const c of CLASSES) await page.evaluate(([n, d, s]) => window.bench.driver(n, d, s), [20, durability, c] as const);
          const counted: Record<string, number[]> = { read_only: [], local_mutation: [] };
          const got = await alternate(rounds, ["raw", "append", "put-record", "read-put-record", ...CLASSES] as const, async (which) => {
            if (which === "raw") return (await page.evaluate(([n, d]) => window.bench.raw(n, d), [steps, durability] as const)) / steps;
            if (which === "append") return (await page.evaluate(([n, d]) => window.bench.append(n, d), [steps, durability] as const)) / steps;
            if (which === "put-record" || which === "read-put-record")
              return (await page.evaluate(([n, d, r]) => window.bench.shaped(n, d, r), [steps, durability, which === "read-put-record"] as const)) / steps;
            const r = await page.evaluate(([n, d, s]) => window.bench.driver(n, d, s), [steps, durability, which] as const);
            counted[which]!.push(r.transactions / steps);
            return r.ms / steps;
          });
          const vsAppend = ratioOf(got.append, got.raw);
          figures.push({
            mode,
            durability,
            what: "append",
            steps,
            rawPerStep: 1,
            transactionsPerStep: 1,
            rawMsPerTx: median(got.raw),
            msPerStep: median(got.append),
            ratio: vsAppend.ratio,
            ratioMin: vsAppend.min,
            ratioMax: vsAppend.max,
          });
          // Where the append's time goes: the record (its size and shape) against a raw put; the store's own work against the same transaction without it.
          for (const [what, a, b] of [
            ["put-record", got["put-record"], got.raw],
            ["read-put-record", got["read-put-record"], got.raw],
            ["append-vs-shaped", got.append, got["read-put-record"]],
          ] as const) {
            const r = ratioOf(a, b);
            figures.push({ mode, durability, what, steps, rawPerStep: 1, transactionsPerStep: 1, rawMsPerTx: median(b), msPerStep: median(a), ratio: r.ratio, ratioMin: r.min, ratioMax: r.max });
          }
          for (const c of CLASSES) {
            const rawPerStep = c === "read_only" ? 1 : 2;
            const r = ratioOf(
              got.raw.map((x) => x * rawPerStep),
              got[c],
            );
            figures.push({
              mode,
              durability,
              what: c,
              steps,
              rawPerStep,
              transactionsPerStep: median(counted[c]!),
              rawMsPerTx: median(got.raw),
              msPerStep: median(got[c]),
              ratio: r.ratio,
              ratioMin: r.min,
              ratioMax: r.max,
            });
          }
        }
      } finally {
        await browser.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

const label = (f: IdbFigure): string => `${f.mode === "disk" ? "on disk (persistent profile)" : "in memory (no fdatasync, whatever the durability)"}, durability ${f.durability}`;

export function printIdb(figures: IdbFigure[]): void {
  console.log("idb: IndexedDB in Chromium; driver steps against the same number of raw transactions of one ~100-byte put, same durability, same page");
  console.log("| storage | durability | what | transactions per step | raw transaction | per step | ratio (spread) | goal |");
  console.log("|---|---|---|---:|---:|---:|---:|---|");
  for (const f of figures) {
    const goal = goalOf(f);
    console.log(
      `| ${f.mode} | ${f.durability} | ${f.what === "append" ? "journal write (append of 4 events)" : isBreakdown(f.what) ? `where it goes: ${BREAKDOWN[f.what]}` : `${f.what} step (vs ${f.rawPerStep} raw)`} | ${f.transactionsPerStep.toFixed(2)} | ${formatNs(f.rawMsPerTx * 1e6)} | ${formatNs(f.msPerStep * 1e6)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) | ${goal} |`,
    );
  }
  console.log(
    "steps: ratio = raw time for the same number of transactions ÷ driver time (a read_only step is one transaction; a local_mutation step two: its start, durable before the effect, and its outcome)",
  );
  console.log("journal write: ratio = one append's time ÷ one raw transaction's");
}

const isBreakdown = (w: IdbFigure["what"]): w is Breakdown => w in BREAKDOWN;

function goalOf(f: IdbFigure): string {
  if (f.mode === "memory" || isBreakdown(f.what)) return "informative";
  return f.what === "append" ? "<= 1.25" : ">= 0.9";
}

export function idbResults(figures: IdbFigure[]): Result[] {
  return figures.map((f) => {
    const id = `durable.idb.${f.mode}.${f.durability}.${f.what === "append" ? "journal-write" : isBreakdown(f.what) ? `journal-write.${f.what}` : f.what.replace("_", "-")}`;
    const what = isBreakdown(f.what)
      ? `where the journal write's time goes: ${BREAKDOWN[f.what]}, IndexedDB in Chromium, ${label(f)}`
      : f.what === "append"
        ? `one journal append (a read-only step's 4 events) ÷ one ~100-byte put, IndexedDB in Chromium, ${label(f)}`
        : `raw time for ${f.rawPerStep} ~100-byte put transaction${f.rawPerStep > 1 ? "s" : ""} ÷ driver time per ${f.what} step (${f.transactionsPerStep.toFixed(2)} transactions per step), IndexedDB in Chromium, ${label(f)}`;
    return result(id, what, f.ratio, goalOf(f), {
      storage: f.mode,
      durability: f.durability,
      rawMsPerTx: f.rawMsPerTx,
      msPerStep: f.msPerStep,
      transactionsPerStep: f.transactionsPerStep,
      rawPerStep: f.rawPerStep,
      spread: [f.ratioMin, f.ratioMax],
    });
  });
}
