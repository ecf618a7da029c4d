/**
 * `npm run build`: the package bundles for browser, Workers and Node under
 * dist/, declarations under dist/types/, then the size of the core as a
 * browser app would ship it (minified and gzipped, with its dependencies,
 * split where the code loads something on demand) against its budget
 * (scripts/lib/size-budget.ts): over budget, the build fails.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { browserBundle, buildPlatform, checkChunks, splitBrowserBundle } from "./lib/bundle.js";
import { checkBudget, describeBudget } from "./lib/size-budget.js";

rmSync("dist", { recursive: true, force: true });
for (const platform of ["browser", "workers", "node"] as const) await buildPlatform(platform);
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
// isoagent/durable-object's declarations see Workers types, which the core's must not.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/durable-object/tsconfig.build.json"], { stdio: "inherit" });
// isoagent/mcp/stdio's see Node's types.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/mcp-stdio/tsconfig.build.json"], { stdio: "inherit" });
// isoagent/toolkit/bash/node's too.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/bash-node/tsconfig.build.json"], { stdio: "inherit" });
console.log(`built dist/browser, dist/workers, dist/node, dist/types, dist/types-do and dist/types-node`);
const problems = await checkChunks();
for (const p of problems) console.error(`chunks: ${p}`);
const lines = await checkBudget();
console.log("the core as a browser app ships it (esbuild, minified, split at dynamic imports, each chunk gzipped):");
for (const line of lines) {
  console.log(`  ${describeBudget(line)}`);
  if (line.problem !== undefined) console.error(`  size budget: ${line.problem}`);
}
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
const toolkit = await browserBundle({ entryPoints: ["src/toolkit/index.ts"] });
console.log(`toolkit (browser, minified + gzipped): ${kb(toolkit.gzipBytes)} (${kb(toolkit.minBytes)} minified)`);
const bash = await splitBrowserBundle("src/toolkit/bash/index.ts");
console.log(
  `toolkit/bash (browser, split): ${kb(bash.entry.gzipBytes)} up front (${kb(bash.entry.minBytes)} minified), ${kb(bash.lazy.gzipBytes)} loaded on the first command (${kb(bash.lazy.minBytes)} minified, just-bash included)`,
);
const search = await browserBundle({ entryPoints: ["src/toolkit/search/index.ts"] });
console.log(`toolkit/web-search (browser, minified + gzipped): ${kb(search.gzipBytes)} (${kb(search.minBytes)} minified)`);
if (problems.length > 0 || lines.some((l) => l.problem !== undefined)) process.exit(1);
