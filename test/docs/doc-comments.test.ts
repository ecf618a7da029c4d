/**
 * Every exported symbol of every public entry has a doc comment (issue 27,
 * finding 7): what an editor shows on hover, and what a reader of the
 * declarations meets, is a sentence on what the thing is for. An entry is
 * a subpath of package.json's `exports` with `types`; its source is compiled
 * under the tsconfig its declarations are built with (scripts/build.ts:
 * tsconfig.build.json for dist/types, each adapter's own for dist/types-do
 * and dist/types-node), so an adapter's Workers or Node types resolve.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** A public entry: its import name (isoagent/store), its source file, and the folder of its built declarations. */
interface Entry {
  readonly name: string;
  readonly file: string;
  readonly typesDir: string;
}

function packageEntries(): Entry[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; exports: Record<string, string | { types?: string }> };
  const out: Entry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== "object" || target.types === undefined) continue;
    // ./dist/types/src/index.d.ts, ./dist/types-do/adapters/durable-object/index.d.ts, ...
    const m = /^\.\/(dist\/types(?:-[a-z]+)?)\/(.*)\.d\.ts$/.exec(target.types);
    if (m === null) throw new Error(`${subpath}: types ${target.types} is not under dist/types*/`);
    out.push({ name: subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, file: `${m[2]!}.ts`, typesDir: m[1]! });
  }
  return out;
}

/** The build configs of scripts/build.ts: the root's and each adapter's. */
function buildConfigs(): ts.ParsedCommandLine[] {
  const paths = [join(root, "tsconfig.build.json")];
  for (const dir of readdirSync(join(root, "adapters"), { withFileTypes: true })) {
    if (dir.isDirectory() && readdirSync(join(root, "adapters", dir.name)).includes("tsconfig.build.json")) paths.push(join(root, "adapters", dir.name, "tsconfig.build.json"));
  }
  return paths.map((path) => {
    const host: ts.ParseConfigFileHost = {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
      },
    };
    const parsed = ts.getParsedCommandLineOfConfigFile(path, { noEmit: true }, host);
    if (parsed === undefined) throw new Error(`${path}: not parsed`);
    return parsed;
  });
}

/** The build config an entry's declarations come from: its outDir is the entry's types folder, and it compiles the entry's source. */
function configOf(entry: Entry, configs: readonly ts.ParsedCommandLine[]): ts.ParsedCommandLine {
  const file = join(root, entry.file);
  const found = configs.filter((c) => c.options.outDir === join(root, entry.typesDir) && c.fileNames.includes(file));
  if (found.length !== 1) throw new Error(`${entry.name}: ${found.length} build configs emit ${entry.typesDir} from ${entry.file}`);
  return found[0]!;
}

/** A doc comment: a JSDoc block with text, or with at least one tag. An empty `/** *\/` or a line comment is not one. */
function documented(node: ts.Node): boolean {
  return ts.getJSDocCommentsAndTags(node).some((d) => (ts.isJSDoc(d) ? (d.comment !== undefined && ts.getTextOfJSDocComment(d.comment)?.trim() !== "") || (d.tags?.length ?? 0) > 0 : true));
}

/** What the check found: the exports it looked at, and `entry: name (file)` for each one without a doc comment. */
interface Report {
  readonly checked: number;
  readonly missing: string[];
}

/**
 * The exports of `entries` (files of `program`) without a doc comment. An
 * export is followed through its aliases (`export { x } from`, `export *`)
 * to what it names; any declaration of that with a doc comment is enough
 * (an interface merged with a const, overloads). A type or value of a
 * dependency, re-exported, is documented at the re-export instead: the
 * specifier or the `export` statement that names it.
 */
function undocumented(program: ts.Program, entries: readonly { name: string; file: string }[], base: string): Report {
  const checker = program.getTypeChecker();
  const ours = (d: ts.Declaration): boolean => !d.getSourceFile().fileName.includes("/node_modules/") && !program.isSourceFileDefaultLibrary(d.getSourceFile());
  const missing: string[] = [];
  let checked = 0;
  for (const entry of entries) {
    const source = program.getSourceFile(resolve(base, entry.file));
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${entry.file}: not a module of the program`);
    for (const symbol of checker.getExportsOfModule(module)) {
      checked++;
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const decls = target.declarations ?? [];
      const own = decls.filter(ours);
      // A dependency's: the re-export (export specifier, or its statement) carries the doc.
      const sites = own.length > 0 ? own : (symbol.declarations ?? []).flatMap((d) => (ts.isExportSpecifier(d) ? [d, d.parent.parent] : [d]));
      if (sites.some(documented)) continue;
      const where = own[0] ?? decls[0];
      missing.push(`${entry.name}: ${symbol.name} (${where === undefined ? "?" : relative(base, where.getSourceFile().fileName)})`);
    }
  }
  return { checked, missing };
}

describe("doc comments on the public API (issue 27 finding 7)", () => {
  let report: Report;
  const entries = packageEntries();

  beforeAll(() => {
    const configs = buildConfigs();
    const groups = new Map<ts.ParsedCommandLine, Entry[]>();
    for (const e of entries) {
      const c = configOf(e, configs);
      groups.set(c, [...(groups.get(c) ?? []), e]);
    }
    const reports = [...groups].map(([config, group]) => undocumented(ts.createProgram({ rootNames: group.map((e) => join(root, e.file)), options: config.options }), group, root));
    report = { checked: reports.reduce((n, r) => n + r.checked, 0), missing: reports.flatMap((r) => r.missing) };
  }, 180_000);

  it("every entry of package.json with types is checked, the adapters' under their own build config", () => {
    const names = entries.map((e) => e.name);
    for (const n of ["isoagent", "isoagent/store", "isoagent/durable-object", "isoagent/mcp/stdio", "isoagent/toolkit/bash/node", "isoagent/toolkit/bash/web", "isoagent/idb"])
      expect(names).toContain(n);
    const configs = buildConfigs();
    const configFile = (name: string): string =>
      relative(
        root,
        configOf(
          entries.find((e) => e.name === name)!,
          configs,
        ).options.configFilePath as string,
      );
    expect(configFile("isoagent/durable-object")).toBe("adapters/durable-object/tsconfig.build.json");
    expect(configFile("isoagent/mcp/stdio")).toBe("adapters/mcp-stdio/tsconfig.build.json");
    expect(configFile("isoagent/toolkit/bash/node")).toBe("adapters/bash-node/tsconfig.build.json");
    expect(configFile("isoagent/idb")).toBe("tsconfig.build.json");
  });

  it("every exported symbol of every entry has a doc comment", () => {
    console.log(`doc comments: ${report.checked} exports checked in ${entries.length} entries, ${report.missing.length} without one`);
    expect(report.checked).toBeGreaterThan(500);
    expect(report.missing).toEqual([]);
  });

  it("the check itself reports an undocumented export, through a re-export, and takes a tag alone as a doc comment", () => {
    const files: Record<string, string> = {
      "/virtual/index.ts": [
        `/** Documented. */ export const a = 1;`,
        `export const b = 2;`,
        `/** */ export function c(): void {}`,
        `// A line comment is not a doc comment.`,
        `export interface D {}`,
        `/** @internal */ export type E = string;`,
        `export { f as g, h } from "./other.js";`,
        `export * from "./star.js";`,
      ].join("\n"),
      "/virtual/other.ts": `export class f {}\n/** Documented where it is declared. */ export const h = 3;\n`,
      "/virtual/star.ts": `export enum K { A }\n`,
    };
    const options: ts.CompilerOptions = { noLib: true, types: [], module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, noEmit: true };
    const host = ts.createCompilerHost(options);
    host.fileExists = (f) => f in files;
    host.readFile = (f) => files[f];
    host.directoryExists = (d) => d === "/" || d === "/virtual";
    host.realpath = (f) => f;
    host.getSourceFile = (f, language) => (f in files ? ts.createSourceFile(f, files[f]!, language) : undefined);
    const program = ts.createProgram({ rootNames: ["/virtual/index.ts"], options, host });
    const r = undocumented(program, [{ name: "virtual", file: "index.ts" }], "/virtual");
    expect(r.checked).toBe(8);
    expect(r.missing.sort()).toEqual(["virtual: D (index.ts)", "virtual: K (star.ts)", "virtual: b (index.ts)", "virtual: c (index.ts)", "virtual: g (other.ts)"]);
  });
});
