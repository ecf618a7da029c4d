/**
 * Patterns in linear time: the ECMAScript `u`-mode patterns that come from
 * outside the code (a schema's `pattern` and `patternProperties`, a
 * `search_files` regex, a policy glob), matched in time linear in the
 * input whatever the pattern, with exactly the answers of RegExp's `test`.
 *
 * A pattern that provably cannot backtrack badly (linear.ts) runs on the
 * platform's RegExp; every other one on the matcher (match.ts). What no
 * linear-time matcher can run (backreferences, lookaround) is refused, and
 * so is a pattern too large to run in bounded work per code point.
 *
 * @module
 */
import { isIsoagentError } from "../errors.js";
import { backtracksLinearly } from "./linear.js";
import { matcher as makeMatcher } from "./match.js";
import { parsePattern } from "./parse.js";
import { buildProgram } from "./program.js";

export { boundedWork, OUT_OF_WORK } from "./match.js";
export { MAX_PATTERN_NESTING } from "./parse.js";
export { MAX_PROGRAM } from "./program.js";

/**
 * The most program nodes one validation's patterns may visit thread by
 * thread (2^25, about 33 million). Only a
 * pattern whose DFA outgrows its cache, over a long input, ever comes near
 * it (the DFA's known transitions cost nothing): a megabyte of random a/b
 * against `(?:[ab]*a[ab]{100})c` takes about 10^8.
 */
export const MAX_PATTERN_WORK = 2 ** 25;

/** The longest pattern source taken, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 10_000;

/** A compiled pattern. */
export interface Pattern {
  /** The pattern's source. */
  readonly source: string;
  /** Whether it runs on the platform's RegExp (proved linear there: linear.ts) rather than the matcher. */
  readonly native: boolean;
  /** Whether `s` contains a match: RegExp's `test`, in time linear in `s`. */
  test(s: string): boolean;
}

/** A pattern compiled, or why not: "invalid" (not an ECMAScript pattern) or "unsupported" (a backreference, lookaround, or too large). */
export type PatternResult = { readonly ok: true; readonly pattern: Pattern } | { readonly ok: false; readonly reason: "invalid" | "unsupported"; readonly why: string };

/** Options of {@link compilePattern}. */
export interface PatternOptions {
  /** The `i` flag (with `u`), as RegExp takes it. */
  readonly ignoreCase?: boolean;
  /** Always the matcher, never the platform's RegExp (for tests and benchmarks). */
  readonly matcherOnly?: boolean;
}

/**
 * Compiles a pattern with the flags `u` (or `iu`). `why` completes "the
 * pattern ...".
 *
 * @example
 * ```ts
 * const r = compilePattern("^(a+)+$")
 * if (r.ok) r.pattern.test("a".repeat(100_000) + "!") // false, at once
 * compilePattern("(a)\\1") // { ok: false, reason: "unsupported", why: "uses a backreference (\\1), ..." }
 * ```
 */
export function compilePattern(source: string, options: PatternOptions = {}): PatternResult {
  const flags = options.ignoreCase === true ? "iu" : "u";
  const k = `${flags}${options.matcherOnly === true ? "m" : ""}:${source}`;
  let r = cache.get(k);
  if (r === undefined) {
    r = compile(source, flags, options.matcherOnly === true);
    // Bounded: a new pattern finds it full now and then, and it starts again.
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(k, r);
  }
  return r;
}

/** How many compiled patterns are kept (each with its DFA), shared by every schema, search and glob. */
const MAX_CACHED = 256;
const cache = new Map<string, PatternResult>();

/** @internal The compiled pattern of a source already known to compile (a schema's, once checkKeywords passed it). */
export function patternOf(source: string): Pattern {
  const r = compilePattern(source);
  if (!r.ok) throw new Error(`isoagent: pattern ${JSON.stringify(source)} was used unchecked`);
  return r.pattern;
}

function compile(source: string, flags: string, matcherOnly: boolean): PatternResult {
  if (source.length > MAX_PATTERN_LENGTH) return { ok: false, reason: "unsupported", why: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  try {
    new RegExp(source, flags);
  } catch {
    return { ok: false, reason: "invalid", why: "is not a valid regular expression" };
  }
  try {
    const program = buildProgram(parsePattern(source));
    const matcher = makeMatcher(program, flags);
    if (!matcherOnly && flags === "u" && backtracksLinearly(program, (a, c) => matcher.has(a, c))) {
      const re = new RegExp(source, flags);
      return {
        ok: true,
        pattern: {
          source,
          native: true,
          test(s) {
            try {
              return re.test(s);
            } catch {
              // V8 gives up (RangeError) when its backtrack stack outgrows its limit, on inputs of megabytes.
              return matcher.test(s);
            }
          },
        },
      };
    }
    return { ok: true, pattern: { source, native: false, test: (s) => matcher.test(s) } };
  } catch (e) {
    if (isIsoagentError(e, "PATTERN_UNSUPPORTED")) return { ok: false, reason: "unsupported", why: e.message };
    throw e;
  }
}
