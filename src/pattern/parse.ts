/**
 * The structure of an ECMAScript pattern (`u` mode), for the linear-time
 * matcher. Only the structure is ours: sequence, alternation, groups,
 * quantifiers and the assertions `^ $ \b \B`. Every atom (a literal, `.`,
 * an escape such as `\d` or `\p{L}`, a class `[...]`) keeps its exact
 * source text, and its members are decided by the platform's own RegExp
 * (match.ts), so what an atom means is what RegExp says it means.
 *
 * The pattern has already compiled as a RegExp with the same flags, so the
 * syntax is known to be valid: this only has to find where each piece
 * ends, and refuse what a linear-time matcher cannot run.
 */
import { IsoagentError } from "../errors.js";

/** A node of the pattern: an atom (one code point), a sequence, an alternation, a repetition or an assertion. */
export type PatternNode =
  | { readonly atom: string }
  | { readonly seq: readonly PatternNode[] }
  | { readonly alt: readonly PatternNode[] }
  | { readonly rep: PatternNode; readonly min: number; readonly max: number }
  | { readonly assert: Assertion };

/** `^`, `$`, `\b`, `\B`. */
export type Assertion = "^" | "$" | "b" | "B";

/** Groups nest at most this deep (the parser and the compiler recurse on them). */
export const MAX_PATTERN_NESTING = 64;

/** Why a pattern cannot be run, said after "the pattern " (its message). Code `PATTERN_UNSUPPORTED`. */
export class PatternRefusal extends IsoagentError {
  constructor(why: string) {
    super("PATTERN_UNSUPPORTED", why);
  }
}

const refuse = (why: string): never => {
  throw new PatternRefusal(why);
};

const isHex = (s: string): boolean => /^[0-9a-fA-F]{4}$/.test(s);
const lead = (s: string): boolean => isHex(s) && (parseInt(s, 16) & 0xfc00) === 0xd800;
const trail = (s: string): boolean => isHex(s) && (parseInt(s, 16) & 0xfc00) === 0xdc00;

/** The structure of a pattern that compiled as a `u`-mode RegExp; throws a {@link PatternRefusal}. */
export function parsePattern(src: string): PatternNode {
  let pos = 0;

  /** The end of the escape at `pos` (a backslash). */
  const escapeEnd = (): number => {
    const c = src[pos + 1];
    if (c === "p" || c === "P" || (c === "u" && src[pos + 2] === "{")) return src.indexOf("}", pos) + 1;
    if (c === "u") {
      // A surrogate pair written as two escapes is one code point.
      return lead(src.slice(pos + 2, pos + 6)) && src[pos + 6] === "\\" && src[pos + 7] === "u" && trail(src.slice(pos + 8, pos + 12)) ? pos + 12 : pos + 6;
    }
    if (c === "x") return pos + 4;
    if (c === "c") return pos + 3;
    return pos + 2;
  };

  const alternation = (depth: number): PatternNode => {
    const alts = [sequence(depth)];
    while (src[pos] === "|") {
      pos++;
      alts.push(sequence(depth));
    }
    return alts.length === 1 ? alts[0]! : { alt: alts };
  };

  const sequence = (depth: number): PatternNode => {
    const seq: PatternNode[] = [];
    while (pos < src.length && src[pos] !== "|" && src[pos] !== ")") {
      const term = atomOrGroup(depth);
      seq.push(quantified(term));
    }
    return seq.length === 1 ? seq[0]! : { seq };
  };

  const quantified = (term: PatternNode): PatternNode => {
    const c = src[pos];
    let min: number;
    let max: number;
    if (c === "*" || c === "+" || c === "?") {
      pos++;
      min = c === "+" ? 1 : 0;
      max = c === "?" ? 1 : Infinity;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(pos, pos + 40));
      // The syntax is valid, so a "{" after an atom starts a quantifier; a
      // bound too long to read is far beyond any bound the compiler takes.
      if (m === null) return refuse("has a repetition count too large to run");
      pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    } else {
      return term;
    }
    // Lazy or greedy: the same strings match.
    if (src[pos] === "?") pos++;
    return { rep: term, min, max };
  };

  const atomOrGroup = (depth: number): PatternNode => {
    const c = src[pos]!;
    const start = pos;
    if (c === "^" || c === "$") {
      pos++;
      return { assert: c };
    }
    if (c === "(") {
      if (depth >= MAX_PATTERN_NESTING) refuse(`nests groups deeper than ${MAX_PATTERN_NESTING} levels`);
      if (src.startsWith("(?=", pos) || src.startsWith("(?!", pos) || src.startsWith("(?<=", pos) || src.startsWith("(?<!", pos)) {
        refuse("uses a lookaround assertion ((?=, (?!, (?<=, (?<!), which a linear-time matcher cannot run");
      }
      if (src.startsWith("(?:", pos)) pos += 3;
      else if (src.startsWith("(?<", pos)) pos = src.indexOf(">", pos) + 1;
      else if (src[pos + 1] === "?") refuse("uses a group modifier ((?i: and the like), which the matcher does not take");
      else pos++;
      const body = alternation(depth + 1);
      pos++; // ")"
      return body;
    }
    if (c === "[") {
      pos++;
      if (src[pos] === "^") pos++;
      // In ECMAScript the first "]" ends the class: "[]" matches nothing, "[^]" anything.
      while (src[pos] !== "]") pos += src[pos] === "\\" ? 2 : 1;
      pos++;
      return { atom: src.slice(start, pos) };
    }
    if (c === "\\") {
      const e = src[pos + 1]!;
      if (e === "b" || e === "B") {
        pos += 2;
        return { assert: e };
      }
      if ((e >= "1" && e <= "9") || e === "k") refuse(`uses a backreference (${src.slice(pos, pos + 2)}), which a linear-time matcher cannot run`);
      pos = escapeEnd();
      return { atom: src.slice(start, pos) };
    }
    // A literal code point: a surrogate pair is one.
    const code = src.charCodeAt(pos);
    pos += (code & 0xfc00) === 0xd800 && (src.charCodeAt(pos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    return { atom: src.slice(start, pos) };
  };

  return alternation(0);
}
