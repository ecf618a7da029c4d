/**
 * `npm run conformance:schema -- <suite dir> [--verbose]`
 *
 * For each draft folder under `<suite dir>/tests/`, prints how many required
 * tests passed, failed (compiled, then gave the wrong answer) and were refused
 * at compile time, with the refusals counted by reason. Exits 1 on any
 * failure.
 */
import { runSchemaConformance } from "./lib/schema-conformance.js";

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const dir = args.find((a) => !a.startsWith("--"));
if (dir === undefined) {
  console.error("usage: npm run conformance:schema -- <JSON-Schema-Test-Suite dir> [--verbose]");
  process.exit(2);
}
const reports = runSchemaConformance(dir);
let failures = 0;
for (const r of reports) {
  if (r.draft === undefined) {
    console.log(`${r.dir}: skipped (not a draft the compiler supports)`);
    continue;
  }
  const refused = r.refused.reduce((n, c) => n + c.tests, 0);
  const reasons = Object.entries(r.refusedByRule)
    .map(([rule, n]) => `${rule}: ${n}`)
    .join(", ");
  console.log(`${r.dir}: ${r.passed} passed, ${r.failed.length} failed, ${refused} refused${refused > 0 ? ` (${reasons})` : ""}`);
  failures += r.failed.length;
  for (const f of r.failed) console.log(`  FAIL ${f.file} | ${f.caseDescription} | ${f.testDescription} (expected ${f.expected ? "valid" : "invalid"})`);
  if (verbose) for (const c of r.refused) console.log(`  refused ${c.file} | ${c.caseDescription} (${c.tests} tests): ${c.message}`);
}
if (failures > 0) {
  console.log(`FAIL: ${failures} test(s) compiled and gave the wrong answer`);
  process.exit(1);
}
console.log("OK: every required test passed or was refused with a reason");
