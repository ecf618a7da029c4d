/**
 * `npm run conformance:schema -- <suite dir> [--formats] [--verbose]`
 *
 * For each draft folder under `<suite dir>/tests/`, prints how many required
 * tests passed, failed (compiled, then gave the wrong answer) and were refused
 * at compile time, with the refusals counted by reason. With `--formats`, it
 * runs the `optional/format/` tests instead, with formats asserted as tool
 * schemas assert them, and prints each format's figures. Exits 1 on any
 * wrong answer.
 */
import { existsSync } from "node:fs";
import { loadFullSchemaSupport } from "../src/index.js";
import { runFormatConformance, runSchemaConformance } from "./lib/schema-conformance.js";

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const formats = args.includes("--formats");
const dir = args.find((a) => !a.startsWith("--"));
if (dir === undefined) {
  console.error("usage: npm run conformance:schema -- <JSON-Schema-Test-Suite dir> [--formats] [--verbose]");
  process.exit(2);
}
if (!existsSync(dir)) {
  console.error(`no JSON Schema Test Suite at ${dir}: the suites are not part of isoagent; see docs/testing.md, "Conformance suites", for where they come from (CI reads them from ../shared/suites)`);
  process.exit(2);
}
// The suite reaches every part of the compiler: full schema support too.
await loadFullSchemaSupport();
let failures = 0;
if (formats) {
  for (const r of runFormatConformance(dir)) {
    console.log(`${r.dir} optional/format (formats asserted):`);
    for (const f of r.files) {
      const refused = f.refused.reduce((n, c) => n + c.tests, 0);
      const why = f.refused.length > 0 ? ` (${f.refused[0]!.rule}: ${f.refused[0]!.message})` : "";
      console.log(`  ${f.file.replace(/\.json$/, "").padEnd(22)} ${String(f.passed).padStart(3)} passed, ${f.failed.length} wrong, ${refused} refused${why}`);
      failures += f.failed.length;
      for (const x of f.failed) console.log(`    WRONG ${x.caseDescription} | ${x.testDescription} (expected ${x.expected ? "valid" : "invalid"})`);
    }
  }
} else {
  for (const r of runSchemaConformance(dir)) {
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
}
if (failures > 0) {
  console.log(`FAIL: ${failures} test(s) compiled and gave the wrong answer`);
  process.exit(1);
}
console.log(formats ? "OK: no wrong answer; every format is checked exactly or refused" : "OK: every required test passed or was refused with a reason");
