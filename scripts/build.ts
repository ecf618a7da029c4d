/**
 * `npm run build`: the package bundles for browser, Workers and Node under
 * dist/, declarations under dist/types/, then the core's size as a browser
 * app would ship it (minified and gzipped, with its dependencies).
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { buildPlatform, coreBrowserBundle } from "./lib/bundle.js";

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
