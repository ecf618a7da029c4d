/**
 * Every import of the project's own files, read with TypeScript's
 * pre-processor (static imports, `export ... from`, `import type`, dynamic
 * `import()`), resolved to files: what test/arrows.test.ts holds to
 * scripts/lib/layers.ts.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { filesUnder, isSource } from "./files.js";

export const ROOT = resolve(import.meta.dirname, "../..");

/** One import: from a file to a file, both relative to the repository. */
export interface Import {
  readonly from: string;
  readonly to: string;
}

/** `./x.js` as written, to the `.ts` file it names (or `x/index.ts`). */
function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts"), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every relative import in the given folders' TypeScript files; a specifier that names no file is an error. */
export function projectImports(folders: readonly string[]): Import[] {
  const out: Import[] = [];
  for (const folder of folders) {
    for (const file of filesUnder(join(ROOT, folder), isSource)) {
      const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      for (const { fileName } of info.importedFiles) {
        if (!fileName.startsWith(".")) continue;
        const target = resolveSpecifier(file, fileName);
        if (target === undefined) throw new Error(`${relative(ROOT, file)} imports ${fileName}, which names no file`);
        out.push({ from: relative(ROOT, file), to: relative(ROOT, target) });
      }
    }
  }
  return out;
}

/** The import cycles between files, each as the files around it (first file repeated at the end); none when the graph is acyclic. */
export function importCycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      const s = state.get(to);
      if (s === "open") cycles.push([...stack.slice(stack.indexOf(to)), to]);
      else if (s === undefined) visit(to);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...next.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}
