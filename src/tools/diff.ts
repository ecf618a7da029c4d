/**
 * A line diff for tool previews: what a write would change, shown to the
 * operator who approves it, as a unified diff (what `diff -u` and `git diff`
 * print, and what apply_patch takes).
 */

/** Past this many line pairs the diff stops looking for common lines and shows a whole replacement. */
const MAX_CELLS = 4_000_000;
/** Lines of context around each change. */
const CONTEXT = 3;

type Op = { readonly kind: " " | "-" | "+"; readonly line: string };

/** The edit script from `a` to `b` (longest common subsequence, by suffix lengths). */
function script(a: readonly string[], b: readonly string[]): Op[] {
  const out: Op[] = [];
  if (a.length * b.length > MAX_CELLS) {
    for (const line of a) out.push({ kind: "-", line });
    for (const line of b) out.push({ kind: "+", line });
    return out;
  }
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
      out.push({ kind: " ", line: a[i++]! });
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) out.push({ kind: "-", line: a[i++]! });
    else out.push({ kind: "+", line: b[j++]! });
  }
  return out;
}

/**
 * A text's lines, and whether its last one ends with a newline. A last line
 * without one is a different line from the same text with one (a NUL marks
 * it, which a text line cannot hold), so adding or removing a final newline
 * shows as a change.
 */
function linesOf(text: string | undefined): { lines: string[]; finalNewline: boolean } {
  if (text === undefined || text === "") return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith("\n");
  const lines = (finalNewline ? text.slice(0, -1) : text).split("\n");
  if (!finalNewline) lines[lines.length - 1] += "\u0000";
  return { lines, finalNewline };
}

const range = (start: number, count: number): string => (count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`);

/**
 * The difference between two texts as a unified diff: `--- a/<name>` and
 * `+++ b/<name>` (`/dev/null` for a side that does not exist: `before` or
 * `after` undefined), then `@@ -l,s +l,s @@` hunks with three lines of
 * context, and `\ No newline at end of file` where a side lacks one.
 * Identical texts give the header and `(no change)`.
 *
 * @example
 * ```ts
 * defineTool({ ..., preview: (a) => lineDiff(a.path, read(a.path), a.content) }) // read: undefined when there is no file
 * ```
 */
export function lineDiff(name: string, before: string | undefined, after: string | undefined): string {
  const header = `--- ${before === undefined ? "/dev/null" : `a/${name}`}\n+++ ${after === undefined ? "/dev/null" : `b/${name}`}\n`;
  if (before === after) return `${header}(no change)\n`;
  const a = linesOf(before);
  const b = linesOf(after);
  const ops = script(a.lines, b.lines);
  // Where each op falls in the old and new texts (1-based), to number the hunks.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldAt.push(o);
    newAt.push(n);
    if (op.kind !== "+") o++;
    if (op.kind !== "-") n++;
  }
  const changed = ops.map((op, k) => (op.kind === " " ? -1 : k)).filter((k) => k >= 0);
  const hunks: [number, number][] = [];
  for (const k of changed) {
    const from = Math.max(0, k - CONTEXT);
    const to = Math.min(ops.length, k + CONTEXT + 1);
    const last = hunks[hunks.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else hunks.push([from, to]);
  }
  let out = header;
  for (const [from, to] of hunks) {
    const slice = ops.slice(from, to);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    out += `@@ -${range(oldAt[from]!, oldCount)} +${range(newAt[from]!, newCount)} @@\n`;
    for (let k = from; k < to; k++) {
      const op = ops[k]!;
      // The last line of a side without a final newline says so.
      out += op.line.endsWith("\u0000") ? `${op.kind}${op.line.slice(0, -1)}\n\\ No newline at end of file\n` : `${op.kind}${op.line}\n`;
    }
  }
  return out;
}
