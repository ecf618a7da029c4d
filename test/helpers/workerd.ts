import { Miniflare, type MiniflareOptions } from "miniflare";
import { bundleWorker } from "../../scripts/lib/bundle.js";

export { bundleWorker };

/**
 * Starts a Worker in plain miniflare: workerd with its default policy, which
 * refuses eval and new Function (unlike @cloudflare/vitest-pool-workers,
 * which allows them for itself).
 */
export async function startWorker(entry: string, options: Partial<MiniflareOptions> = {}): Promise<Miniflare> {
  const mf = new Miniflare({ modules: true, script: await bundleWorker(entry), compatibilityDate: "2026-07-01", ...(options as object) } as MiniflareOptions);
  await mf.ready;
  return mf;
}

export { RUN_OBJECTS } from "../../scripts/lib/worker.js";
