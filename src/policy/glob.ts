/**
 * Globs for policy rules, compiled to regular expressions once:
 * `**` matches anything (slashes included), `*` anything but a slash, `?` one
 * character but a slash; everything else is literal. No eval.
 */
const cache = new Map<string, RegExp>();

/** The regular expression of a glob. */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re !== undefined) return re;
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
  re = new RegExp(`${src}$`, "u");
  if (cache.size > 1000) cache.clear();
  cache.set(glob, re);
  return re;
}

/** True when `value` matches `glob`. */
export function globMatch(glob: string, value: string): boolean {
  return globToRegExp(glob).test(value);
}
