/** The crash matrix: every side-effect class crashed at every point, on a store. */
import { memoryStore, type Store } from "../../src/index.js";
import { SIDE_EFFECTS } from "../../src/tools/index.js";
import { crashTest, listScenario, type CrashResult } from "../../src/testkit/index.js";
import type { ManualClock } from "../../src/clock.js";

export async function crashMatrix(createStore: (clock: ManualClock) => Store | Promise<Store> = (clock) => memoryStore({ clock }), crashes = 1): Promise<CrashResult[]> {
  const rows: CrashResult[] = [];
  for (const sideEffect of SIDE_EFFECTS) rows.push(...(await crashTest(listScenario(sideEffect), { createStore, crashes })));
  return rows;
}

/**
 * The crash loop matrix: the same, each run crashed twice at its point (the
 * drivers' default maxInterruptions): a read is run again once by the
 * runtime, then asked about.
 */
export function crashLoopMatrix(createStore?: (clock: ManualClock) => Store | Promise<Store>): Promise<CrashResult[]> {
  return crashMatrix(createStore, 2);
}

export function formatMatrix(rows: readonly CrashResult[]): string {
  const lines = [
    "| side effect | crash point | crashed | final status | lost steps | unreconciled re-executions | chain intact | final state = uncrashed | recovered by | executions of the tool | most starts of a call | asked at the limit | starts past the bound |",
    "|---|---|---|---|---:|---:|---|---|---|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${r.point} | ${r.crashed ? "yes" : "no"} | ${r.status} | ${r.lostSteps} | ${r.unreconciledReruns} | ${r.chainIntact ? "yes" : "NO"} | ${r.finalEqual === null ? "n/a" : r.finalEqual ? "yes" : "NO"} | ${r.recovery} | ${r.executions} | ${r.maxAttempts} | ${r.limitAsks} | ${r.unboundedReruns} |`,
    );
  }
  return lines.join("\n");
}

export function matrixProblems(rows: readonly CrashResult[]): string[] {
  const problems: string[] = [];
  for (const r of rows) {
    const where = `${r.scenario} at ${r.point}`;
    if (!r.crashed) problems.push(`${where}: the crash did not happen`);
    if (r.lostSteps > 0) problems.push(`${where}: ${r.lostSteps} step(s) lost`);
    if (r.unreconciledReruns > 0) problems.push(`${where}: ${r.unreconciledReruns} unreconciled re-execution(s)`);
    if (r.unboundedReruns > 0) problems.push(`${where}: ${r.unboundedReruns} start(s) past recovery's bound`);
    if (!r.chainIntact) problems.push(`${where}: the hash chain is broken`);
    if (r.finalEqual === false) problems.push(`${where}: the final state differs from the uncrashed run's`);
  }
  return problems;
}
