/**
 * The public surface of the package's entries, as the TypeScript checker
 * sees it (`checker.getExportsOfModule`): every name an importer can write,
 * types and values alike. test/exports.test.ts holds the root to its limit,
 * every entry to a committed snapshot and every type a root export's
 * signature uses to an entry that exports it; `tsx scripts/lib/exports.ts
 * [file...]` prints the counts (default: every entry of package.json).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

/** One exported name: a value (something at run time, possibly also a type) or a type only. */
export interface ExportedName {
  readonly name: string;
  readonly kind: "value" | "type";
}

/** A type a signature uses that no entry exports. */
export interface Unnamed {
  /** The type's name, and the file it is declared in (from the repository root). */
  readonly name: string;
  readonly file: string;
  /** The declaration whose signature uses it. */
  readonly usedBy: string;
}

/** The package's entries: subpath (".", "./store", ...) to the source file its declarations are built from. */
export function packageEntries(pkgPath = "package.json"): Record<string, string> {
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { exports: Record<string, string | { types?: string }> };
  const out: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== "object" || target.types === undefined) continue;
    // ./dist/types/src/index.d.ts, ./dist/types-do/adapters/durable-object/index.d.ts, ...
    out[subpath] = target.types.replace(/^\.\/dist\/types(-[a-z]+)?\//, "").replace(/\.d\.ts$/, ".ts");
  }
  return out;
}

/** The exports of source files, from one program over them all. */
export interface Surface {
  /** `file`'s exports, sorted by name. */
  exportsOf(file: string): ExportedName[];
  /**
   * The types a user meets in the signatures of `roots`' exports (and, in
   * turn, of the types those use) that no file of `entries` exports: a type
   * one cannot name cannot be written down. Followed: type references,
   * `extends`/`implements`, parameters, written or inferred return types,
   * and public members of classes; never bodies, initializers, private
   * members or `typeof` queries. Only types declared in the repository are
   * followed; `skip` leaves some out (and does not follow them).
   */
  unnamed(roots: readonly string[], entries: readonly string[], skip?: (u: Omit<Unnamed, "usedBy">) => boolean): Unnamed[];
}

/** One program over `files` (paths from the repository root), under the core's strictness, with the libraries the adapters' types resolve against. */
export function surface(files: readonly string[]): Surface {
  const program = ts.createProgram({
    rootNames: [...files],
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: [],
    },
  });
  const checker = program.getTypeChecker();
  const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const symbols = (file: string): ts.Symbol[] => {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file}: not a module of the program`);
    return checker.getExportsOfModule(module);
  };
  const cwd = `${process.cwd()}/`;
  const rel = (f: string): string => (f.startsWith(cwd) ? f.slice(cwd.length) : f);
  const ours = (d: ts.Declaration): boolean => !d.getSourceFile().fileName.includes("/node_modules/") && !program.isSourceFileDefaultLibrary(d.getSourceFile());

  return {
    exportsOf(file) {
      return symbols(file)
        .map((s): ExportedName => ({ name: s.name, kind: resolve(s).flags & ts.SymbolFlags.Value ? "value" : "type" }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },

    unnamed(roots, entries, skip = () => false) {
      const named = new Set(entries.flatMap((f) => symbols(f).map(resolve)));
      const out: Unnamed[] = [];
      const seen = new Set<ts.Symbol>();
      const queue: { symbol: ts.Symbol; from: string }[] = roots.flatMap((f) => symbols(f).map((s) => ({ symbol: resolve(s), from: s.name })));
      const enqueue = (s: ts.Symbol | undefined, from: string): void => {
        if (s === undefined) return;
        const target = resolve(s);
        // Anonymous types (`__type`, `__function`, `__object`) and type parameters have no name to export.
        if (target.flags & ts.SymbolFlags.TypeParameter || target.name.startsWith("__")) return;
        if ((target.declarations ?? []).some(ours)) queue.push({ symbol: target, from });
      };
      const inferred = (type: ts.Type, from: string): void => enqueue(type.aliasSymbol ?? type.getSymbol(), from);
      const walk = (node: ts.Node, from: string): void => ts.forEachChild(node, (child) => reach(child, from));
      const reach = (node: ts.Node, from: string): void => {
        if (ts.isTypeReferenceNode(node)) enqueue(checker.getSymbolAtLocation(node.typeName), from);
        if (ts.isExpressionWithTypeArguments(node)) enqueue(checker.getSymbolAtLocation(node.expression), from);
        if (ts.isTypeQueryNode(node) || ts.isComputedPropertyName(node)) return;
        if (ts.isFunctionLike(node) || ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) {
          const modifiers = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : [];
          if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)) return;
          const name = (node as { name?: ts.Node }).name;
          if (name !== undefined && ts.isPrivateIdentifier(name)) return;
          // The signature only: type parameters, parameters, the written type (or the inferred one).
          const parts = node as { typeParameters?: ts.NodeArray<ts.Node>; parameters?: ts.NodeArray<ts.Node>; type?: ts.TypeNode; initializer?: ts.Expression };
          for (const child of [...(parts.typeParameters ?? []), ...(parts.parameters ?? [])]) reach(child, from);
          if (parts.type !== undefined) reach(parts.type, from);
          else if (ts.isFunctionLike(node) && !ts.isConstructorDeclaration(node)) {
            const signature = checker.getSignatureFromDeclaration(node);
            if (signature !== undefined) inferred(checker.getReturnTypeOfSignature(signature), from);
          } else if (parts.initializer !== undefined && (ts.isArrowFunction(parts.initializer) || ts.isFunctionExpression(parts.initializer))) reach(parts.initializer, from);
          else inferred(checker.getTypeAtLocation(node), from);
          return;
        }
        walk(node, from);
      };
      while (queue.length > 0) {
        const { symbol, from } = queue.shift()!;
        if (seen.has(symbol)) continue;
        seen.add(symbol);
        const decls = (symbol.declarations ?? []).filter(ours);
        const first = decls[0];
        if (first === undefined) continue;
        const found = { name: symbol.name, file: rel(first.getSourceFile().fileName) };
        if (skip(found)) continue;
        if (!named.has(symbol)) out.push({ ...found, usedBy: from });
        for (const d of decls) reach(d, symbol.name);
      }
      return out;
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : Object.values(packageEntries());
  const s = surface(files);
  for (const file of files) {
    const names = s.exportsOf(file);
    const values = names.filter((n) => n.kind === "value").length;
    console.log(`${file}: ${names.length} exports (${values} values, ${names.length - values} types)`);
  }
}
