/**
 * bash's worker modules as the package builds them, for tests that run
 * from the sources: the Node worker thread's module bundled once per test
 * process (its dependencies stay imports, resolved from the project's
 * node_modules), and the Web Worker's module bundled into a page's folder.
 */
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { NO_ZLIB } from "../../scripts/lib/bundle.js";

let nodeWorker: Promise<URL> | undefined;

/** The Node worker thread's module (adapters/bash-node/thread.ts), built under node_modules/.cache so that just-bash resolves. */
export function nodeBashWorkerUrl(): Promise<URL> {
  nodeWorker ??= (async () => {
    const dir = resolve("node_modules/.cache/isoagent-test");
    mkdirSync(dir, { recursive: true });
    const outfile = join(dir, `bash-worker-${process.pid}-${Date.now()}.mjs`);
    await build({ entryPoints: ["adapters/bash-node/thread.ts"], bundle: true, platform: "node", format: "esm", target: "es2022", packages: "external", outfile, logLevel: "silent" });
    return pathToFileURL(outfile);
  })();
  return nodeWorker;
}

/** Bundles the Web Worker's module (adapters/bash-web/thread.ts) as `bash-worker.js` into `dir`, as a page's bundler would. */
export async function buildWebBashWorker(dir: string, name = "bash-worker.js"): Promise<void> {
  await build({
    entryPoints: { [name.replace(/\.js$/, "")]: "adapters/bash-web/thread.ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: dir,
    alias: NO_ZLIB.alias!,
    logLevel: "silent",
  });
}
