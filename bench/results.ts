/**
 * The benchmarks' results: one entry per figure, with `ratio` defined so
 * that the goal reads as a bound on it. Only a full run (every benchmark,
 * not --quick) writes the committed files, bench/results/latest.json and, as
 * a table, bench/RESULTS.md; a partial or quick run writes
 * bench/results/quick.json (ignored by git) and leaves them as they are.
 * Each figure says the machine's load when its benchmark started and ended.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";

export interface Result {
  readonly id: string;
  readonly what: string;
  readonly ratio: number;
  /** "<= 0.5", ">= 5", or "informative". */
  readonly goal: string;
  readonly met: boolean;
  readonly detail: Record<string, unknown>;
  /** When this entry was measured (ISO date and time). */
  readonly measured?: string;
  /** The 1-minute load average when its benchmark started and ended. */
  readonly load?: { readonly start: number; readonly end: number };
}

/** The 1-minute load average now, to two decimals. */
export const load = (): number => Math.round(loadavg()[0]! * 100) / 100;

/** Whether a ratio meets a goal written as "<= x" or ">= x" ("informative" always does). */
export function meets(ratio: number, goal: string): boolean {
  const m = /^(<=|>=) ([\d.]+)$/.exec(goal);
  if (m === null) return true;
  return m[1] === "<=" ? ratio <= Number(m[2]) : ratio >= Number(m[2]);
}

export function result(id: string, what: string, ratio: number, goal: string, detail: Record<string, unknown>): Result {
  return { id, what, ratio: Math.round(ratio * 1000) / 1000, goal, met: meets(ratio, goal), detail };
}

export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/** Where a run's results go: the committed files for a full run, quick.json otherwise. */
export function writeResults(fresh: readonly Result[], options: { quick: boolean; full: boolean; dir?: string }): string {
  const now = new Date().toISOString();
  const dir = options.dir ?? "bench";
  const FILE = `${dir}/results/latest.json`;
  const TABLE = `${dir}/RESULTS.md`;
  mkdirSync(`${dir}/results`, { recursive: true });
  if (!options.full || options.quick) {
    const file = `${dir}/results/quick.json`;
    writeFileSync(file, `${JSON.stringify({ date: now, machine: machine(), quick: options.quick, partial: !options.full, results: fresh.map((r) => ({ ...r, measured: now })) }, null, 2)}\n`);
    return file;
  }
  const results = fresh.map((r) => ({ ...r, measured: now })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  writeFileSync(FILE, `${JSON.stringify({ date: now, machine: machine(), quick: false, results }, null, 2)}\n`);
  const shown = (r: Result): string => (r.load === undefined ? "" : `${r.load.start} → ${r.load.end}`);
  const rows = results.map((r) => `| ${r.id} | ${r.what} | ${r.ratio} | ${spread(r)} | ${r.goal} | ${r.goal === "informative" ? "—" : r.met ? "yes" : "**no**"} | ${shown(r)} |`);
  writeFileSync(
    TABLE,
    [
      "# Benchmark results",
      "",
      `Written by a full \`npm run bench\` on ${now.slice(0, 16).replace("T", " ")} UTC, on ${machine()}. Every ratio compares contenders measured in the same run, alternating round by round; \`detail\` in [results/latest.json](results/latest.json) has the medians and spreads. The spread is the ratio's range over the rounds, where the benchmark measures one per round. Load is the 1-minute load average when the figure's benchmark started and ended: machines like this one (2 cores) are shared and noisy, so compare ratios, not times. Storage modes (memory or disk) are named in each figure's description.`,
      "",
      "| id | what | ratio | spread | goal | met | load |",
      "|---|---|---:|---|---|---|---|",
      ...rows,
      "",
    ].join("\n"),
  );
  return FILE;
}

/** The exit code of a run: 1 when a goal is missed, unless the run only reports. */
export function exitCode(results: readonly Result[], options: { reportOnly: boolean }): number {
  return results.some((r) => !r.met) && !options.reportOnly ? 1 : 0;
}

/** The ratio's range over the rounds, when the benchmark recorded one (detail.spread: [min, max]). */
function spread(r: Result): string {
  const s = (r.detail as { spread?: unknown }).spread;
  return Array.isArray(s) && s.length === 2 ? `${Number(s[0]).toFixed(2)}–${Number(s[1]).toFixed(2)}` : "";
}
