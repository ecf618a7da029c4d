/**
 * `npm run coverage [-- --check] [--write-baseline]`: the node, Chromium and
 * workerd projects, each run once with istanbul counters, merged into one
 * report, summed up per folder of src/ and adapters/.
 *
 * - node and browser (Chromium, vitest browser mode): vitest's istanbul
 *   provider, one run per project so each runtime's share shows;
 * - workerd: the Worker bundles instrumented by scripts/lib/instrument.ts
 *   (same instrumenter, same options), their counters saved by
 *   test/helpers/workerd.ts before miniflare is disposed of, then remapped to
 *   the TypeScript sources through the bundles' source maps.
 *
 * All three land on the same source locations, so they merge statement by
 * statement. Writes coverage/<runtime>/coverage-final.json, coverage/merged/
 * (json and html), coverage/summary.md and coverage/summary.json.
 *
 * `--check` fails when a folder's figure is more than 2 points below the
 * committed baseline (or, in a folder where one item is worth more, more
 * than one item below it) (test/coverage/baseline.json); `--write-baseline`
 * rewrites the baseline from this run.
 */
import { createCoverageMap, type CoverageMap, type CoverageMapData } from "@vitest/istanbul-lib-coverage";
import { createContext, create as createReport } from "@vitest/istanbul-lib-report";
import { createSourceMapStore } from "@vitest/istanbul-lib-source-maps";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const OUT = join(ROOT, "coverage");
const BASELINE = join(ROOT, "test/coverage/baseline.json");
/** A folder may fall this many points below its baseline before --check fails. */
const TOLERANCE = 2;
const METRICS = ["lines", "branches", "functions", "statements"] as const;
type Metric = (typeof METRICS)[number];
type Figures = Record<Metric, { covered: number; total: number; pct: number }>;

const args = new Set(process.argv.slice(2));
const started = Date.now();

/** One vitest run of one project with the istanbul provider, its report in coverage/<name>. */
function vitest(project: string, name: string, options: { vitestCoverage: boolean; flags?: string[]; env?: Record<string, string> }): void {
  const dir = join(OUT, name);
  const flags = options.vitestCoverage ? ["--coverage.enabled", ...(options.flags ?? [])] : (options.flags ?? []);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--project", project, ...flags], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, ISOAGENT_COVERAGE_DIR: dir, ...options.env },
  });
  if (r.status !== 0) {
    console.error(`coverage: the ${project} project failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
  console.log(`coverage: ${project} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

function readMap(file: string): CoverageMap {
  return createCoverageMap(JSON.parse(readFileSync(file, "utf8")) as CoverageMapData);
}

/** The workerd project's saved counters (one file per miniflare), merged and remapped to the TypeScript sources. */
async function workerdMap(rawDir: string): Promise<CoverageMap> {
  const raw = createCoverageMap({});
  const store = createSourceMapStore();
  for (const f of existsSync(rawDir) ? readdirSync(rawDir) : []) {
    const data = JSON.parse(readFileSync(join(rawDir, f), "utf8")) as Record<string, { inputSourceMap?: object }>;
    for (const [file, c] of Object.entries(data)) {
      if (c.inputSourceMap !== undefined) store.registerMap(file, c.inputSourceMap as never);
    }
    raw.merge(data as CoverageMapData);
  }
  return store.transformCoverage(raw);
}

/** The folder a source file is summed under: src/<dir>, adapters/<dir>, or "src (top level)". */
function folderOf(file: string): string {
  const parts = relative(ROOT, file).split(sep);
  if (parts.length === 2) return `${parts[0]} (top level)`;
  return `${parts[0]}/${parts[1]}`;
}

function figures(map: CoverageMap): Map<string, Figures> {
  const byFolder = new Map<string, Figures>();
  for (const file of map.files()) {
    const folder = folderOf(file);
    const s = map.fileCoverageFor(file).toSummary();
    const f = byFolder.get(folder) ?? (Object.fromEntries(METRICS.map((m) => [m, { covered: 0, total: 0, pct: 0 }])) as Figures);
    for (const m of METRICS) {
      f[m].covered += s[m].covered;
      f[m].total += s[m].total;
    }
    byFolder.set(folder, f);
  }
  const all = Object.fromEntries(METRICS.map((m) => [m, { covered: 0, total: 0, pct: 0 }])) as Figures;
  for (const f of byFolder.values()) {
    for (const m of METRICS) {
      all[m].covered += f[m].covered;
      all[m].total += f[m].total;
    }
  }
  byFolder.set("all", all);
  for (const f of byFolder.values()) for (const m of METRICS) f[m].pct = f[m].total === 0 ? 100 : Math.round((1000 * f[m].covered) / f[m].total) / 10;
  return new Map([...byFolder].sort(([a], [b]) => (a === "all" ? 1 : b === "all" ? -1 : a.localeCompare(b))));
}

// ---- run ------------------------------------------------------------------------------

if (!args.has("--report-only")) {
  rmSync(OUT, { recursive: true, force: true });
  vitest("node", "node", { vitestCoverage: true, flags: ["--project", "node-isolated"] });
  // Only what loads in a page: the Durable Object adapter imports cloudflare:workers.
  vitest("browser", "chromium", { vitestCoverage: true, flags: ["--coverage.include=src/**/*.ts", "--coverage.include=adapters/idb/**/*.ts"] });
  // The tests run in Node; the code under test runs in workerd, instrumented.
  vitest("workerd", "workerd", { vitestCoverage: false, env: { ISOAGENT_WORKERD_COVERAGE: join(OUT, "workerd-raw") } });
}

const runtimes: [string, CoverageMap][] = [
  ["node", readMap(join(OUT, "node/coverage-final.json"))],
  ["workerd", await workerdMap(join(OUT, "workerd-raw"))],
  ["chromium", readMap(join(OUT, "chromium/coverage-final.json"))],
];
mkdirSync(join(OUT, "workerd"), { recursive: true });
writeFileSync(join(OUT, "workerd/coverage-final.json"), JSON.stringify(runtimes[1]![1].toJSON()));

/** A deep copy: merging into a map keeps (and then changes) the file objects it was given. */
const copy = (map: CoverageMap): CoverageMapData => JSON.parse(JSON.stringify(map.toJSON())) as CoverageMapData;

const merged = createCoverageMap({});
for (const [, map] of runtimes) merged.merge(copy(map));
// Only the measured sources: a bundle also counts what it pulled in from elsewhere.
merged.filter((file) => /^(src|adapters)\//.test(relative(ROOT, file).split(sep).join("/")));

/** What one runtime covered, over every measured statement (the merged map's, counts reset). */
function share(map: CoverageMap): CoverageMap {
  const view = createCoverageMap(copy(merged));
  for (const file of view.files()) view.fileCoverageFor(file).resetHits();
  view.merge(copy(map));
  view.filter((file) => merged.files().includes(file));
  return view;
}
const context = createContext({ dir: join(OUT, "merged"), coverageMap: merged, defaultSummarizer: "nested" });
createReport("json").execute(context);
createReport("html", { skipEmpty: false }).execute(context);

const total = figures(merged);
const per = runtimes.map(([name, map]) => [name, figures(share(map))] as const);
const rows = [...total].map(([folder, f]) => {
  const runtime = (m: Metric) => per.map(([, p]) => (p.get(folder) === undefined ? "–" : `${p.get(folder)![m].pct}`));
  return `| ${folder === "all" ? "**all**" : `\`${folder}\``} | ${f.lines.pct} | ${f.branches.pct} | ${f.functions.pct} | ${f.statements.pct} | ${runtime("lines").join(" / ")} | ${runtime("branches").join(" / ")} |`;
});
const table = [
  "| folder | lines % | branches % | functions % | statements % | lines %: node / workerd / Chromium | branches %: node / workerd / Chromium |",
  "|---|---:|---:|---:|---:|---:|---:|",
  ...rows,
].join("\n");
writeFileSync(join(OUT, "summary.md"), `${table}\n`);
const summary = Object.fromEntries([...total].map(([folder, f]) => [folder, Object.fromEntries(METRICS.map((m) => [m, f[m].pct]))]));
writeFileSync(join(OUT, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\n${table}\n\ncoverage: merged report in coverage/merged/index.html (${((Date.now() - started) / 1000).toFixed(0)} s)`);

if (args.has("--write-baseline")) {
  mkdirSync(join(ROOT, "test/coverage"), { recursive: true });
  writeFileSync(BASELINE, `${JSON.stringify(summary, null, 2)}\n`);
  // docs/testing.md's table is the baseline's: rewritten with it.
  const readme = join(ROOT, "docs/testing.md");
  const text = readFileSync(readme, "utf8");
  const begin = "<!-- coverage table: written by npm run coverage -- --write-baseline -->\n";
  const end = "<!-- end of coverage table -->";
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error("coverage: docs/testing.md has no coverage table between its markers");
  writeFileSync(readme, `${text.slice(0, from + begin.length)}${table}\n${text.slice(to)}`);
  console.log(`coverage: baseline written to ${relative(ROOT, BASELINE)}, and docs/testing.md's table`);
}

if (args.has("--check")) {
  const baseline = JSON.parse(readFileSync(BASELINE, "utf8")) as Record<string, Record<Metric, number>>;
  const problems: string[] = [];
  for (const [folder, base] of Object.entries(baseline)) {
    const now = summary[folder];
    if (now === undefined) {
      problems.push(`${folder}: in the baseline, not in this run`);
      continue;
    }
    for (const m of METRICS) {
      // In a folder so small that one line or branch is worth more than the
      // tolerance (adapters/mcp-stdio has 7 branches), one item may move with
      // timing: a drop of one item is not a regression.
      const items = total.get(folder)![m].total;
      const slack = Math.max(TOLERANCE, items > 0 ? 100 / items + 0.05 : 0);
      if (now[m]! < base[m] - slack)
        problems.push(`${folder}: ${m} ${now[m]}% is more than ${slack === TOLERANCE ? TOLERANCE : `${slack.toFixed(1)} (one of its ${items})`} points below its baseline of ${base[m]}%`);
    }
  }
  if (problems.length > 0) {
    console.error(`coverage: below the baseline (${relative(ROOT, BASELINE)}):\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`coverage: no folder more than ${TOLERANCE} points below the baseline`);
}
