/**
 * Globs for policy rules and the file tools, compiled once into linear-time
 * patterns (src/pattern/): `**` matches anything (slashes included), `*`
 * anything but a slash, `?` one character but a slash; everything else is
 * literal. A glob such as `*a*a*a*b` made V8's backtracking RegExp take
 * time polynomial in the value (and the glob's length its degree); the
 * pattern engine takes time linear in the value. No eval.
 */
import { compilePattern, type Pattern } from "../pattern/index.js";
import { PolicyError } from "./error.js";

/** A compiled glob. */
export interface GlobMatcher {
  readonly glob: string;
  /** Whether `value` matches the whole glob. */
  test(value: string): boolean;
}

const cache = new Map<string, GlobMatcher>();

/** The pattern (u mode) a glob means. */
function globSource(glob: string): string {
  let src = "^";
  for (let k = 0; k < glob.length; k++) {
    const c = glob[k]!;
    if (c === "*") {
      if (glob[k + 1] === "*") {
        // "**/" also matches nothing, so that "a/**/b" matches "a/b".
        if (glob[k + 2] === "/") {
          src += "(?:.*/)?";
          k += 2;
        } else {
          src += ".*";
          k += 1;
        }
      } else {
        src += "[^/]*";
      }
    } else if (c === "?") {
      src += "[^/]";
    } else {
      src += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return `${src}$`;
}

/**
 * Compiles a glob (once: compiled globs are cached). A glob too long to
 * match in bounded work per character (more than about 1,000 characters)
 * is refused with a {@link PolicyError}; `where` names it ("rule 2").
 *
 * @example
 * ```ts
 * compileGlob("notes/**").test("notes/a/b.md") // true
 * compileGlob("*.md").test("notes/a.md")       // false: * stops at a slash
 * ```
 */
export function compileGlob(glob: string, where = "glob"): GlobMatcher {
  let m = cache.get(glob);
  if (m !== undefined) return m;
  const r = compilePattern(globSource(glob));
  if (!r.ok) throw new PolicyError(`${where}: the glob ${JSON.stringify(glob.length > 40 ? `${glob.slice(0, 40)}…` : glob)} is too long to match (its pattern ${r.why})`);
  const pattern: Pattern = r.pattern;
  m = { glob, test: (value) => pattern.test(value) };
  if (cache.size > 1000) cache.clear();
  cache.set(glob, m);
  return m;
}

/** True when `value` matches `glob`. */
export function globMatch(glob: string, value: string): boolean {
  return compileGlob(glob).test(value);
}
