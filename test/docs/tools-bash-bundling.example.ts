// docs/tools/bash.md's bundling examples, run through esbuild's build API: an app that
// imports bash, and bash's Web Worker module, each for the browser, with node:zlib aliased.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as esbuild from "esbuild";
import { packageEntries } from "../../scripts/lib/exports.js";

// A reader's project: an app that imports bash, and isoagent under node_modules. Its entries
// are the sources here (the tests run without dist/), as package.json's exports map them.
const root = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "isoagent-docs-bash-"));
mkdirSync(join(dir, "src"));
writeFileSync(
  join(dir, "src/app.ts"),
  'import { bashTool } from "isoagent/toolkit/bash";\nimport { memoryWorkspace } from "isoagent/toolkit";\nexport const bash = bashTool({ workspace: memoryWorkspace() });\n',
);
const pkg = join(dir, "node_modules/isoagent");
mkdirSync(pkg, { recursive: true });
for (const folder of ["src", "adapters"]) symlinkSync(join(root, folder), join(pkg, folder));
const entries = { ...packageEntries(join(root, "package.json")), "./toolkit/bash/worker": "adapters/bash-web/thread.ts" };
writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "isoagent", type: "module", exports: Object.fromEntries(Object.entries(entries).map(([k, f]) => [k, `./${f}`])) }));
const build = (options: esbuild.BuildOptions) => esbuild.build({ ...options, absWorkingDir: dir, logLevel: "silent" });

// DOCS: begin
// esbuild: an app for a browser or a Worker
await build({ entryPoints: ["src/app.ts"], bundle: true, format: "esm", platform: "browser", outdir: "dist", alias: { "node:zlib": "isoagent/toolkit/bash/zlib-stub" } });
// DOCS: end
// DOCS: begin
// esbuild: the worker beside the page's chunks, where the browser build looks for it
await build({
  entryPoints: { "bash-worker": "isoagent/toolkit/bash/worker" },
  bundle: true,
  format: "esm",
  platform: "browser",
  outdir: "dist/assets",
  alias: { "node:zlib": "isoagent/toolkit/bash/zlib-stub" },
});
// DOCS: end

// Both built, with just-bash's browser build in them and no node:zlib left to import.
const app = readFileSync(join(dir, "dist/app.js"), "utf8");
const worker = readFileSync(join(dir, "dist/assets/bash-worker.js"), "utf8");
for (const out of [app, worker]) assert.doesNotMatch(out, /["']node:zlib["']/);
assert.match(app, /just-bash/);
assert.match(worker, /just-bash/);
// Without the alias, the browser build's node:zlib does not resolve.
await assert.rejects(build({ entryPoints: ["src/app.ts"], bundle: true, format: "esm", platform: "browser", outdir: "dist-no-alias" }), /node:zlib/);
assert.deepEqual(readdirSync(join(dir, "dist/assets")), ["bash-worker.js"]);
rmSync(dir, { recursive: true, force: true });
