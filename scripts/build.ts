/**
 * `npm run build`: the package bundles for browser, Workers and Node under
 * dist/, declarations under dist/types/, then the size of the core as a
 * browser app would ship it (minified and gzipped, with its dependencies,
 * split where the code loads something on demand) against its budget
 * (scripts/lib/size-budget.ts): over budget, the build fails.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { buildPlatform, checkChunks } from "./lib/bundle.js";
import { checkBudget, describeBudget } from "./lib/size-budget.js";

rmSync("dist", { recursive: true, force: true });
for (const platform of ["browser", "workers", "node"] as const) await buildPlatform(platform);
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
// isoagent/durable-object's declarations see Workers types, which the core's must not.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/durable-object/tsconfig.build.json"], { stdio: "inherit" });
console.log(`built dist/browser, dist/workers, dist/node, dist/types and dist/types-do`);
const problems = await checkChunks();
for (const p of problems) console.error(`chunks: ${p}`);
const lines = await checkBudget();
console.log("the core as a browser app ships it (esbuild, minified, split at dynamic imports, each chunk gzipped):");
for (const line of lines) {
  console.log(`  ${describeBudget(line)}`);
  if (line.problem !== undefined) console.error(`  size budget: ${line.problem}`);
}
if (problems.length > 0 || lines.some((l) => l.problem !== undefined)) process.exit(1);
