/**
 * `npm run mutate [-- <area>...] [--force] [--summary-only]`: mutation
 * testing of the core with StrykerJS, area by area (test/mutation/areas.mjs),
 * each incremental, then the committed summary, test/mutation/summary.md.
 *
 * `--force` forgets the named areas' incremental results and tests every
 * mutant again. Needed after changing a conformance suite in src/testkit:
 * Stryker sees a test as changed only when its test file changes, and the
 * conformance cases' bodies live outside the test files that register them,
 * so an incremental run would keep their old verdicts.
 *
 * The summary counts each area's mutants by status, gives the score
 * (killed + timed out over everything that could be detected: killed, timed
 * out, survived, no coverage), and lists every surviving mutant, with the
 * reason when test/mutation/equivalent.json says it is equivalent (no test
 * can tell it from the original) and "unexplained" otherwise.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AREAS } from "../test/mutation/areas.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const REPORTS = join(ROOT, "reports/mutation");
const SUMMARY = join(ROOT, "test/mutation/summary.md");
const EQUIVALENT = join(ROOT, "test/mutation/equivalent.json");

type Area = keyof typeof AREAS;
const argv = process.argv.slice(2);
const summaryOnly = argv.includes("--summary-only");
const force = argv.includes("--force");
const named = argv.filter((a) => !a.startsWith("--"));
for (const a of named) if (!(a in AREAS)) throw new Error(`unknown area "${a}": one of ${Object.keys(AREAS).join(", ")}`);
const areas = (named.length > 0 ? named : Object.keys(AREAS)) as Area[];

// ---- run ------------------------------------------------------------------------------

const timings: Record<string, number> = existsSync(join(REPORTS, "timings.json")) ? (JSON.parse(readFileSync(join(REPORTS, "timings.json"), "utf8")) as Record<string, number>) : {};
if (!summaryOnly) {
  for (const area of areas) {
    const t0 = Date.now();
    if (force) rmSync(join(REPORTS, `${area}.incremental.json`), { force: true });
    // Only a run that tested every mutant says how long the area takes.
    const full = !existsSync(join(REPORTS, `${area}.incremental.json`));
    console.log(`\nmutate: ${area} (${AREAS[area].what})`);
    const r = spawnSync(process.execPath, [join(ROOT, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", "stryker.config.mjs"], {
      cwd: ROOT,
      stdio: "inherit",
      // The third-party suites, found from the sandbox Stryker copies the
      // project into (../shared/suites would not be beside it there).
      env: { ...process.env, ISOAGENT_MUTATION_AREA: area, ISOAGENT_SUITES: resolve(ROOT, process.env["ISOAGENT_SUITES"] ?? "../shared/suites") },
    });
    if (r.status !== 0) {
      console.error(`mutate: Stryker failed on ${area} (exit ${r.status ?? r.signal})`);
      process.exit(1);
    }
    if (full) timings[area] = Math.round((Date.now() - t0) / 1000);
    writeFileSync(join(REPORTS, "timings.json"), `${JSON.stringify(timings, null, 2)}\n`);
  }
}

// ---- summary -----------------------------------------------------------------------------

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: "Killed" | "Survived" | "NoCoverage" | "Timeout" | "CompileError" | "RuntimeError" | "Ignored" | "Pending";
  statusReason?: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}
interface Equivalent {
  file: string;
  line: number;
  column: number;
  mutator: string;
  replacement: string;
  reason: string;
  /**
   * Not equivalent: a test outside the mutation run kills it (one that needs
   * a module graph of its own, which the run's shared graph cannot give).
   * Listed, but still counted as a survivor in both scores.
   */
  killedBy?: string;
}

const equivalents = JSON.parse(readFileSync(EQUIVALENT, "utf8")) as Equivalent[];
const isEquivalent = (file: string, m: Mutant): Equivalent | undefined =>
  equivalents.find((e) => e.file === file && e.line === m.location.start.line && e.column === m.location.start.column && e.mutator === m.mutatorName && e.replacement === (m.replacement ?? ""));
const used = new Set<Equivalent>();

const STATUSES = ["Killed", "Timeout", "Survived", "NoCoverage", "Ignored", "RuntimeError", "CompileError"] as const;
type Counts = Record<(typeof STATUSES)[number], number> & { equivalent: number; outside: number; unexplained: number };
const zero = (): Counts => ({ Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, Ignored: 0, RuntimeError: 0, CompileError: 0, equivalent: 0, outside: 0, unexplained: 0 });
const score = (c: Counts): string => {
  const detectable = c.Killed + c.Timeout + c.Survived + c.NoCoverage;
  return detectable === 0 ? "–" : `${((100 * (c.Killed + c.Timeout)) / detectable).toFixed(1)}%`;
};
const scoreWithoutEquivalents = (c: Counts): string => {
  const detectable = c.Killed + c.Timeout + c.Survived + c.NoCoverage - c.equivalent;
  return detectable === 0 ? "–" : `${((100 * (c.Killed + c.Timeout)) / detectable).toFixed(1)}%`;
};

const lines: string[] = [];
const total = zero();
const perFile: string[] = [];
const survivors: string[] = [];
const ignored: string[] = [];
const missing: string[] = [];
const measured: string[] = [];
for (const area of Object.keys(AREAS) as Area[]) {
  const file = join(REPORTS, `${area}.json`);
  if (!existsSync(file)) {
    missing.push(area);
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8")) as Report;
  measured.push(`${area} ${statSync(file).mtime.toISOString().slice(0, 16).replace("T", " ")} UTC`);
  for (const [path, f] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const c = zero();
    const src = f.source.split("\n");
    for (const m of [...f.mutants].sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)) {
      if (m.status in c) c[m.status as keyof Counts]++;
      const where = `${path}:${m.location.start.line}:${m.location.start.column}`;
      const original = src[m.location.start.line - 1]?.trim() ?? "";
      const shown = `\`${where}\` ${m.mutatorName}: ${JSON.stringify(m.replacement ?? "")} in \`${original.length > 100 ? `${original.slice(0, 100)}…` : original}\``;
      if (m.status === "Survived" || m.status === "NoCoverage") {
        const eq = isEquivalent(path, m);
        if (eq !== undefined) used.add(eq);
        if (eq?.killedBy !== undefined) {
          c.outside++;
          survivors.push(`- ${shown} (${m.status}) — killed outside the mutation run by ${eq.killedBy}: ${eq.reason}`);
        } else if (eq !== undefined) {
          c.equivalent++;
          survivors.push(`- ${shown} (${m.status}) — equivalent: ${eq.reason}`);
        } else {
          c.unexplained++;
          survivors.push(`- ${shown} (${m.status}) — **unexplained**`);
        }
      }
      if (m.status === "Ignored") ignored.push(`- ${shown}`);
    }
    for (const k of Object.keys(c) as (keyof Counts)[]) total[k] += c[k];
    perFile.push(
      `| ${area} | \`${path}\` | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${c.equivalent} | ${c.Ignored} | ${c.RuntimeError + c.CompileError} | ${score(c)} | ${scoreWithoutEquivalents(c)} |`,
    );
  }
}

lines.push(
  "# Mutation testing of the core",
  "",
  "Written by `npm run mutate` (scripts/mutate.ts) from StrykerJS's reports; do not edit by hand.",
  "Areas, their files and the tests run against them: `test/mutation/areas.mjs`.",
  "Score = (killed + timed out) / (killed + timed out + survived + no coverage), as Stryker counts it;",
  "the last column leaves out the survivors listed as equivalent in `test/mutation/equivalent.json`.",
  "",
  `**Scope: ${score(total)}** (${scoreWithoutEquivalents(total)} without the ${total.equivalent} equivalent mutants). ` +
    `${total.Killed} killed, ${total.Timeout} timed out, ${total.Survived} survived, ${total.NoCoverage} without coverage, ${total.Ignored} ignored (static), ${total.RuntimeError + total.CompileError} errors.`,
  "",
  `Survivors: ${total.equivalent} equivalent, ${total.outside} killed only outside the mutation run (counted as survivors), **${total.unexplained} unexplained**.`,
  "",
  `Reports measured: ${measured.join(", ") || "–"}. A report's line numbers are those of the sources it was measured on.`,
  "",
  ...(missing.length > 0 ? [`Not run yet: ${missing.join(", ")}.`, ""] : []),
  "| area | file | killed | timed out | survived | no coverage | of which equivalent | ignored | errors | score | without equivalents |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...perFile,
  "",
  `Time of the last full run of each area here (2 shared cores, one or two test runners): ${
    Object.entries(timings)
      .map(([a, s]) => `${a} ${Math.round(s / 60)} min`)
      .join(", ") || "–"
  }.`,
  "",
  `## Surviving mutants (${survivors.length})`,
  "",
  ...(survivors.length > 0 ? survivors : ["None."]),
  "",
  `## Ignored: static mutants (${ignored.length})`,
  "",
  "Reached only while a module loads (module-level constants and tables); testing one means a fresh module graph and every test of its area, so they are left out of the score.",
  "",
  ...(ignored.length > 0 ? ignored : ["None."]),
  "",
);
const stale = equivalents.filter((e) => !used.has(e));
if (stale.length > 0 && missing.length === 0) {
  lines.push("## Listed as equivalent but not found among the survivors", "", ...stale.map((e) => `- \`${e.file}:${e.line}:${e.column}\` ${e.mutator} ${JSON.stringify(e.replacement)}`), "");
}
writeFileSync(SUMMARY, lines.join("\n"));
console.log(`\nmutate: scope ${score(total)} (${scoreWithoutEquivalents(total)} without equivalents); summary in test/mutation/summary.md`);
