import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { PLATFORM_OPTIONS } from "../../scripts/lib/bundle.js";

/**
 * Bundles a Worker entry as a Workers deployment would (the Workers
 * conditions of the package build) and starts it in plain miniflare: workerd
 * with its default policy, which refuses eval and new Function (unlike
 * @cloudflare/vitest-pool-workers, which allows them for itself).
 */
export async function startWorker(entry: string): Promise<Miniflare> {
  const bundle = await build({ entryPoints: [entry], bundle: true, format: "esm", ...PLATFORM_OPTIONS.workers, target: "es2022", write: false, logLevel: "silent" });
  const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: "2026-07-01" });
  await mf.ready;
  return mf;
}
