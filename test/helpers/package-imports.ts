/**
 * A tested program's imports as a reader of the docs writes them: each
 * `../../src/<entry>/index.js` (a file two folders down, as test/readme/
 * and test/docs/ are) becomes the package's subpath built from it
 * (`isoagent`, `isoagent/journal`, ...), by package.json's exports.
 */
import { readFileSync } from "node:fs";
import { packageEntries } from "../../scripts/lib/exports.js";

const subpaths = new Map(Object.entries(packageEntries()).map(([subpath, file]) => [`../../${file.replace(/\.ts$/, ".js")}`, subpath === "." ? "isoagent" : `isoagent/${subpath.slice(2)}`]));

export function packageImports(code: string): string {
  return code.replace(/from "(\.\.\/\.\.\/[^"]+)"/g, (whole, path: string) => {
    const subpath = subpaths.get(path);
    return subpath === undefined ? whole : `from "${subpath}"`;
  });
}

/** Every region a program marks, with the package's import paths. */
export function regions(program: string): string[] {
  const out: string[] = [];
  const re = /^[ \t]*\/\/ (?:DOCS|README): begin\n([^]*?)^[ \t]*\/\/ (?:DOCS|README): end$/gm;
  for (const m of program.matchAll(re)) out.push(packageImports(m[1]!));
  return out;
}

/** The one region a program marks (the first), read from its file. */
export function regionOf(file: URL): string {
  const [first] = regions(readFileSync(file, "utf8"));
  if (first === undefined) throw new Error(`${file.pathname} marks no region (// DOCS: begin ... // DOCS: end)`);
  return first;
}
