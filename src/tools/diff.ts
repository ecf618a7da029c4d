/**
 * A line diff for tool previews: what a write would change, shown to the
 * operator who approves it.
 */

/** Past this many line pairs the diff stops looking for common lines and shows a whole replacement. */
const MAX_CELLS = 4_000_000;

/**
 * The difference between two texts, line by line: unchanged lines prefixed
 * with two spaces, removed with "- ", added with "+ ", under a header naming
 * what changes. Identical texts give the header and "(no change)".
 *
 * @example
 * ```ts
 * defineTool({ ..., preview: (a) => lineDiff(a.path, read(a.path) ?? "", a.content) })
 * ```
 */
export function lineDiff(name: string, before: string, after: string): string {
  const header = `--- ${name}\n+++ ${name}\n`;
  if (before === after) return `${header}(no change)\n`;
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  if (a.length * b.length > MAX_CELLS) {
    for (const l of a) out.push(`- ${l}`);
    for (const l of b) out.push(`+ ${l}`);
    return header + out.join("\n") + "\n";
  }
  // Longest common subsequence, by suffix lengths.
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  return header + out.join("\n") + "\n";
}
