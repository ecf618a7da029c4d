/**
 * Coverage of code that runs outside vitest's reach: the Worker bundles that
 * the workerd project runs in plain miniflare. An esbuild plugin instruments
 * the project's own sources (src/, adapters/) with istanbul, the same
 * instrumenter and options as vitest's istanbul provider, so the counters of
 * every runtime remap to the same locations of the TypeScript sources and
 * merge into one report (scripts/coverage.ts).
 *
 * The instrumented code finds its counters on `globalThis` (istanbul's default
 * evaluates `new Function("return this")`, which workerd refuses). A bundle
 * built this way answers `GET /__isoagent_coverage__` with its isolate's
 * counters, which the test helper fetches before it disposes of miniflare.
 */
import { createInstrumenter } from "@vitest/istanbul-lib-instrument";
import { transform, type Plugin } from "esbuild";
import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";

/** The route a coverage bundle answers with its counters. */
export const COVERAGE_ROUTE = "/__isoagent_coverage__";

/** The folders whose files are measured: the core and the adapters. */
export const MEASURED = ["src", "adapters"];

const ROOT = resolve(import.meta.dirname, "../..");

/** Whether a file is one of the project's measured sources. */
export function isMeasured(file: string): boolean {
  const rel = relative(ROOT, file).split(sep).join("/");
  return MEASURED.some((d) => rel.startsWith(`${d}/`)) && rel.endsWith(".ts") && !rel.endsWith(".d.ts");
}

/** An esbuild plugin that instruments the measured sources with istanbul (TypeScript transpiled first, its source map kept for remapping). */
export function istanbulPlugin(): Plugin {
  const instrumenter = createInstrumenter({
    produceSourceMap: true,
    autoWrap: false,
    esModules: true,
    coverageVariable: "__coverage__",
    coverageGlobalScope: "globalThis",
    coverageGlobalScopeFunc: false,
  });
  return {
    name: "isoagent-istanbul",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!isMeasured(args.path)) return undefined;
        const source = await readFile(args.path, "utf8");
        const js = await transform(source, { loader: "ts", format: "esm", target: "es2022", sourcemap: "external", sourcefile: args.path, sourcesContent: true });
        const map = JSON.parse(js.map) as { sources: string[] };
        map.sources = [args.path];
        const code = instrumenter.instrumentSync(js.code, args.path, map as never);
        return { contents: code, loader: "js", resolveDir: resolve(args.path, "..") };
      });
    },
  };
}

/**
 * The source of an entry that wraps a Worker entry: everything it exports,
 * and a default handler that answers {@link COVERAGE_ROUTE} with the
 * isolate's counters (Durable Objects of the same script share the isolate).
 */
export function coverageEntry(entry: string): string {
  const path = JSON.stringify(resolve(ROOT, entry));
  return [
    `import worker from ${path};`,
    `export * from ${path};`,
    `export default {`,
    `  ...worker,`,
    `  fetch(request, env, ctx) {`,
    `    if (new URL(request.url).pathname === ${JSON.stringify(COVERAGE_ROUTE)}) return new Response(JSON.stringify(globalThis.__coverage__ ?? {}), { headers: { "content-type": "application/json" } });`,
    `    return worker.fetch(request, env, ctx);`,
    `  },`,
    `};`,
  ].join("\n");
}
