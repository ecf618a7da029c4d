/**
 * A pattern's structure as an NFA (Thompson's construction), the program
 * the matcher runs. Node `k` is `op[k]`:
 *
 * - CHAR: consumes one code point in atom `x[k]`, then goes to `y[k]`;
 * - SPLIT: goes to both `x[k]` and `y[k]`;
 * - ASSERT: goes to `y[k]` when assertion `x[k]` holds (0 `^`, 1 `$`, 2 `\b`, 3 `\B`);
 * - MATCH: a match ends here.
 *
 * A counted repetition is expanded (`a{2,4}` is `aa(?:a(?:a)?)?`), so the
 * program's size is what bounds the matcher's work per code point, and it
 * is bounded by {@link MAX_PROGRAM}.
 */
import { PatternRefusal, type Assertion, type PatternNode } from "./parse.js";

export const CHAR = 0;
export const SPLIT = 1;
export const ASSERT = 2;
export const MATCH = 3;

/**
 * The most nodes a program may have. The matcher's work per code point of
 * the input is at most proportional to it (a new DFA state's transition is
 * one pass over the program), whatever the input.
 */
export const MAX_PROGRAM = 1000;

export interface Program {
  readonly op: Uint8Array;
  readonly x: Int32Array;
  readonly y: Int32Array;
  /** The node a match starts at. */
  readonly start: number;
  /** The atoms' sources, by id. */
  readonly atoms: readonly string[];
  /** Whether a `\b` or `\B` is in it (then the matcher tracks word characters). */
  readonly words: boolean;
}

const ASSERTIONS: Record<Assertion, number> = { "^": 0, $: 1, b: 2, B: 3 };

/** Builds the program; throws a {@link PatternRefusal} when it would be larger than {@link MAX_PROGRAM}. */
export function buildProgram(root: PatternNode): Program {
  const op: number[] = [];
  const x: number[] = [];
  const y: number[] = [];
  const atoms: string[] = [];
  const atomIds = new Map<string, number>();
  let words = false;
  const emit = (o: number, a: number, b: number): number => {
    // Refused as soon as it is too large: (a{1000}){1000} is never built.
    if (op.length >= MAX_PROGRAM) throw new PatternRefusal(`expands to more than ${MAX_PROGRAM} steps (each repetition counts its copies: a{1000} is 1,000)`);
    op.push(o);
    x.push(a);
    y.push(b);
    return op.length - 1;
  };
  // Built from the end: each node is made knowing where it goes next.
  const build = (n: PatternNode, next: number): number => {
    if ("atom" in n) {
      let id = atomIds.get(n.atom);
      if (id === undefined) atomIds.set(n.atom, (id = atoms.push(n.atom) - 1));
      return emit(CHAR, id, next);
    }
    if ("assert" in n) {
      if (n.assert === "b" || n.assert === "B") words = true;
      return emit(ASSERT, ASSERTIONS[n.assert], next);
    }
    if ("seq" in n) {
      for (let k = n.seq.length - 1; k >= 0; k--) next = build(n.seq[k]!, next);
      return next;
    }
    if ("alt" in n) {
      const starts = n.alt.map((m) => build(m, next));
      let s = starts[starts.length - 1]!;
      for (let k = starts.length - 2; k >= 0; k--) s = emit(SPLIT, starts[k]!, s);
      return s;
    }
    let s = next;
    if (n.max === Infinity) {
      const loop = emit(SPLIT, -1, next);
      x[loop] = build(n.rep, loop);
      s = loop;
    } else {
      // Nested optional copies, one way to match each count.
      for (let k = n.min; k < n.max; k++) s = emit(SPLIT, build(n.rep, s), next);
    }
    for (let k = 0; k < n.min; k++) {
      const before = op.length;
      s = build(n.rep, s);
      // A body that is nothing ((?:){99999999999}) adds nothing more.
      if (op.length === before) break;
    }
    return s;
  };
  const start = build(root, emit(MATCH, 0, 0));
  return { op: Uint8Array.from(op), x: Int32Array.from(x), y: Int32Array.from(y), start, atoms, words };
}
