/**
 * The benchmarks' results: one entry per figure, with `ratio` defined so
 * that the goal reads as a bound on it, written to bench/results/latest.json
 * and, as a table, to bench/RESULTS.md. A run of a subset replaces its own
 * entries and keeps the others (each entry says when it was measured).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

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
}

/** Whether a ratio meets a goal written as "<= x" or ">= x" ("informative" always does). */
export function meets(ratio: number, goal: string): boolean {
  const m = /^(<=|>=) ([\d.]+)$/.exec(goal);
  if (m === null) return true;
  return m[1] === "<=" ? ratio <= Number(m[2]) : ratio >= Number(m[2]);
}

export function result(id: string, what: string, ratio: number, goal: string, detail: Record<string, unknown>): Result {
  return { id, what, ratio: Math.round(ratio * 1000) / 1000, goal, met: meets(ratio, goal), detail };
}

const FILE = "bench/results/latest.json";
const TABLE = "bench/RESULTS.md";

export function machine(): string {
  const c = cpus();
  return `${c.length} × ${c[0]?.model.trim() ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/** Merges this run's results into latest.json (by id) and rewrites RESULTS.md. */
export function writeResults(fresh: readonly Result[], options: { quick: boolean }): void {
  const now = new Date().toISOString();
  const old: { results?: Result[] } = existsSync(FILE) ? (JSON.parse(readFileSync(FILE, "utf8")) as { results?: Result[] }) : {};
  const byId = new Map((old.results ?? []).map((r) => [r.id, r]));
  for (const r of fresh) byId.set(r.id, { ...r, measured: now });
  const results = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(FILE, `${JSON.stringify({ date: now, machine: machine(), quick: options.quick, results }, null, 2)}\n`);
  const rows = results.map((r) => `| ${r.id} | ${r.what} | ${r.ratio} | ${r.goal} | ${r.goal === "informative" ? "—" : r.met ? "yes" : "**no**"} | ${r.measured?.slice(0, 16).replace("T", " ") ?? ""} |`);
  writeFileSync(
    TABLE,
    [
      "# Benchmark results",
      "",
      `Written by \`npm run bench\` (${options.quick ? "quick" : "full"} run of ${now.slice(0, 10)}) on ${machine()}. Every ratio compares contenders measured in the same run, alternating round by round; \`detail\` in [results/latest.json](results/latest.json) has the medians and spreads. Machines like this one are shared and noisy: compare ratios, not times.`,
      "",
      "| id | what | ratio | goal | met | measured |",
      "|---|---|---:|---|---|---|",
      ...rows,
      "",
    ].join("\n"),
  );
}
