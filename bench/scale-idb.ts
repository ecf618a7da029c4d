/**
 * `npm run bench -- scale-idb`: many runs at once on one IndexedDB database
 * in Chromium, on disk (a persistent profile, strict durability: every
 * commit waits for fdatasync), rounds alternating with the baseline.
 *
 * Cases, each run of `steps` read_only steps (one durable transaction each
 * when alone), a scripted agent:
 * - one run alone;
 * - 100 runs driven at once in one tab by one store, whose appends of
 *   several runs share a commit (appender.ts), and the same with one store
 *   per run (no sharing): the gain of sharing;
 * - 4 tabs × 25 runs on one database, each tab its own store and driver.
 *
 * Baseline: the same number of raw transactions (one ~100-byte put each, one
 * per step) at the same durability and the same concurrency (as many
 * concurrent loops as runs, in as many tabs). Ratio = raw time ÷ the runs'
 * time: above 1, the runs beat one transaction per step (sharing commits).
 * Every run is checked after: its chain whole, every step's start and
 * outcome there, completed once, resumed once by its own tab (no lease
 * broken); a problem fails the bench.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium, type Page } from "playwright-core";
import { serveStatic } from "../scripts/lib/static-server.js";
import { CHROMIUM } from "../test/helpers/chromium.js";
import { alternate, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

type Case = "one-run" | "one-tab" | "one-tab-unshared" | "four-tabs";

export interface ScaleIdbFigure {
  readonly case: Case;
  readonly tabs: number;
  readonly runsPerTab: number;
  readonly steps: number;
  /** Aggregate durable steps per second (median over rounds). */
  readonly stepsPerS: number;
  /** Raw transactions per second at the same concurrency. */
  readonly rawTxPerS: number;
  /** Readwrite transactions per step the runs took (median). */
  readonly transactionsPerStep: number;
  /** Appends per commit of the journal writer (median); 1 without sharing. */
  readonly appendsPerCommit: number;
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

const CASES: readonly { case: Case; tabs: number; runsPerTab: number; shared: boolean }[] = [
  { case: "one-run", tabs: 1, runsPerTab: 1, shared: true },
  { case: "one-tab", tabs: 1, runsPerTab: 100, shared: true },
  { case: "one-tab-unshared", tabs: 1, runsPerTab: 100, shared: false },
  { case: "four-tabs", tabs: 4, runsPerTab: 25, shared: true },
];

export async function benchScaleIdb(options: { quick?: boolean } = {}): Promise<ScaleIdbFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><html><body><script type="module" src="./idb.js"></script></body></html>');
  await build({ entryPoints: ["bench/pages/idb.ts"], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, "idb.js"), logLevel: "warning" });
  const site = await serveStatic(dir);
  const profile = mkdtempSync(join(tmpdir(), "isoagent-bench-profile-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
  const steps = 20;
  const rounds = options.quick ? 2 : 5;
  const figures: ScaleIdbFigure[] = [];
  let sample = 0;
  try {
    const pages: Page[] = [];
    for (let k = 0; k < 4; k++) {
      const page = await context.newPage();
      await page.goto(site.url);
      await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
      pages.push(page);
    }
    for (const c of CASES) {
      const tabs = pages.slice(0, c.tabs);
      const counted = { tx: [] as number[], perCommit: [] as number[] };
      const got = await alternate(rounds + 1, ["raw", "runs"] as const, async (which, round) => {
        const name = `scale-${c.case}-${which}-${++sample}`;
        try {
          if (which === "raw") {
            const ms = await Promise.all(tabs.map((p, t) => p.evaluate(([n, pre, runs, per]) => window.scale.raw(n, pre, runs, per, "strict"), [name, `t${t}`, c.runsPerTab, steps] as const)));
            return Math.max(...ms);
          }
          const r = await Promise.all(
            tabs.map((p, t) => p.evaluate(([n, pre, runs, s, shared]) => window.scale.driver(n, pre, runs, s, "strict", shared), [name, `t${t}`, c.runsPerTab, steps, c.shared] as const)),
          );
          const problems = r.flatMap((x) => x.problems);
          if (problems.length > 0) throw new Error(`scale-idb ${c.case}: ${problems.length} problems: ${problems.slice(0, 5).join("; ")}`);
          if (round > 0) {
            const total = c.tabs * c.runsPerTab * steps;
            counted.tx.push(r.reduce((a, x) => a + x.transactions, 0) / total);
            counted.perCommit.push(r.reduce((a, x) => a + x.appends, 0) / r.reduce((a, x) => a + x.appendCommits, 0));
          }
          // The tabs start together; the slowest one's time is the aggregate's.
          return Math.max(...r.map((x) => x.ms));
        } finally {
          await pages[0]!.evaluate((n) => window.scale.drop(n), name);
        }
      });
      // Round 0 is the warm-up.
      const raw = got.raw.slice(1);
      const runs = got.runs.slice(1);
      const total = c.tabs * c.runsPerTab * steps;
      const r = ratioOf(raw, runs);
      figures.push({
        case: c.case,
        tabs: c.tabs,
        runsPerTab: c.runsPerTab,
        steps,
        stepsPerS: total / (median(runs) / 1000),
        rawTxPerS: total / (median(raw) / 1000),
        transactionsPerStep: median(counted.tx),
        appendsPerCommit: median(counted.perCommit),
        ratio: r.ratio,
        ratioMin: r.min,
        ratioMax: r.max,
      });
    }
  } finally {
    await context.close();
    await site.close();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

const describeCase = (f: ScaleIdbFigure): string =>
  f.case === "one-run"
    ? "one run alone"
    : f.case === "four-tabs"
      ? `${f.tabs} tabs × ${f.runsPerTab} runs on one database, a store per tab`
      : `${f.runsPerTab} runs at once in one tab, ${f.case === "one-tab" ? "one store (appends of several runs share a commit)" : "one store per run (no sharing)"}`;

export function printScaleIdb(figures: ScaleIdbFigure[]): void {
  console.log(
    "scale-idb: many runs at once, IndexedDB in Chromium on disk (persistent profile, strict), each run 20 read_only steps; against as many raw ~100-byte put transactions as steps, at the same concurrency",
  );
  console.log("| case | durable steps/s | raw transactions/s | transactions per step | appends per commit | ratio raw ÷ runs (spread) |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(
      `| ${describeCase(f)} | ${f.stepsPerS.toFixed(0)} | ${f.rawTxPerS.toFixed(0)} | ${f.transactionsPerStep.toFixed(2)} | ${f.appendsPerCommit.toFixed(1)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) |`,
    );
  }
  console.log("every run checked after each round: chain whole, every step's start and outcome, completed once, resumed once by its own tab (no lease broken)");
}

export function scaleIdbResults(figures: ScaleIdbFigure[]): Result[] {
  return figures.map((f) =>
    result(
      `scale.idb.disk.strict.${f.case}`,
      `raw time for as many ~100-byte put transactions as steps, at the same concurrency ÷ the runs' time: ${describeCase(f)}, ${f.steps} read_only steps each; IndexedDB in Chromium on disk (persistent profile), strict; ${f.stepsPerS.toFixed(0)} durable steps/s, ${f.transactionsPerStep.toFixed(2)} transactions per step, ${f.appendsPerCommit.toFixed(1)} appends per commit; no lost step, every lease honoured`,
      f.ratio,
      "informative",
      {
        storage: "disk",
        durability: "strict",
        tabs: f.tabs,
        runsPerTab: f.runsPerTab,
        steps: f.steps,
        stepsPerS: f.stepsPerS,
        rawTxPerS: f.rawTxPerS,
        transactionsPerStep: f.transactionsPerStep,
        appendsPerCommit: f.appendsPerCommit,
        spread: [f.ratioMin, f.ratioMax],
      },
    ),
  );
}
