/**
 * The linear-time matcher: a DFA built lazily from the program (program.ts),
 * one state per set of NFA threads (and what the previous code point was,
 * for `^`, `\b` and `\B`), each transition computed once, the first time a
 * code point meets the state, and cached: an array for ASCII, a Map above.
 * A search (RegExp's `test`) asks whether a match ends anywhere, so a new
 * thread starts at every position, and the answer is known at the first
 * position a match ends.
 *
 * Atoms are decided by the platform: which atoms hold code point `c` is what
 * one RegExp made of them all, `^(?=(a0)?)(?=(a1)?)…`, finds on
 * `String.fromCodePoint(c)` (atom `k` holds `c` when group `k + 1` took
 * it). Each atom matches one code point, so that costs a constant per atom,
 * once per code point met (cached). That makes `.`, `\s`, `\p{...}`,
 * classes and case folding under `i` exactly what RegExp makes them.
 *
 * Work per code point is bounded by the program's size whatever the input:
 * a transition is one pass over the threads. The cache holds at most
 * {@link MAX_STATES} states; when it is full it is emptied and rebuilt as
 * the input needs it (as RE2 does), so memory stays bounded; once it has
 * been emptied twice, what it does not know is followed thread by thread,
 * without making states.
 */
import * as ops from "./program.js";
import type { Program } from "./program.js";

// Local copies: the step loop reads them for every node it visits.
const { CHAR, SPLIT, ASSERT } = ops;

/** The most DFA states a pattern keeps (each has a 128-entry table for ASCII)... */
export const MAX_STATES = 256;
/** ...and the most threads, summed over them. */
const MAX_STATE_THREADS = 32_768;
/** The most code points above ASCII whose atoms a pattern remembers. */
const MAX_REMEMBERED = 4096;

interface State {
  /** The cache this state belongs to (the cache's generation). */
  readonly g: number;
  /** The threads, before their assertions are followed (sorted node ids). */
  readonly nodes: Int32Array;
  /** The previous code point: 0 none (the input's start), 1 a word character, 2 another. */
  readonly prev: number;
  /** Transitions of ASCII code points. */
  readonly ascii: (State | undefined)[];
  /** Transitions above ASCII. */
  other: Map<number, State> | undefined;
  /** Whether a match ends at the end of the input: -1 not known yet. */
  end: number;
}

/** What is left of the work the matching under way may do (node visits); see {@link boundedWork}. */
let work = Infinity;
/** Thrown (and returned by {@link boundedWork}) when it runs out. */
export const OUT_OF_WORK: unique symbol = Symbol("isoagent.pattern-work");

/**
 * Runs `f(a)`, in which all matching together may visit at most `limit`
 * program nodes thread by thread (what the DFA already knows costs
 * nothing); returns {@link OUT_OF_WORK} when that ran out, at once.
 */
export function boundedWork<A, T>(limit: number, f: (a: A) => T, a: A): T | typeof OUT_OF_WORK {
  const before = work;
  work = limit;
  try {
    return f(a);
  } catch (e) {
    if (e === OUT_OF_WORK) return OUT_OF_WORK;
    throw e;
  } finally {
    work = before;
  }
}

const sentinel = (end: number): State => ({ g: -1, nodes: new Int32Array(0), prev: 0, ascii: [], other: undefined, end });
/** The transition that means "a match ends here". */
const MATCHED = sentinel(1);
/** The state with no thread left: no match can follow. */
const DEAD = sentinel(0);

/** A compiled matcher over one program. Not reentrant (nothing it calls can call it again). */
export interface Matcher {
  /** Whether the pattern matches anywhere in `s`, as `RegExp.prototype.test` with the same flags answers. */
  test(s: string): boolean;
  /** Whether atom `a` holds code point `c`. */
  has(a: number, c: number): boolean;
}

/** The matcher of a program, with the RegExp flags its atoms take. */
export function matcher(p: Program, flags: string): Matcher {
  const { op, x, y, start: first, words } = p;
  // All atoms at once (and \w last, when the pattern has \b or \B).
  const atoms = new RegExp(`^${(words ? [...p.atoms, "\\w"] : p.atoms).map((a) => `(?=(${a})?)`).join("")}`, flags);
  const asciiHits: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(128).fill(undefined);
  const otherHits = new Map<number, Uint8Array>();
  // Whether a match can start after the input's first position (not when every way in starts with ^).
  const anywhere = reaches(p, first, (a) => a !== 0, true);
  // Whether an empty match starts between the halves of a surrogate pair, where the platform tries one
  // (not the start, not the end, no word character on either side: only \B holds there).
  const midPair = anywhere && midPairTried() && reaches(p, first, (a) => a === 3, false);
  let states = new Map<string, State>();
  let size = 0; // the threads of the states kept
  let generation = 0; // how many times the cache was emptied
  // Scratch: marks per node (generation-stamped) for nodes visited and threads queued, a stack, the threads of a step.
  const seen = new Int32Array(op.length);
  const queued = new Int32Array(op.length);
  const stack: number[] = [];
  const threads = new Int32Array(op.length + 1);
  let gen = 0;
  let kind = 2; // of the code point the last step read: 1 a word character, 2 another

  /** Which atoms hold code point `c` (1 at their index), and whether it is a word character (last, when asked). */
  const hits = (c: number): Uint8Array => {
    let h = c < 128 ? asciiHits[c] : otherHits.get(c);
    if (h === undefined) {
      const m = atoms.exec(String.fromCodePoint(c))!;
      h = new Uint8Array(m.length - 1);
      for (let k = 1; k < m.length; k++) if (m[k] !== undefined) h[k - 1] = 1;
      if (c < 128) asciiHits[c] = h;
      else {
        if (otherHits.size >= MAX_REMEMBERED) otherHits.clear();
        otherHits.set(c, h);
      }
    }
    return h;
  };

  /**
   * One step: from the first `n` threads of `from`, after a code point of
   * kind `prev` (0 none, 1 word, 2 other), follows SPLITs and the
   * assertions that hold before code point `c` (-1: the input's end), and
   * writes to `into` the threads that go on past `c`. Returns how many, or
   * -1 when a match ends before `c`.
   */
  const step = (from: Int32Array, n: number, prev: number, c: number, into: Int32Array): number => {
    const hit = c < 0 ? undefined : hits(c);
    const next = hit === undefined ? 3 : words && hit[hit.length - 1] === 1 ? 1 : 2;
    kind = words ? next : 2;
    const g = ++gen;
    let count = 0;
    for (let k = n - 1; k >= 0; k--) stack.push(from[k]!);
    let visits = 0;
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (seen[node] === g) continue;
      seen[node] = g;
      visits++;
      const o = op[node];
      if (o === CHAR) {
        const to = y[node]!;
        if (hit !== undefined && hit[x[node]!] === 1 && queued[to] !== g) {
          queued[to] = g;
          into[count++] = to;
        }
      } else if (o === SPLIT) stack.push(y[node]!, x[node]!);
      else if (o === ASSERT) {
        const a = x[node];
        // ^, $, and \b where exactly one side is a word character, \B where neither or both are.
        if (a === 0 ? prev === 0 : a === 1 ? next === 3 : ((prev === 1) !== (next === 1)) === (a === 2)) stack.push(y[node]!);
      } else {
        stack.length = 0;
        work -= visits;
        return -1;
      }
    }
    if (anywhere && c >= 0 && queued[first] !== g) into[count++] = first;
    if ((work -= visits) < 0) throw OUT_OF_WORK;
    return count;
  };

  const make = (k: string, nodes: Int32Array, prev: number): State => {
    size += nodes.length;
    const state: State = { g: generation, nodes, prev, ascii: new Array<State | undefined>(128).fill(undefined), other: undefined, end: -1 };
    states.set(k, state);
    return state;
  };
  const startKey = key(Int32Array.of(first), 1, 0);
  let initial = make(startKey, Int32Array.of(first), 0);

  const intern = (nodes: Int32Array, n: number, prev: number): State => {
    if (n === 0) return DEAD;
    const k = key(nodes, n, prev);
    const known = states.get(k);
    if (known !== undefined) return known;
    if (states.size >= MAX_STATES || size + n > MAX_STATE_THREADS) {
      states = new Map();
      size = 0;
      generation++;
      initial = make(startKey, Int32Array.of(first), 0);
      if (k === startKey) return initial;
    }
    return make(k, nodes.slice(0, n), prev);
  };

  const transition = (state: State, c: number): State => {
    const count = step(state.nodes, state.nodes.length, state.prev, c, threads);
    const next = count < 0 ? MATCHED : intern(threads.subarray(0, count).sort(), count, kind);
    // A state from before the cache was emptied is not kept in it.
    if (state.g === generation) {
      if (c < 128) state.ascii[c] = next;
      else (state.other ??= new Map()).set(c, next);
    }
    return next;
  };

  /** The rest of `s` from code point `c` (which ends before `i`), thread by thread: one pass over the program per code point. */
  const simulate = (s: string, i: number, c: number, state: State): boolean => {
    let now = new Int32Array(threads.length);
    let after = new Int32Array(threads.length);
    now.set(state.nodes);
    let count = state.nodes.length;
    let prev = state.prev;
    for (;;) {
      count = step(now, count, prev, c, after);
      if (count < 0) return true;
      if (count === 0) return false;
      const t = now;
      now = after;
      after = t;
      prev = kind;
      if (i >= s.length) return step(now, count, prev, -1, after) < 0;
      c = s.codePointAt(i)!;
      i += c > 0xffff ? 2 : 1;
      if (c > 0xffff && midPair) return true;
    }
  };

  return {
    has: (a, c) => hits(c)[a] === 1,
    test(s) {
      let state = initial;
      const n = s.length;
      for (let i = 0; i < n;) {
        let c = s.charCodeAt(i++);
        let next: State | undefined;
        if (c < 128) next = state.ascii[c];
        else {
          if ((c & 0xfc00) === 0xd800 && i < n) {
            const d = s.charCodeAt(i);
            if ((d & 0xfc00) === 0xdc00) {
              if (midPair) return true;
              c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
              i++;
            }
          }
          next = state.other?.get(c);
        }
        if (next === undefined) {
          // A cache emptied twice is thrashing: the states are too many to
          // keep, so from then on a code point the cache does not know is
          // followed thread by thread, without making states.
          if (generation >= 2) return simulate(s, i, c, state);
          next = transition(state, c);
        }
        if (next === MATCHED) return true;
        if (next === DEAD) return false;
        state = next;
      }
      if (state.end === -1) state.end = step(state.nodes, state.nodes.length, state.prev, -1, threads) < 0 ? 1 : 0;
      return state.end === 1;
    },
  };
}

/**
 * Whether a CHAR or MATCH node is reached from `from` through SPLITs and
 * the assertions `through` lets pass (by kind: 0 `^`, 1 `$`, 2 `\b`, 3 `\B`),
 * CHAR nodes counting only when `chars`.
 */
function reaches(p: Program, from: number, through: (assertion: number) => boolean, chars: boolean): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const o = p.op[n];
    if (o === SPLIT) stack.push(p.x[n]!, p.y[n]!);
    else if (o === ASSERT) {
      if (through(p.x[n]!)) stack.push(p.y[n]!);
    } else if (o !== CHAR || chars) return true;
  }
  return false;
}

let midPair: boolean | undefined;
/**
 * Whether the platform's RegExp tries a match between the two halves of a
 * surrogate pair in u mode. V8 does (and finds an empty match there when
 * the pattern can match empty between two non-word characters:
 * `/\B/u.test("a\u{1F600}a")` is true), although the specification moves
 * from one code point to the next. Asked once, so the matcher answers as
 * the platform does.
 */
function midPairTried(): boolean {
  return (midPair ??= /\B/u.test("a\u{1F600}a"));
}

function key(nodes: Int32Array, n: number, prev: number): string {
  let k = String(prev);
  for (let i = 0; i < n; i++) k += `,${nodes[i]!}`;
  return k;
}
