/**
 * `npm run build`: the package bundles for browser, Workers and Node under
 * dist/, declarations under dist/types/, then the core's size as a browser
 * app would ship it (minified and gzipped, with its dependencies).
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { buildPlatform, coreBrowserBundle, splitBrowserBundle } from "./lib/bundle.js";

rmSync("dist", { recursive: true, force: true });
for (const platform of ["browser", "workers", "node"] as const) await buildPlatform(platform);
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
// isoagent/durable-object's declarations see Workers types, which the core's must not.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/durable-object/tsconfig.build.json"], { stdio: "inherit" });
// isoagent/mcp/stdio's see Node's types.
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "adapters/mcp-stdio/tsconfig.build.json"], { stdio: "inherit" });
const size = await coreBrowserBundle();
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
console.log(`built dist/browser, dist/workers, dist/node, dist/types, dist/types-do and dist/types-node`);
console.log(`core (browser, minified + gzipped, with @cfworker/json-schema): ${kb(size.gzipBytes)} (${kb(size.minBytes)} minified)`);
const toolkit = await coreBrowserBundle("src/toolkit/index.ts");
console.log(`toolkit (browser, minified + gzipped): ${kb(toolkit.gzipBytes)} (${kb(toolkit.minBytes)} minified)`);
const bash = await splitBrowserBundle("src/toolkit/bash/index.ts");
console.log(`toolkit/bash (browser, split): ${kb(bash.entry.gzipBytes)} up front (${kb(bash.entry.minBytes)} minified), ${kb(bash.lazy.gzipBytes)} loaded on the first command (${kb(bash.lazy.minBytes)} minified, just-bash included)`);
const search = await coreBrowserBundle("src/toolkit/search/index.ts");
console.log(`toolkit/web-search (browser, minified + gzipped): ${kb(search.gzipBytes)} (${kb(search.minBytes)} minified)`);
