/**
 * `npm run check:platform`: the core must bundle for a neutral platform with
 * no Node or browser import, no adapter, and no code generation from strings.
 */
import { checkCoreNeutral } from "./lib/bundle.js";

const report = await checkCoreNeutral();
if (report.problems.length > 0) {
  console.error("The core is not platform-neutral:");
  for (const p of report.problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`core is platform-neutral: ${report.inputs.length} modules bundled for a neutral platform, no platform import, no eval`);
