/** Builds the browser example into a folder (its bundles beside its static files). */
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export async function buildBrowserExample(out: string): Promise<string> {
  mkdirSync(out, { recursive: true });
  for (const f of ["index.html", "app.css", "app.webmanifest"]) copyFileSync(join("examples/browser", f), join(out, f));
  const common = { bundle: true, format: "esm" as const, platform: "browser" as const, target: "es2022", logLevel: "warning" as const, sourcemap: true };
  await build({ ...common, entryPoints: ["examples/browser/src/app.ts"], outfile: join(out, "app.js") });
  await build({ ...common, entryPoints: ["examples/browser/sw.ts"], outfile: join(out, "sw.js"), format: "iife" });
  return out;
}
