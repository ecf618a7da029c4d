/**
 * The bundles of the core: one per platform for the package, and the
 * measurements (size, platform neutrality, no code generation from strings).
 */
import { build, type BuildOptions, type Metafile } from "esbuild";
import { gzipSync } from "node:zlib";

/** The package's entry points (subpath exports), by output name. */
export const ENTRY_POINTS: Record<string, string> = {
  index: "src/index.ts",
  testkit: "src/testkit/index.ts",
  http: "src/http/index.ts",
  "agents/openai": "src/agents/openai/index.ts",
  "agents/anthropic": "src/agents/anthropic/index.ts",
  "agents/record": "src/agents/record/index.ts",
  toolkit: "src/toolkit/index.ts",
  otel: "src/otel/index.ts",
  "toolkit/bash": "src/toolkit/bash/index.ts",
  "toolkit/bash/zlib-stub": "src/toolkit/bash/zlib-stub.ts",
  "toolkit/web-search": "src/toolkit/search/index.ts",
  mcp: "src/mcp/index.ts",
};

/**
 * just-bash's browser build (what browsers and Workers load) imports
 * node:zlib for gzip, which the shell leaves out: bundles for those
 * platforms alias it to isoagent's stub (as applications are told to).
 */
export const NO_ZLIB: BuildOptions = { alias: { "node:zlib": "./src/toolkit/bash/zlib-stub.ts" } };

/** How the platform check treats an entry unlike the core's. */
export interface NeutralOptions {
  /** Extra bundling options. */
  readonly build?: BuildOptions;
  /**
   * Exact strings in the bundle that mention eval but are data, not code
   * generation: left out of the scan. Each must still be there (an
   * allowance that no longer matches is reported), so none outlives its
   * reason.
   */
  readonly allowedStrings?: readonly string[];
}

/**
 * The bash entry resolves just-bash as a browser or a Worker does; its
 * defense-in-depth table names eval in a reason string (the code that
 * blocks eval, not a use of it).
 */
export const NEUTRAL_OPTIONS: Record<string, NeutralOptions> = {
  "toolkit/bash": { build: { conditions: ["browser"], ...NO_ZLIB }, allowedStrings: ['reason: "eval() allows arbitrary code execution"'] },
};

/**
 * Entries that run on Node only, by output name. The platform check leaves
 * them out, by name, and says so (a test holds it to that, and to their
 * failing the check: they spawn processes).
 */
export const NODE_ONLY_ENTRY_POINTS: Record<string, string> = {
  "mcp/stdio": "adapters/mcp-stdio/index.ts",
};

/** Adapters' entry points, by the platform they run on, bundled beside the core (they may use their platform). */
export const ADAPTER_ENTRY_POINTS: Partial<Record<Platform, Record<string, string>>> = {
  browser: { idb: "adapters/idb/index.ts" },
  workers: { "durable-object": "adapters/durable-object/index.ts" },
  node: NODE_ONLY_ENTRY_POINTS,
};

export type Platform = "browser" | "workers" | "node";

/** How each platform resolves packages: the export conditions it matches. */
export const PLATFORM_OPTIONS: Record<Platform, BuildOptions> = {
  browser: { platform: "browser", conditions: ["browser"] },
  workers: { platform: "neutral", conditions: ["workerd", "worker", "browser"], mainFields: ["module", "main"] },
  node: { platform: "node", conditions: ["node"] },
};

/** Builds the package bundles for one platform into `dist/<platform>/` (dependencies stay imports). */
export async function buildPlatform(platform: Platform): Promise<void> {
  await build({
    entryPoints: { ...ENTRY_POINTS, ...ADAPTER_ENTRY_POINTS[platform] },
    outdir: `dist/${platform}`,
    bundle: true,
    splitting: true,
    format: "esm",
    target: "es2022",
    sourcemap: true,
    packages: "external",
    external: ["cloudflare:*"],
    logLevel: "warning",
    ...PLATFORM_OPTIONS[platform],
  });
}

/** The core as an application would ship it to a browser: minified, with its dependencies, in memory. */
export function coreBrowserBundle(entry = "src/index.ts"): Promise<{ code: string; gzipBytes: number; minBytes: number }> {
  return browserBundle({ entryPoints: [entry] });
}

/**
 * Code as an application would ship it to a browser (minified, with its
 * dependencies, in memory), and its size minified and gzipped: the one
 * measure for isoagent and for the peers it is compared with.
 */
export async function browserBundle(input: Pick<BuildOptions, "entryPoints" | "stdin" | "absWorkingDir">): Promise<{ code: string; gzipBytes: number; minBytes: number }> {
  const r = await build({
    ...input,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const code = r.outputFiles[0]!.text;
  return { code, minBytes: Buffer.byteLength(code), gzipBytes: gzipSync(code, { level: 9 }).length };
}

/** What {@link checkCoreNeutral} found wrong; empty when the core is clean. */
export interface NeutralityReport {
  readonly problems: string[];
  readonly inputs: string[];
}

// Code generation from strings, refused by workerd and by a CSP without
// 'unsafe-eval'.
const CODEGEN = [/\beval\s*\(/, /\bnew\s+Function\s*\(/, /(?<![.\w$])Function\s*\(\s*["'`]/];

/**
 * Bundles `entry` for a neutral platform (no Node, no browser) and reports
 * anything platform-bound: an import that only resolves on one platform (a
 * `node:` module, a Node built-in), a file from `adapters/`, or code
 * generation from strings anywhere in the bundle, dependencies included.
 */
export async function checkCoreNeutral(entry = "src/index.ts", options: NeutralOptions = {}): Promise<NeutralityReport> {
  const problems: string[] = [];
  let metafile: Metafile | undefined;
  let code = "";
  try {
    const r = await build({
      entryPoints: [entry],
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: [],
      target: "es2022",
      logLevel: "silent",
      ...(options.build as { conditions?: string[]; alias?: Record<string, string> } | undefined),
      write: false,
      metafile: true,
    });
    metafile = r.metafile;
    code = r.outputFiles[0]!.text;
  } catch (e) {
    const errors = (e as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors ?? [];
    for (const err of errors) problems.push(`${err.location ? `${err.location.file}:${err.location.line}: ` : ""}${err.text}`);
    if (errors.length === 0) problems.push(String(e));
    return { problems, inputs: [] };
  }
  const inputs = Object.keys(metafile.inputs);
  for (const input of inputs) {
    if (input.startsWith("adapters/") || input.includes("/adapters/")) problems.push(`the core imports an adapter: ${input}`);
  }
  for (const output of Object.values(metafile.outputs)) {
    for (const imp of output.imports) problems.push(`the core bundle still imports ${imp.path} (${imp.kind})`);
  }
  for (const allowed of options.allowedStrings ?? []) {
    if (!code.includes(allowed)) problems.push(`an allowed string is no longer in the bundle (remove its allowance): ${JSON.stringify(allowed)}`);
    code = code.split(allowed).join("");
  }
  for (const re of CODEGEN) {
    const m = re.exec(code);
    if (m) problems.push(`code generation from strings in the core bundle: ${JSON.stringify(code.slice(Math.max(0, m.index - 40), m.index + 40))}`);
  }
  return { problems, inputs };
}

/** Bundles a Worker entry as a Workers deployment would (the Workers conditions of the package build), in memory. */
export async function bundleWorker(entry: string): Promise<string> {
  const bundle = await build({ entryPoints: [entry], bundle: true, format: "esm", ...PLATFORM_OPTIONS.workers, alias: NO_ZLIB.alias!, external: ["cloudflare:*"], target: "es2022", write: false, logLevel: "silent" });
  return bundle.outputFiles[0]!.text;
}

/**
 * An entry as an application ships it to a browser with code splitting:
 * the entry chunk (what loads up front) and the chunks it imports lazily,
 * each minified and gzipped (just-bash resolved as a browser resolves it).
 */
export async function splitBrowserBundle(entry: string): Promise<{ entry: { minBytes: number; gzipBytes: number }; lazy: { minBytes: number; gzipBytes: number }; files: number }> {
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: "out",
    logLevel: "silent",
    alias: NO_ZLIB.alias!,
    write: false,
    metafile: true,
  });
  const size = (text: string) => ({ minBytes: Buffer.byteLength(text), gzipBytes: gzipSync(text, { level: 9 }).length });
  const entryOut = Object.entries(r.metafile.outputs).find(([, o]) => o.entryPoint !== undefined)![0];
  let lazy = { minBytes: 0, gzipBytes: 0 };
  let first = { minBytes: 0, gzipBytes: 0 };
  // What the entry needs up front: itself and its static imports; everything else loads on the first command.
  const upfront = new Set<string>([entryOut]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const o of [...upfront]) for (const i of r.metafile.outputs[o]!.imports) if (i.kind === "import-statement" && !upfront.has(i.path)) (upfront.add(i.path), (changed = true));
  }
  for (const f of r.outputFiles) {
    const rel = f.path.slice(f.path.indexOf("/out/") + 1);
    const s = size(f.text);
    if (upfront.has(rel)) first = { minBytes: first.minBytes + s.minBytes, gzipBytes: first.gzipBytes + s.gzipBytes };
    else lazy = { minBytes: lazy.minBytes + s.minBytes, gzipBytes: lazy.gzipBytes + s.gzipBytes };
  }
  return { entry: first, lazy, files: r.outputFiles.length };
}
