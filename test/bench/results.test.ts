/**
 * The benchmarks' results stay honest (issue 15, finding 9): a partial or
 * quick run never rewrites the committed files, and a missed goal fails the
 * run unless it only reports.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitCode, result, writeResults } from "../../bench/results.js";

const figures = [result("a.ok", "a ratio", 0.4, "<= 0.5", { spread: [0.38, 0.45] }), result("b.missed", "b ratio", 2, ">= 5", {})];

describe("bench results", () => {
  it("a partial or quick run writes quick.json and leaves latest.json and RESULTS.md alone", () => {
    for (const options of [
      { quick: true, full: true },
      { quick: false, full: false },
      { quick: true, full: false },
    ]) {
      const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-"));
      expect(writeResults(figures, { ...options, dir })).toBe(`${dir}/results/quick.json`);
      expect(existsSync(`${dir}/results/latest.json`)).toBe(false);
      expect(existsSync(`${dir}/RESULTS.md`)).toBe(false);
      expect(JSON.parse(readFileSync(`${dir}/results/quick.json`, "utf8")).results).toHaveLength(2);
    }
  });

  it("a full run writes the committed files, with each figure's spread and the load", () => {
    const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-"));
    expect(
      writeResults(
        figures.map((r) => ({ ...r, load: { start: 0.5, end: 1.25 } })),
        { quick: false, full: true, dir },
      ),
    ).toBe(`${dir}/results/latest.json`);
    const table = readFileSync(`${dir}/RESULTS.md`, "utf8");
    expect(table).toContain("| a.ok | a ratio | 0.4 | 0.38–0.45 | <= 0.5 | yes | 0.5 → 1.25 |");
    expect(table).toContain("| b.missed | b ratio | 2 |  | >= 5 | **no** | 0.5 → 1.25 |");
  });

  it("a missed goal fails the run unless --report-only", () => {
    expect(exitCode(figures, { reportOnly: false })).toBe(1);
    expect(exitCode(figures, { reportOnly: true })).toBe(0);
    expect(exitCode([figures[0]!], { reportOnly: false })).toBe(0);
  });
});
