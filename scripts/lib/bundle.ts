/**
 * The bundles of the core: one per platform for the package, and the
 * measurements (size, platform neutrality, no code generation from strings).
 */
import { build, type BuildOptions, type Metafile } from "esbuild";
import { gzipSync } from "node:zlib";

/** The package's entry points (subpath exports), by output name. */
export const ENTRY_POINTS: Record<string, string> = {
  index: "src/index.ts",
  // The core's areas whole, for those who build beside the root's selection.
  driver: "src/driver/index.ts",
  tools: "src/tools/index.ts",
  schema: "src/schema/index.ts",
  json: "src/json/index.ts",
  journal: "src/journal/index.ts",
  store: "src/store/index.ts",
  policy: "src/policy/index.ts",
  testkit: "src/testkit/index.ts",
  http: "src/http/index.ts",
  "agents/openai": "src/agents/openai/index.ts",
  "agents/anthropic": "src/agents/anthropic/index.ts",
  "agents/record": "src/agents/record/index.ts",
  toolkit: "src/toolkit/index.ts",
  otel: "src/otel/index.ts",
  "toolkit/bash": "src/toolkit/bash/index.ts",
  "toolkit/bash/zlib-stub": "src/toolkit/bash/zlib-stub.ts",
  "toolkit/bash/interpreter": "src/toolkit/bash/interpreter.ts",
  "toolkit/web-search": "src/toolkit/search/index.ts",
  mcp: "src/mcp/index.ts",
  move: "src/move/index.ts",
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
  "toolkit/bash/interpreter": { build: { conditions: ["browser"], ...NO_ZLIB }, allowedStrings: ['reason: "eval() allows arbitrary code execution"'] },
};

/**
 * Entries that run on Node only, by output name. The platform check leaves
 * them out, by name, and says so (a test holds it to that, and to their
 * failing the check: they spawn processes).
 */
export const NODE_ONLY_ENTRY_POINTS: Record<string, string> = {
  "mcp/stdio": "adapters/mcp-stdio/index.ts",
  "toolkit/bash/node": "adapters/bash-node/index.ts",
};

/** Adapters' entry points, by the platform they run on, bundled beside the core (they may use their platform). */
export const ADAPTER_ENTRY_POINTS: Partial<Record<Platform, Record<string, string>>> = {
  browser: { idb: "adapters/idb/index.ts", "toolkit/bash/web": "adapters/bash-web/index.ts" },
  workers: { "durable-object": "adapters/durable-object/index.ts" },
  node: NODE_ONLY_ENTRY_POINTS,
};

export type Platform = "browser" | "workers" | "node";

/**
 * Entries whose source differs by platform (the same subpath): in Node and
 * in browsers isoagent/toolkit/bash runs its interpreter in a thread of its
 * own by default, whose module is toolkit/bash-worker beside it. Workers
 * keep the core's entry (no threads: the limits derived from the timeout).
 */
export const PLATFORM_ENTRY_POINTS: Partial<Record<Platform, Record<string, string>>> = {
  node: { "toolkit/bash": "adapters/bash-node/entry.ts", "toolkit/bash-worker": "adapters/bash-node/thread.ts" },
  browser: { "toolkit/bash": "adapters/bash-web/entry.ts", "toolkit/bash-worker": "adapters/bash-web/thread.ts" },
};

/** How each platform resolves packages: the export conditions it matches. */
export const PLATFORM_OPTIONS: Record<Platform, BuildOptions> = {
  browser: { platform: "browser", conditions: ["browser"] },
  workers: { platform: "neutral", conditions: ["workerd", "worker", "browser"], mainFields: ["module", "main"] },
  node: { platform: "node", conditions: ["node"] },
};

/** Builds the package bundles for one platform into `dist/<platform>/` (dependencies stay imports). */
export async function buildPlatform(platform: Platform): Promise<void> {
  await build({
    entryPoints: { ...ENTRY_POINTS, ...ADAPTER_ENTRY_POINTS[platform], ...PLATFORM_ENTRY_POINTS[platform] },
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

/** A size, minified and gzipped (level 9). */
export interface BundleSize {
  readonly minBytes: number;
  readonly gzipBytes: number;
}

/** One output file of a split bundle. */
export interface Chunk extends BundleSize {
  readonly path: string;
  /** Loaded with the entry (reached by static imports), not only by a dynamic `import()`. */
  readonly initial: boolean;
  /** The source files in it, with their minified bytes. */
  readonly inputs: Readonly<Record<string, number>>;
}

/**
 * A bundle as an application ships it to a browser, split where the code
 * says `import()`: `minBytes` and `gzipBytes` count the chunks every load
 * fetches (the entry and what it imports statically, each gzipped on its
 * own, as each is its own request); `lazy` counts the chunks fetched only
 * when a dynamic `import()` runs.
 */
export interface SplitBundle extends BundleSize {
  readonly lazy: BundleSize;
  readonly chunks: readonly Chunk[];
}

/** Where split bundles are laid out in memory (never written). */
const VIRTUAL_OUT = "/isoagent-size.invalid";

/**
 * Code as an application would ship it to a browser (minified, with its
 * dependencies, split at dynamic imports, in memory), and its size
 * minified and gzipped: the one measure for isoagent and for the peers it
 * is compared with.
 */
export async function browserBundle(input: Pick<BuildOptions, "entryPoints" | "stdin" | "absWorkingDir">): Promise<SplitBundle> {
  const r = await build({
    ...input,
    bundle: true,
    splitting: true,
    outdir: VIRTUAL_OUT,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = r.metafile.outputs;
  const entry = Object.keys(outputs).find((k) => outputs[k]!.entryPoint !== undefined);
  if (entry === undefined) throw new Error("no entry chunk");
  const initial = new Set<string>();
  const visit = (path: string): void => {
    if (initial.has(path)) return;
    initial.add(path);
    for (const imp of outputs[path]!.imports) if (imp.kind === "import-statement") visit(imp.path);
  };
  visit(entry);
  const texts = new Map(r.outputFiles.map((f) => [f.path, f.text]));
  const chunks: Chunk[] = Object.entries(outputs)
    .filter(([path]) => path.endsWith(".js"))
    .map(([path, out]) => {
      const text = [...texts].find(([abs]) => abs.endsWith(path.replace(/^(\.\.\/)+/, "/")))?.[1] ?? "";
      return {
        path,
        initial: initial.has(path),
        minBytes: Buffer.byteLength(text),
        gzipBytes: gzipSync(text, { level: 9 }).length,
        inputs: Object.fromEntries(Object.entries(out.inputs).map(([k, v]) => [k, v.bytesInOutput])),
      };
    });
  const sum = (list: Chunk[]): BundleSize => ({ minBytes: list.reduce((n, c) => n + c.minBytes, 0), gzipBytes: list.reduce((n, c) => n + c.gzipBytes, 0) });
  return { ...sum(chunks.filter((c) => c.initial)), lazy: sum(chunks.filter((c) => !c.initial)), chunks };
}

/** The entries whose size has a budget: the whole index, and what a tool-using agent on the memory store imports. */
export const SIZE_ENTRIES = {
  index: `export * from "./src/index.ts";`,
  driver: `export { createDriver, defineTool, memoryStore, scriptedAgent } from "./src/index.ts";`,
  // The entries added beside the core: each as an app that imports it loads it (the core modules it uses included).
  mcp: `export * from "./src/mcp/index.ts";`,
  otel: `export * from "./src/otel/index.ts";`,
  move: `export * from "./src/move/index.ts";`,
} as const;

/** An entry of {@link SIZE_ENTRIES} (or any module's source) as a browser app ships it. */
export function entryBundle(name: keyof typeof SIZE_ENTRIES | (string & {}), contents: string = SIZE_ENTRIES[name as keyof typeof SIZE_ENTRIES]): Promise<SplitBundle> {
  return browserBundle({ stdin: { contents, resolveDir: process.cwd(), sourcefile: `${name}-entry.ts`, loader: "ts" } });
}

/** The core (`isoagent`'s index) as a browser app ships it: the chunks every load fetches, and the lazy ones apart. */
export function coreBrowserBundle(): Promise<SplitBundle> {
  return entryBundle("index");
}

/** Source files of full schema support: never in a chunk every load fetches. */
export const FULL_SUPPORT_ONLY: readonly RegExp[] = [
  /(^|\/)node_modules\/@cfworker\//,
  /^src\/schema\/(full|metaschemas|metaschema-lookup|dynamic-ref|reference-issues)\.ts$/,
  /^src\/schema\/formats\//,
];

/**
 * What only the HTTP app, the toolkit, the testkit and the other subpath
 * entries need (with the policy helpers written for the toolkit's tools):
 * never reachable from the createDriver entry.
 */
export const NOT_FOR_THE_DRIVER: readonly RegExp[] = [
  /^src\/(http|toolkit|testkit|otel|move)\//,
  /^src\/agents\/(openai|anthropic|record|model)\//,
  /^src\/policy\/(workspace|glob)\.ts$/,
  /^src\/tools\/diff\.ts$/,
  /^adapters\//,
  /(^|\/)node_modules\/(hono|idb)\//,
];

/**
 * Proves the chunks stay apart: no chunk that every load of an entry
 * (by default those of {@link SIZE_ENTRIES}) fetches holds full schema
 * support; the index's lazy chunks do hold it (so `loadFullSchemaSupport()`
 * has something to load); and the createDriver entry ("driver") reaches
 * nothing of {@link NOT_FOR_THE_DRIVER}. Returns the problems; empty when
 * all holds.
 */
export async function checkChunks(entries: Readonly<Record<string, string>> = SIZE_ENTRIES): Promise<string[]> {
  const problems: string[] = [];
  const matches = (patterns: readonly RegExp[], input: string): boolean => patterns.some((p) => p.test(input));
  for (const [name, contents] of Object.entries(entries)) {
    const b = await entryBundle(name, contents);
    for (const c of b.chunks) {
      for (const input of Object.keys(c.inputs)) {
        if (c.initial && matches(FULL_SUPPORT_ONLY, input)) problems.push(`${name}: ${input} is in a chunk every load fetches (${c.path}); it belongs to full schema support`);
        if (name === "driver" && matches(NOT_FOR_THE_DRIVER, input)) problems.push(`driver: the createDriver entry reaches ${input}`);
      }
    }
    if (name === "index") {
      const lazy = b.chunks.filter((c) => !c.initial).flatMap((c) => Object.keys(c.inputs));
      for (const needed of ["src/schema/full.ts", "src/schema/metaschemas.ts", "src/schema/formats/index.ts"]) {
        if (!lazy.includes(needed)) problems.push(`index: ${needed} is not in a lazy chunk`);
      }
      if (!lazy.some((i) => /node_modules\/@cfworker\//.test(i))) problems.push("index: @cfworker/json-schema is not in a lazy chunk");
    }
  }
  return problems;
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

/**
 * Bundles a Worker entry as a Workers deployment would (the Workers
 * conditions of the package build), in memory. With `coverage`, the
 * project's sources are instrumented with istanbul and the Worker answers
 * `GET /__isoagent_coverage__` with its counters (`npm run coverage`).
 */
export async function bundleWorker(entry: string, options: { coverage?: boolean } = {}): Promise<string> {
  let input: BuildOptions = { entryPoints: [entry] };
  if (options.coverage === true) {
    // Loaded only here: the instrumenter is a coverage run's dependency alone.
    const { coverageEntry, istanbulPlugin } = await import("./instrument.js");
    input = { stdin: { contents: coverageEntry(entry), resolveDir: process.cwd(), sourcefile: "coverage-entry.js", loader: "js" }, plugins: [istanbulPlugin()] };
  }
  const bundle = await build({
    ...input,
    bundle: true,
    format: "esm",
    ...PLATFORM_OPTIONS.workers,
    alias: NO_ZLIB.alias!,
    external: ["cloudflare:*"],
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
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
  for (let changed = true; changed;) {
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
