// @ts-check
/**
 * StrykerJS for `npm run mutate` (scripts/mutate.ts), one area of the core
 * at a time: ISOAGENT_MUTATION_AREA names it (test/mutation/areas.mjs holds
 * each area's files to mutate and the tests that run against them).
 *
 * Incremental: each area's results are kept in
 * reports/mutation/<area>.incremental.json, so a rerun tests only the mutants
 * of changed code and those that changed tests cover. The summary
 * (test/mutation/summary.md) is committed; the reports are not.
 */
import { AREAS } from "./test/mutation/areas.mjs";

const name = process.env["ISOAGENT_MUTATION_AREA"] ?? "";
const area = AREAS[/** @type {keyof typeof AREAS} */ (name)];
if (area === undefined) throw new Error(`ISOAGENT_MUTATION_AREA must be one of ${Object.keys(AREAS).join(", ")} (npm run mutate sets it)`);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "test/mutation/vitest.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  coverageAnalysis: "perTest",
  mutate: area.mutate,
  testFiles: area.tests,
  ignorePatterns: ["dist", "coverage", "reports", "bench", "test-results", ".data", "docs", "*.log"],
  // A mutant reached only while a module loads (a module-level constant)
  // would need a fresh environment and every test; it is reported as
  // Ignored, and the summary lists them. A mutant also reached inside tests
  // is run against those tests.
  ignoreStatic: true,
  // Vitest strips types without checking them, so the sandbox's sources need
  // no "// @ts-nocheck" header; left on, it would change the generated
  // sources a test compares with their generator (src/schema/structural-data.ts).
  disableTypeChecks: false,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  // Two shared cores: one or two test runners, never more.
  concurrency: Number(process.env["ISOAGENT_MUTATION_CONCURRENCY"] ?? 2),
  // A busy machine: a slow run is not an infinite loop.
  timeoutMS: 10_000,
  reporters: ["progress-append-only", "json", "html"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
