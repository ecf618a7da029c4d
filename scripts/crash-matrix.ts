/**
 * `npm run crash-matrix`: the 4 side-effect classes, and bash (a
 * local_mutation with receipts), crashed at every point around a tool's
 * effect, on the memory store, each resumed by a new driver; then the 4
 * classes crashed twice at each point (a crash loop, to recovery's bound).
 * Exits 1 on any lost step, unreconciled re-execution, broken chain, or
 * final state that differs from the uncrashed run's.
 */
import { bashCrashMatrix } from "./lib/bash-crash.js";
import { crashLoopMatrix, crashMatrix, formatMatrix, matrixProblems } from "./lib/crash-matrix.js";

const loops = await crashLoopMatrix();
const rows = [...(await crashMatrix()), ...(await bashCrashMatrix()), ...loops];
console.log(formatMatrix(rows.slice(0, rows.length - loops.length)));
console.log("\nCrash loops: each run crashed twice at its point (recovery.maxInterruptions, 2)\n");
console.log(formatMatrix(loops));
const problems = matrixProblems(rows);
const lost = rows.reduce((n, r) => n + r.lostSteps, 0);
const reruns = rows.reduce((n, r) => n + r.unreconciledReruns, 0);
console.log(`\n${rows.length} crashes: ${lost} lost steps, ${reruns} unreconciled re-executions, ${rows.filter((r) => !r.chainIntact).length} broken chains`);
if (problems.length > 0) {
  for (const p of problems) console.log(`FAIL ${p}`);
  process.exit(1);
}
console.log("OK");
