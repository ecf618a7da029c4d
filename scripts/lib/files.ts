/**
 * Every file under a folder whose name a test keeps, as absolute paths,
 * depth first; node_modules is never entered. The one walker the scripts
 * and the tests that read the tree share.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules") out.push(...filesUnder(path, keep));
    } else if (keep(name)) out.push(path);
  }
  return out;
}

/** A TypeScript source (not a declaration file). */
export const isSource = (name: string): boolean => name.endsWith(".ts") && !name.endsWith(".d.ts");
/** A Markdown page. */
export const isMarkdown = (name: string): boolean => name.endsWith(".md");
