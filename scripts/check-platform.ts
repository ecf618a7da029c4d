/**
 * `npm run check:platform`: every entry must bundle for a neutral platform
 * with no Node or browser import, no adapter, and no code generation from
 * strings (lazy chunks included); and the chunks must stay apart: full
 * schema support only in a chunk loaded on demand, nothing of the HTTP app,
 * the toolkit or the testkit reachable from the createDriver entry.
 */
import { checkChunks, checkCoreNeutral, ENTRY_POINTS, NEUTRAL_OPTIONS, NODE_ONLY_ENTRY_POINTS } from "./lib/bundle.js";

let failed = false;
for (const [name, entry] of Object.entries(ENTRY_POINTS)) {
  const report = await checkCoreNeutral(entry, NEUTRAL_OPTIONS[name]);
  if (report.problems.length > 0) {
    failed = true;
    console.error(`${name} (${entry}) is not platform-neutral:`);
    for (const p of report.problems) console.error(`  ${p}`);
    continue;
  }
  console.log(`${name} is platform-neutral: ${report.inputs.length} modules bundled for a neutral platform, no platform import, no eval`);
}
for (const [name, entry] of Object.entries(NODE_ONLY_ENTRY_POINTS)) console.log(`${name} (${entry}) is Node-only: left out of the platform check by name`);
const problems = await checkChunks();
for (const p of problems) console.error(`chunks: ${p}`);
if (problems.length === 0) console.log("chunks stay apart: full schema support only on demand; the createDriver entry reaches no HTTP, toolkit or testkit module");
if (failed || problems.length > 0) process.exit(1);
