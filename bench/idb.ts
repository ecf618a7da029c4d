/**
 * `npm run bench -- idb`: durable steps per second on IndexedDB in Chromium,
 * against a raw `idb` loop of one small put per transaction with the same
 * durability, in the same page and run (rounds alternate).
 */
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { serveStatic } from "../scripts/lib/static-server.js";
import { CHROMIUM } from "../test/helpers/chromium.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

export interface IdbFigure {
  readonly durability: "strict" | "relaxed";
  readonly steps: number;
  readonly rawMsPerTx: number;
  readonly driverMsPerStep: number;
  readonly stepsPerSecond: number;
  /** Driver steps per second / raw transactions per second (goal: at least 0.9). */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
  /** One transaction of the journal's write shape (read a record, add a ~1 KB record, put an indexed one), ms. */
  readonly shapeMsPerTx: number;
  /** Driver steps per second / such transactions per second (informative). */
  readonly ratioVsShape: number;
}



export async function benchIdb(options: { quick?: boolean } = {}): Promise<IdbFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><html><body><script type="module" src="./idb.js"></script></body></html>');
  await build({ entryPoints: ["bench/pages/idb.ts"], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, "idb.js"), logLevel: "warning" });
  const site = await serveStatic(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
  const figures: IdbFigure[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(site.url);
    await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
    const steps = options.quick ? 100 : 200;
    const rounds = options.quick ? 3 : 7;
    for (const durability of ["relaxed", "strict"] as const) {
      // Warm-up, then alternate.
      await page.evaluate(([n, d]) => window.bench.raw(n, d), [20, durability] as const);
      await page.evaluate(([n, d]) => window.bench.driver(n, d), [20, durability] as const);
      await page.evaluate(([n, d]) => window.bench.shape(n, d), [20, durability] as const);
      const got = await alternate(rounds, ["raw", "driver", "shape"] as const, async (which) => (await page.evaluate(([w, n, d]) => window.bench[w](n, d), [which, steps, durability] as const)) / steps);
      const vsRaw = ratioOf(got.raw, got.driver);
      figures.push({
        durability,
        steps,
        rawMsPerTx: median(got.raw),
        driverMsPerStep: median(got.driver),
        stepsPerSecond: 1000 / median(got.driver),
        ratio: vsRaw.ratio,
        ratioMin: vsRaw.min,
        ratioMax: vsRaw.max,
        shapeMsPerTx: median(got.shape),
        ratioVsShape: ratioOf(got.shape, got.driver).ratio,
      });
    }
  } finally {
    await browser.close();
    await site.close();
  }
  return figures;
}

export function printIdb(figures: IdbFigure[]): void {
  console.log("idb: driver steps on IndexedDB in Chromium against one small put per transaction, same durability, same page");
  console.log("| durability | raw put per transaction | driver per step | steps per second | ratio (steps/s / puts/s) (spread) | journal-shaped transaction | ratio to it |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(
      `| ${f.durability} | ${formatNs(f.rawMsPerTx * 1e6)} | ${formatNs(f.driverMsPerStep * 1e6)} | ${Math.round(f.stepsPerSecond)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) | ${formatNs(f.shapeMsPerTx * 1e6)} | ${f.ratioVsShape.toFixed(2)} |`,
    );
  }
  console.log("goal: a ratio of at least 0.9 (a step costs about one transaction)");
  console.log("informative: a journal-shaped transaction reads the run's record, adds one ~1 KB record of four events and puts the run's record (which an index covers), as the store does in one round trip");
}

export function idbResults(figures: IdbFigure[]): Result[] {
  return figures.flatMap((f) => [
    result(`durable.idb.${f.durability}`, `driver steps/s ÷ one put per transaction /s on IndexedDB in Chromium, durability ${f.durability}`, f.ratio, ">= 0.9", {
      rawMsPerTx: f.rawMsPerTx,
      driverMsPerStep: f.driverMsPerStep,
      spread: [f.ratioMin, f.ratioMax],
    }),
    result(
      `durable.idb.${f.durability}.vs-journal-shape`,
      `driver steps/s ÷ journal-shaped transactions /s (read a record, add a ~1 KB record, put an indexed one) on IndexedDB in Chromium, durability ${f.durability} (informative)`,
      f.ratioVsShape,
      "informative",
      { shapeMsPerTx: f.shapeMsPerTx, driverMsPerStep: f.driverMsPerStep },
    ),
  ]);
}
