/**
 * `npm run conformance:json -- <test_parsing dir> [--verbose]`
 *
 * Prints, per class (y_ must accept, n_ must refuse, i_ our choice), how many
 * files were accepted and refused, and which i_ files were accepted. Exits 1
 * if a y_ file other than the two repeated-key files is refused or an n_ file
 * is accepted.
 */
import { existsSync } from "node:fs";
import { EXPECTED_Y_REFUSALS, runJsonConformance } from "./lib/json-conformance.js";

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const dir = args.find((a) => !a.startsWith("--"));
if (dir === undefined) {
  console.error("usage: npm run conformance:json -- <JSONTestSuite test_parsing dir> [--verbose]");
  process.exit(2);
}
if (!existsSync(dir)) {
  console.error(
    `no JSONTestSuite test_parsing at ${dir}: the suites are not part of isoagent; see docs/testing.md, "Conformance suites", for where they come from (CI reads them from ../shared/suites)`,
  );
  process.exit(2);
}
const report = runJsonConformance(dir);
for (const cls of ["y", "n", "i"] as const) {
  const { accepted, rejected } = report.classes[cls];
  const note = cls === "y" ? ` (${EXPECTED_Y_REFUSALS.size} repeated-key files refused by design)` : "";
  console.log(`${cls}_: ${accepted.length} accepted, ${rejected.length} rejected${note}`);
}
console.log(`i_ accepted: ${report.classes.i.accepted.map((o) => o.file).join(", ") || "none"}`);
if (verbose) {
  for (const cls of ["y", "n", "i"] as const) {
    for (const o of report.classes[cls].rejected) console.log(`  refused ${o.file}: ${o.refusal}`);
  }
}
if (report.violations.length > 0) {
  console.log(`FAIL: ${report.violations.length} violation(s)`);
  for (const v of report.violations) console.log(`  ${v}`);
  process.exit(1);
}
console.log("OK: every y_ accepted (but the repeated-key pair), every n_ refused");
