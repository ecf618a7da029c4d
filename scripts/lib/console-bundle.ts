/**
 * The operator console's script, bundled from its type-checked source
 * (console/app.ts) into the module the HTTP app serves it from
 * (src/http/console-script.ts): `npm run gen:console` writes it, and
 * test/http/console-script.test.ts holds the file to what this makes.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");

/** The page's script: one ES module, its type imports erased, readable (not minified). */
export async function consoleScript(): Promise<string> {
  const out = await build({
    entryPoints: [join(ROOT, "console/app.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    charset: "utf8",
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}

/** The source of src/http/console-script.ts: its doc comment, then the script as one string. */
export async function consoleScriptSource(): Promise<string> {
  const current = readFileSync(join(ROOT, "src/http/console-script.ts"), "utf8");
  const doc = current.slice(0, current.indexOf("*/") + 3);
  return `${doc}\n// Written by npm run gen:console from console/app.ts: edit that file, not this one.\nexport const CONSOLE_JS = ${JSON.stringify(await consoleScript())};\n`;
}
