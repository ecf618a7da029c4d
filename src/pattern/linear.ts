/**
 * Which programs a backtracking RegExp runs in linear time, so that they can
 * run on the platform's RegExp (fast, native) instead of the matcher. The
 * test is conservative: a pattern it does not prove linear runs on the
 * matcher, which gives the same answers.
 *
 * A backtracker explores, from each start position, the paths through the
 * program. It takes linear time when three things hold:
 *
 * 1. **One path to each next step.** From the start and after each atom,
 *    the paths through SPLITs and assertions (no code point consumed) reach
 *    each atom at most once, and never loop without consuming: `(a+)+`
 *    reaches `a` after an `a` both by the inner and by the outer loop, so a
 *    run of `a`s splits 2^n ways; `(a*)*` loops on nothing.
 * 2. **Deterministic.** The atoms so reached are pairwise disjoint: the next
 *    code point decides the one way on, so each choice left behind fails
 *    at its first code point when the backtracker returns to it. `a*a`
 *    fails this (an `a` may be either).
 * 3. **Bounded attempts.** A search starts again at every position; unless
 *    each way in starts with `^`, the program reachable from the start must
 *    have no loop, so that each attempt is bounded by the program's size.
 *    `a+b` on `aaaa…` runs each attempt to the end: quadratic.
 *
 * Then each choice point is left once and revisited at most once for a
 * constant cost, and the work is linear in the input. Disjointness is
 * decided exactly over ASCII (by the atoms' own RegExps); an atom that may
 * hold a code point above ASCII (`.`, `\s`, `\p{...}`, a negated class, a
 * non-ASCII literal) is taken to meet every other such atom. Case-insensitive
 * patterns are never taken (case folding reaches past ASCII: `k` meets the
 * Kelvin sign).
 */
import { ASSERT, CHAR, SPLIT, type Program } from "./program.js";

/** The largest program this test looks at (it is quadratic in the program's size); larger ones run on the matcher. */
export const MAX_LINEAR_PROGRAM = 256;

/** May the atom hold a code point above ASCII? (True when unsure.) */
const wide = (src: string): boolean =>
  // eslint-disable-next-line no-control-regex -- the ASCII range, from NUL, is what is asked about
  src === "." || src.startsWith("[^") || /\\[DWSsPp]|[^\x00-\x7f]|\\x[89a-f]|\\u(?!00[0-7][0-9a-f]|\{0*[0-7]?[0-9a-f]\})/i.test(src);

/** True when the program provably runs in linear time on a backtracking RegExp. `has(atom, c)` is the atom's membership. */
export function backtracksLinearly(p: Program, has: (atom: number, c: number) => boolean): boolean {
  const { op, x, y } = p;
  if (op.length > MAX_LINEAR_PROGRAM) return false;

  // 1. The steps reached from each node without consuming, with how many paths reach each.
  const memo = new Map<number, Map<number, number> | undefined>();
  const visiting = new Set<number>();
  const reach = (n: number): Map<number, number> | undefined => {
    if (memo.has(n)) return memo.get(n);
    // A node met again on the way: a loop that consumes nothing.
    if (visiting.has(n)) return undefined;
    visiting.add(n);
    let out: Map<number, number> | undefined;
    if (op[n] === SPLIT) {
      const a = reach(x[n]!);
      const b = a && reach(y[n]!);
      if (a !== undefined && b !== undefined) {
        out = new Map(a);
        for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v);
      }
    } else if (op[n] === ASSERT) out = reach(y[n]!);
    else out = new Map([[n, 1]]);
    visiting.delete(n);
    memo.set(n, out);
    return out;
  };
  const disjoint = (a: number, b: number): boolean => {
    if (a === b || (wide(p.atoms[a]!) && wide(p.atoms[b]!))) return false;
    for (let c = 0; c < 128; c++) if (has(a, c) && has(b, c)) return false;
    return true;
  };
  const sources = [p.start];
  for (let n = 0; n < op.length; n++) if (op[n] === CHAR) sources.push(y[n]!);
  for (const s of sources) {
    const r = reach(s);
    if (r === undefined) return false;
    const atoms: number[] = [];
    for (const [node, paths] of r) {
      if (paths > 1) return false;
      if (op[node] === CHAR) atoms.push(x[node]!);
    }
    // 2. Deterministic.
    for (let i = 0; i < atoms.length; i++) for (let j = i + 1; j < atoms.length; j++) if (!disjoint(atoms[i]!, atoms[j]!)) return false;
  }

  // 3. No loop reachable from the start but through a `^`.
  const state = new Uint8Array(op.length); // 0 unseen, 1 on the path, 2 done
  const loops = (n: number): boolean => {
    if (state[n] === 1) return true;
    if (state[n] === 2) return false;
    state[n] = 1;
    const o = op[n];
    const found = o === SPLIT ? loops(x[n]!) || loops(y[n]!) : o === CHAR || (o === ASSERT && x[n] !== 0) ? loops(y[n]!) : false;
    state[n] = 2;
    return found;
  };
  return !loops(p.start);
}
