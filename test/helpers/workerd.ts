import { Miniflare, type MiniflareOptions } from "miniflare";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleWorker } from "../../scripts/lib/bundle.js";

export { bundleWorker };

/**
 * Where `npm run coverage` collects the workerd project's counters
 * (scripts/coverage.ts sets it); unset, Workers are bundled as they ship.
 */
const COVERAGE_DIR = process.env["ISOAGENT_WORKERD_COVERAGE"];

/** Whether this run's Workers are bundled instrumented for coverage (several times slower than as they ship). */
export const WORKERD_INSTRUMENTED = COVERAGE_DIR !== undefined && COVERAGE_DIR !== "";
let collected = 0;

/**
 * Starts a Worker in plain miniflare: workerd with its default policy, which
 * refuses eval and new Function (unlike @cloudflare/vitest-pool-workers,
 * which allows them for itself).
 *
 * In a coverage run the bundle is instrumented, and disposing of miniflare
 * first saves the isolate's counters (the Worker and its Durable Objects
 * share it) to a file for scripts/coverage.ts to merge.
 */
export async function startWorker(entry: string, options: Partial<MiniflareOptions> = {}): Promise<Miniflare> {
  const coverage = COVERAGE_DIR !== undefined && COVERAGE_DIR !== "";
  const mf = new Miniflare({ modules: true, script: await bundleWorker(entry, { coverage }), compatibilityDate: "2026-07-01", ...(options as object) } as MiniflareOptions);
  await mf.ready;
  if (coverage) {
    const dispose = mf.dispose.bind(mf);
    mf.dispose = async () => {
      const res = await mf.dispatchFetch("http://localhost/__isoagent_coverage__");
      const counters = await res.text();
      mkdirSync(COVERAGE_DIR, { recursive: true });
      writeFileSync(join(COVERAGE_DIR, `workerd-${process.pid}-${++collected}.json`), counters);
      return dispose();
    };
  }
  return mf;
}

export { RUN_OBJECTS } from "../../scripts/lib/worker.js";
