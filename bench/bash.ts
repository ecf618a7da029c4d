/**
 * `npm run bench -- bash` (or `tsx bench/bash.ts`, which prints and writes
 * nothing): isoagent's bash against just-bash alone, in Node and in
 * Chromium, same run.
 *
 * - warm: one command through the tool's `call` (the sandboxed filesystem
 *   over a memory workspace, permit, output shaping, the receipt lookup)
 *   against `exec` of the same command on a reused just-bash over its own
 *   in-memory filesystem holding the same files; single operations
 *   alternate, round after round; the ratio of medians per round, then the
 *   median of the rounds (goal: at most 1.2).
 * - cold: the first command in a fresh process (Node) or a fresh page
 *   (Chromium), the lazy load of just-bash included, against importing
 *   just-bash and running the same command; both bundled the same way
 *   (esbuild, minified; in Chromium split, as an application ships them).
 *   Informative.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { NO_ZLIB } from "../scripts/lib/bundle.js";
import { serveStatic } from "../scripts/lib/static-server.js";
import { CHROMIUM } from "../test/helpers/chromium.js";
import { median } from "./harness.js";
import { result, type Result } from "./results.js";

export interface BashFigure {
  readonly platform: "node" | "chromium";
  readonly command: string;
  readonly warm: { justBashMs: number; bashMs: number; ratio: number; min: number; max: number; rounds: number };
  readonly cold: { justBashMs: number; bashMs: number; ratio: number; samples: number };
}

export const COMMAND = "cat notes/*.md | grep -c o; wc -l src/x.ts";
export const FILES: Record<string, string> = { "notes/a.md": "one\ntwo\nthree\n", "notes/b.md": "four\nfive\n", "src/x.ts": "export const x = 1;\nexport const y = 2;\n" };

/** The warm comparison, in whatever runtime runs it (Node here, the page in Chromium). */
export const WARM_SOURCE = `
import { Bash } from "just-bash";
import { memoryWorkspace } from "${process.cwd()}/src/toolkit/index.ts";
import { bashTool } from "${process.cwd()}/src/toolkit/bash/index.ts";
export async function warm(command, files, rounds, perRound) {
  const ws = memoryWorkspace(files);
  const tool = bashTool({ workspace: ws, requireApproval: false }).tool;
  const jb = new Bash({ files: Object.fromEntries(Object.entries(files).map(([k, v]) => ["/workspace/" + k, v])), cwd: "/workspace" });
  let key = 0;
  const ctx = () => ({ runId: "r", step: 1, callId: "c", attempt: 1, idempotencyKey: "k" + ++key, fencingToken: 1, signal: new AbortController().signal, permit: () => ({ permission: "allow" }) });
  const a = await tool.call({ command }, ctx());
  const b = await jb.exec(command);
  for (let w = 0; w < 30; w++) { await tool.call({ command }, ctx()); await jb.exec(command); }
  const med = (xs) => { const s = [...xs].sort((x, y) => x - y); return s[s.length >> 1]; };
  const out = [];
  for (let r = 0; r < rounds; r++) {
    const ours = [], theirs = [];
    // Batches of 10 operations, alternating: a browser's clock is too coarse for one.
    for (let i = 0; i < perRound / 10; i++) {
      const first = (i + r) % 2 === 0;
      for (const which of first ? [0, 1] : [1, 0]) {
        const t = performance.now();
        for (let b = 0; b < 10; b++) {
          if (which === 0) await jb.exec(command); else await tool.call({ command }, ctx());
        }
        (which === 0 ? theirs : ours).push((performance.now() - t) / 10);
      }
    }
    out.push({ justBash: med(theirs), bash: med(ours) });
  }
  return { rounds: out, sample: { tool: a, justBash: b.stdout } };
}
`;

const COLD_BASH = (command: string, files: Record<string, string>) => `
import { memoryWorkspace } from "${process.cwd()}/src/toolkit/index.ts";
import { bashTool } from "${process.cwd()}/src/toolkit/bash/index.ts";
export async function cold() {
  const t = performance.now();
  const tool = bashTool({ workspace: memoryWorkspace(${JSON.stringify(files)}), requireApproval: false }).tool;
  const r = await tool.call({ command: ${JSON.stringify(command)} }, { runId: "r", step: 1, callId: "c", attempt: 1, idempotencyKey: "k", fencingToken: 1, signal: new AbortController().signal, permit: () => ({ permission: "allow" }) });
  return { ms: performance.now() - t, ok: r.startsWith("exit code: 0") };
}
`;
const COLD_JB = (command: string, files: Record<string, string>) => `
export async function cold() {
  const t = performance.now();
  const { Bash } = await import("just-bash");
  const jb = new Bash({ files: ${JSON.stringify(Object.fromEntries(Object.entries(files).map(([k, v]) => [`/workspace/${k}`, v])))}, cwd: "/workspace" });
  const r = await jb.exec(${JSON.stringify(command)});
  return { ms: performance.now() - t, ok: r.exitCode === 0 };
}
`;

async function bundle(source: string, dir: string, name: string, platform: "node" | "browser", main: string): Promise<void> {
  const entry = join(dir, `${name}-entry.mjs`);
  writeFileSync(entry, `${source}\n${main}`);
  await build({
    entryPoints: { [name]: entry },
    bundle: true,
    splitting: true,
    minify: true,
    format: "esm",
    platform,
    target: "es2022",
    outdir: dir,
    logLevel: "warning",
    nodePaths: [join(process.cwd(), "node_modules")],
    ...(platform === "browser" ? { alias: NO_ZLIB.alias! } : { packages: "external" as const }),
  });
}

async function nodeFigure(options: { rounds: number; perRound: number; cold: number }): Promise<BashFigure> {
  // Inside node_modules, so that the bundles' imports of just-bash resolve.
  const dir = mkdtempSync(join(process.cwd(), "node_modules/.isoagent-bench-bash-"));
  try {
    return await nodeRuns(dir, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function nodeRuns(dir: string, options: { rounds: number; perRound: number; cold: number }): Promise<BashFigure> {
  await bundle(WARM_SOURCE, dir, "warm", "node", "");
  const { warm } = (await import(join(dir, "warm.js"))) as { warm: (c: string, f: Record<string, string>, r: number, n: number) => Promise<{ rounds: { justBash: number; bash: number }[] }> };
  const w = await warm(COMMAND, FILES, options.rounds, options.perRound);
  const main = `const r = await cold(); console.log(JSON.stringify(r));`;
  await bundle(COLD_BASH(COMMAND, FILES), dir, "cold-bash", "node", main);
  await bundle(COLD_JB(COMMAND, FILES), dir, "cold-jb", "node", main);
  const samples: { bash: number[]; jb: number[] } = { bash: [], jb: [] };
  for (let k = 0; k < options.cold; k++) {
    for (const which of k % 2 === 0 ? (["jb", "bash"] as const) : (["bash", "jb"] as const)) {
      const out = JSON.parse(
        execFileSync(process.execPath, [join(dir, `cold-${which}.js`)], { encoding: "utf8" })
          .trim()
          .split("\n")
          .at(-1)!,
      ) as { ms: number; ok: boolean };
      if (!out.ok) throw new Error(`cold ${which} failed`);
      samples[which].push(out.ms);
    }
  }
  return figure("node", w.rounds, samples);
}

function figure(platform: "node" | "chromium", rounds: { justBash: number; bash: number }[], cold: { bash: number[]; jb: number[] }): BashFigure {
  const ratios = rounds.map((r) => r.bash / r.justBash);
  return {
    platform,
    command: COMMAND,
    warm: {
      justBashMs: median(rounds.map((r) => r.justBash)),
      bashMs: median(rounds.map((r) => r.bash)),
      ratio: median(ratios),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      rounds: rounds.length,
    },
    cold: { justBashMs: median(cold.jb), bashMs: median(cold.bash), ratio: median(cold.bash) / median(cold.jb), samples: cold.bash.length },
  };
}

async function chromiumFigure(options: { rounds: number; perRound: number; cold: number }): Promise<BashFigure> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-bash-"));
  const page = (script: string) => `<!doctype html><html><body><script type="module" src="./${script}.js"></script></body></html>`;
  const expose = (fn: string) => `window.__run = () => ${fn}().then((r) => { window.__result = r; document.body.dataset.done = "yes"; }); document.body.dataset.ready = "yes";`;
  await bundle(WARM_SOURCE, dir, "warm", "browser", `window.__warm = warm; document.body.dataset.ready = "yes";`);
  await bundle(COLD_BASH(COMMAND, FILES), dir, "cold-bash", "browser", `${expose("cold")} window.__run();`);
  await bundle(COLD_JB(COMMAND, FILES), dir, "cold-jb", "browser", `${expose("cold")} window.__run();`);
  for (const name of ["warm", "cold-bash", "cold-jb"]) writeFileSync(join(dir, `${name}.html`), page(name));
  const site = await serveStatic(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
  try {
    const samples: { bash: number[]; jb: number[] } = { bash: [], jb: [] };
    for (let k = 0; k < options.cold; k++) {
      for (const which of k % 2 === 0 ? (["jb", "bash"] as const) : (["bash", "jb"] as const)) {
        // A fresh context: nothing cached, the chunks fetched again.
        const context = await browser.newContext();
        const p = await context.newPage();
        await p.goto(`${site.url}cold-${which}.html`);
        await p.waitForSelector("body[data-done=yes]", { state: "attached" });
        const out = (await p.evaluate(() => (window as unknown as { __result: { ms: number; ok: boolean } }).__result))!;
        if (!out.ok) throw new Error(`cold ${which} failed in Chromium`);
        samples[which].push(out.ms);
        await context.close();
      }
    }
    const p = await browser.newPage();
    await p.goto(`${site.url}warm.html`);
    await p.waitForSelector("body[data-ready=yes]", { state: "attached" });
    const w = await p.evaluate(([c, f, r, n]) => (window as unknown as { __warm: (...a: unknown[]) => Promise<{ rounds: { justBash: number; bash: number }[] }> }).__warm(c, f, r, n), [
      COMMAND,
      FILES,
      options.rounds,
      options.perRound,
    ] as const);
    return figure("chromium", w.rounds, samples);
  } finally {
    await browser.close();
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBash(options: { quick?: boolean } = {}): Promise<BashFigure[]> {
  const o = options.quick ? { rounds: 5, perRound: 100, cold: 5 } : { rounds: 11, perRound: 200, cold: 11 };
  return [await nodeFigure(o), await chromiumFigure(o)];
}

export function printBash(figures: BashFigure[]): void {
  console.log(`bash: isoagent's bash tool against just-bash alone, same run; command: ${COMMAND}`);
  console.log("| platform | just-bash warm | bash warm | warm ratio (spread) | just-bash cold | bash cold (lazy load included) | cold ratio |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(
      `| ${f.platform} | ${f.warm.justBashMs.toFixed(3)} ms | ${f.warm.bashMs.toFixed(3)} ms | ${f.warm.ratio.toFixed(2)} (${f.warm.min.toFixed(2)}-${f.warm.max.toFixed(2)}, ${f.warm.rounds} rounds) | ${f.cold.justBashMs.toFixed(1)} ms | ${f.cold.bashMs.toFixed(1)} ms | ${f.cold.ratio.toFixed(2)} (${f.cold.samples} samples) |`,
    );
  }
}

export function bashResults(figures: BashFigure[]): Result[] {
  return figures.flatMap((f) => [
    result(`bash.warm.${f.platform}`, `bash tool call ÷ just-bash exec, one warm command (${f.platform})`, f.warm.ratio, "<= 1.2", { ...f.warm, command: f.command }),
    result(`bash.cold.${f.platform}`, `bash's first command (lazy load included) ÷ just-bash's import and first command (${f.platform})`, f.cold.ratio, "informative", {
      ...f.cold,
      command: f.command,
    }),
  ]);
}

// Run directly: print, write nothing.
if (process.argv[1]?.endsWith("bench/bash.ts")) {
  const figures = await benchBash({ quick: process.argv.includes("--quick") });
  printBash(figures);
  for (const r of bashResults(figures)) console.log(`${r.id}: ${r.ratio} (${r.goal}${r.met ? ", met" : ", NOT met"})`);
}
