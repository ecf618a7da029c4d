/**
 * `npm run checks`: the static half of `npm test` (every program of
 * `npm run typecheck`, `npm run lint`, `npm run check:platform`,
 * `npm run format:check`), run side by
 * side, as many at once as the machine has cores (at least 2).
 *
 * Each is a single-threaded process: run one after another they took 141 s
 * of a quiet 2-core machine's `npm test`, about half of it with a core idle.
 * The list of type-checked programs is read from package.json's `typecheck`
 * script, so that the two never disagree. Each check's output is printed
 * whole when it ends (never interleaved), with its time; the run fails if
 * any check failed, after all of them have ended, so one run shows every
 * failure.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

interface Check {
  readonly name: string;
  readonly command: string;
}

const scripts = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> }).scripts;

/** The commands of an npm script written as `a && b && c`. */
function commandsOf(script: string): string[] {
  const text = scripts[script];
  if (text === undefined) throw new Error(`package.json has no "${script}" script`);
  return text.split(" && ").map((c) => c.trim());
}

// Longest first, so that the last to start is a short one: the lint (about
// 45 s), the test program's type check (about 15 s), then the rest.
const checks: Check[] = [
  { name: "lint", command: scripts["lint"]! },
  ...commandsOf("typecheck")
    .map((command) => ({ name: command.replace(/^tsc -p (\S+).*$/, "typecheck $1"), command }))
    .sort((a, b) => Number(b.command.includes("tsconfig.test.json")) - Number(a.command.includes("tsconfig.test.json"))),
  { name: "check:platform", command: scripts["check:platform"]! },
  { name: "format", command: scripts["format:check"]! },
];

function run(check: Check): Promise<{ check: Check; ok: boolean; output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(check.command, { shell: true, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => chunks.push(b));
    child.stderr.on("data", (b: Buffer) => chunks.push(b));
    const done = (ok: boolean, extra = ""): void => resolve({ check, ok, output: Buffer.concat(chunks).toString("utf8") + extra, seconds: (performance.now() - started) / 1000 });
    child.on("error", (e) => done(false, `could not start: ${e.message}\n`));
    child.on("close", (code, signal) => done(code === 0, code === 0 ? "" : `exited with ${code ?? signal}\n`));
  });
}

const lanes = Math.max(2, availableParallelism());
const queue = [...checks];
const failed: string[] = [];
const started = performance.now();

async function lane(): Promise<void> {
  for (let check = queue.shift(); check !== undefined; check = queue.shift()) {
    const r = await run(check);
    const text = r.output.trimEnd();
    console.log(`${r.ok ? "ok" : "FAILED"} ${r.check.name} (${r.seconds.toFixed(1)} s): ${r.check.command}${text === "" ? "" : `\n${text}`}`);
    if (!r.ok) failed.push(r.check.name);
  }
}

await Promise.all(Array.from({ length: Math.min(lanes, checks.length) }, lane));
const total = ((performance.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  console.error(`${failed.length} of ${checks.length} checks failed (${total} s, ${lanes} at once): ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`all ${checks.length} checks passed (${total} s, ${lanes} at once)`);
