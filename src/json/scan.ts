/**
 * A strict RFC 8259 scanner: it walks the text once, building nothing but the
 * keys of the objects it is inside, and says whether `JSON.parse` may be
 * trusted with it. What it refuses beyond the grammar: nesting deeper than
 * the limit, a repeated object key, an unpaired surrogate (escaped or raw),
 * and a number too large to be finite. The value itself is then built by the
 * platform's `JSON.parse`, which is faster than anything written in JS.
 *
 * This is the hot path of every argument check, so it is written for V8's
 * optimiser: one loop over `charCodeAt` with its state in locals, helpers
 * that take and return indices (no closures over mutable state), and the
 * container stack reused between calls (the scan is synchronous, so it cannot
 * be re-entered).
 *
 * The fast check for text the platform parser has accepted already (the
 * common case) is fast-check.ts.
 */
import type { JsonErrorCode } from "./errors.js";

/** A refusal found by the scanner, before its position is worked out. */
export interface ScanFailure {
  readonly code: JsonErrorCode;
  readonly reason: string;
  /** Index of the offending code unit in the text. */
  readonly at: number;
}

const ARRAY = 1;
const OBJECT = 2;
/** Objects with more members than this check repeated keys with a Set. */
const LINEAR_KEYS = 12;

const fail = (code: JsonErrorCode, reason: string, at: number): ScanFailure => ({ code, reason, at });

// Set by the helpers below on the error path only (and `escaped` by scanString
// when a string holds an escape), read right after the call.
let failure: ScanFailure | null = null;
let escaped = false;

// The container stack and per-depth key lists, reused between calls.
let kinds = new Uint8Array(64);
const keyLists: string[][] = [];
const keySets: (Set<string> | null)[] = [];

/** Shows one character of the input in a message, quoted or as U+XXXX. */
export function describeChar(s: string, at: number): string {
  const cp = s.codePointAt(at);
  if (cp === undefined) return "end of input";
  if (cp >= 0x21 && cp <= 0x7e) return JSON.stringify(String.fromCharCode(cp));
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Shows a key in a message: JSON-quoted, cut at 64 characters. */
function describeKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

function unexpected(s: string, at: number): ScanFailure {
  if (at >= s.length) return fail("JSON_SYNTAX", "unexpected end of input", at);
  const c = s.charCodeAt(at);
  if (c === 0x2f) return fail("JSON_SYNTAX", "comments are not allowed in JSON", at);
  if (c === 0xfeff && at === 0) return fail("JSON_SYNTAX", "a byte order mark is not allowed", at);
  if (c === 0x74 || c === 0x66 || c === 0x6e) return fail("JSON_SYNTAX", "invalid literal: expected true, false or null", at);
  return fail("JSON_SYNTAX", `unexpected character ${describeChar(s, at)}`, at);
}

function unexpectedKey(s: string, at: number, afterComma: boolean): ScanFailure {
  if (at >= s.length || s.charCodeAt(at) === 0x2f) return unexpected(s, at);
  if (afterComma && s.charCodeAt(at) === 0x7d) return fail("JSON_SYNTAX", "trailing comma", at);
  return fail("JSON_SYNTAX", `expected a string key, found ${describeChar(s, at)}`, at);
}

function unexpectedAfter(s: string, at: number, kind: number): ScanFailure {
  if (at >= s.length || s.charCodeAt(at) === 0x2f) return unexpected(s, at);
  if (kind === 0) return fail("JSON_SYNTAX", `unexpected ${describeChar(s, at)} after the JSON value`, at);
  return fail("JSON_SYNTAX", `expected "," or "${kind === ARRAY ? "]" : "}"}", found ${describeChar(s, at)}`, at);
}

/** The index of the first non-whitespace character at or after `i`. */
function skipWs(s: string, i: number, n: number): number {
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Four hex digits at `at` as a number, or -1. */
export function hex4(s: string, at: number): number {
  if (at + 4 > s.length) return -1;
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const h = s.charCodeAt(k);
    let d: number;
    if (h >= 0x30 && h <= 0x39) d = h - 0x30;
    else if (h >= 0x41 && h <= 0x46) d = h - 0x37;
    else if (h >= 0x61 && h <= 0x66) d = h - 0x57;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

/**
 * Scans the string whose opening quote is at `i0`. Returns the index after
 * its closing quote, or -1 with `failure` set. Sets `escaped` when the
 * string holds an escape (the caller clears it).
 */
function scanString(s: string, i0: number, n: number): number {
  let j = i0 + 1;
  for (;;) {
    let ch = 0;
    // Fast path: plain characters.
    while (j < n) {
      ch = s.charCodeAt(j);
      if (ch === 0x22 || ch === 0x5c || ch < 0x20 || (ch >= 0xd800 && ch <= 0xdfff)) break;
      j++;
    }
    if (j >= n) {
      failure = fail("JSON_SYNTAX", "unterminated string", i0);
      return -1;
    }
    if (ch === 0x22) return j + 1;
    if (ch < 0x20) {
      failure = fail("JSON_SYNTAX", `unescaped control character ${describeChar(s, j)} in a string`, j);
      return -1;
    }
    if (ch !== 0x5c) {
      // A raw surrogate: only a high half followed by a low half is a character.
      const lo = j + 1 < n ? s.charCodeAt(j + 1) : 0;
      if (ch <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
        j += 2;
        continue;
      }
      failure = fail("JSON_LONE_SURROGATE", `unpaired surrogate ${describeChar(s, j)} in a string`, j);
      return -1;
    }
    escaped = true;
    const e = j + 1 < n ? s.charCodeAt(j + 1) : -1;
    if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
      j += 2;
      continue;
    }
    if (e === 0x75) {
      const unit = hex4(s, j + 2);
      if (unit < 0) {
        failure = fail("JSON_SYNTAX", "invalid unicode escape in a string", j);
        return -1;
      }
      if (unit < 0xd800 || unit > 0xdfff) {
        j += 6;
        continue;
      }
      // An escaped surrogate must be a high half immediately followed by an
      // escaped low half.
      const lo = unit <= 0xdbff && s.charCodeAt(j + 6) === 0x5c && s.charCodeAt(j + 7) === 0x75 ? hex4(s, j + 8) : -1;
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        j += 12;
        continue;
      }
      failure = fail("JSON_LONE_SURROGATE", `unpaired surrogate "\\u${s.slice(j + 2, j + 6)}" in a string`, j);
      return -1;
    }
    failure = e === -1 ? fail("JSON_SYNTAX", "unterminated string", i0) : fail("JSON_SYNTAX", `invalid escape: a backslash followed by ${describeChar(s, j + 1)} in a string`, j);
    return -1;
  }
}

/** Scans the number starting at `i`. Returns the index after it, or -1 with `failure` set. */
function scanNumber(s: string, i: number, n: number): number {
  const start = i;
  let c = s.charCodeAt(i);
  if (c === 0x2d) c = ++i < n ? s.charCodeAt(i) : -1;
  const intStart = i;
  if (c === 0x30) {
    c = ++i < n ? s.charCodeAt(i) : -1;
    if (c >= 0x30 && c <= 0x39) {
      failure = fail("JSON_SYNTAX", "leading zeros are not allowed in numbers", start);
      return -1;
    }
  } else if (c >= 0x31 && c <= 0x39) {
    c = ++i < n ? s.charCodeAt(i) : -1;
    while (c >= 0x30 && c <= 0x39) c = ++i < n ? s.charCodeAt(i) : -1;
  } else {
    failure = fail("JSON_SYNTAX", "invalid number", start);
    return -1;
  }
  const intDigits = i - intStart;
  if (c === 0x2e) {
    c = ++i < n ? s.charCodeAt(i) : -1;
    if (!(c >= 0x30 && c <= 0x39)) {
      failure = fail("JSON_SYNTAX", "invalid number: a digit must follow the decimal point", start);
      return -1;
    }
    while (c >= 0x30 && c <= 0x39) c = ++i < n ? s.charCodeAt(i) : -1;
  }
  if (c === 0x65 || c === 0x45) {
    c = ++i < n ? s.charCodeAt(i) : -1;
    if (c === 0x2b || c === 0x2d) c = ++i < n ? s.charCodeAt(i) : -1;
    if (!(c >= 0x30 && c <= 0x39)) {
      failure = fail("JSON_SYNTAX", "invalid number: a digit must follow the exponent", start);
      return -1;
    }
    while (c >= 0x30 && c <= 0x39) c = ++i < n ? s.charCodeAt(i) : -1;
  } else if (intDigits <= 308) {
    // Only an exponent or more than 308 integer digits can overflow a double.
    return i;
  }
  if (!Number.isFinite(Number(s.slice(start, i)))) {
    const text = i - start > 24 ? `${s.slice(start, start + 24)}…` : s.slice(start, i);
    failure = fail("JSON_NUMBER_OUT_OF_RANGE", `number ${text} is too large to represent`, start);
    return -1;
  }
  return i;
}

/** Records `key` in the object at `depth`; false when it was already there. */
function addKey(depth: number, key: string): boolean {
  const set = keySets[depth];
  if (set) {
    if (set.has(key)) return false;
    set.add(key);
    return true;
  }
  const list = keyLists[depth]!;
  for (let k = 0; k < list.length; k++) if (list[k] === key) return false;
  list.push(key);
  if (list.length > LINEAR_KEYS) keySets[depth] = new Set(list);
  return true;
}

/**
 * Scans the member key at `i` and its colon, in the object at `depth`.
 * Returns the index just after the colon, or -1 with `failure` set.
 */
function scanKey(s: string, i: number, n: number, depth: number, afterComma: boolean): number {
  if (i >= n || s.charCodeAt(i) !== 0x22) {
    failure = unexpectedKey(s, i, afterComma);
    return -1;
  }
  escaped = false;
  const end = scanString(s, i, n);
  if (end < 0) return -1;
  const key = escaped ? (JSON.parse(s.slice(i, end)) as string) : s.slice(i + 1, end - 1);
  if (!addKey(depth, key)) {
    failure = fail("JSON_DUPLICATE_KEY", `duplicate key ${describeKey(key)}`, i);
    return -1;
  }
  const j = skipWs(s, end, n);
  if (j < n && s.charCodeAt(j) === 0x3a) return j + 1;
  failure = j >= n || s.charCodeAt(j) === 0x2f ? unexpected(s, j) : fail("JSON_SYNTAX", `expected ":" after a key, found ${describeChar(s, j)}`, j);
  return -1;
}

/**
 * Scans `s` as one JSON text. Returns null when it is acceptable, or the first
 * refusal in document order.
 */
export function scanJson(s: string, maxDepth: number): ScanFailure | null {
  const n = s.length;
  if (kinds.length < maxDepth + 2) kinds = new Uint8Array(maxDepth + 2);
  failure = null;
  let depth = 0;
  let i = skipWs(s, 0, n);
  for (;;) {
    // A value starts at i.
    const c = i < n ? s.charCodeAt(i) : -1;
    if (c === 0x22) {
      i = scanString(s, i, n);
      if (i < 0) return failure;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return fail("JSON_TOO_DEEP", `nesting deeper than ${maxDepth} levels`, i);
      i = skipWs(s, i + 1, n);
      if (c === 0x5b) {
        kinds[depth] = ARRAY;
        if (i < n && s.charCodeAt(i) === 0x5d) {
          i++;
          depth--;
        } else {
          continue;
        }
      } else {
        kinds[depth] = OBJECT;
        if (i < n && s.charCodeAt(i) === 0x7d) {
          i++;
          depth--;
        } else {
          const list = keyLists[depth];
          if (list === undefined) keyLists[depth] = [];
          else list.length = 0;
          keySets[depth] = null;
          i = scanKey(s, i, n, depth, false);
          if (i < 0) return failure;
          i = skipWs(s, i, n);
          continue;
        }
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      i = scanNumber(s, i, n);
      if (i < 0) return failure;
    } else if (c === 0x74 && s.startsWith("true", i)) {
      i += 4;
    } else if (c === 0x66 && s.startsWith("false", i)) {
      i += 5;
    } else if (c === 0x6e && s.startsWith("null", i)) {
      i += 4;
    } else {
      return unexpected(s, i);
    }
    // After a value: close containers, or move on to the next element.
    for (;;) {
      i = skipWs(s, i, n);
      if (depth === 0) return i >= n ? null : unexpectedAfter(s, i, 0);
      const kind = kinds[depth]!;
      const d = i < n ? s.charCodeAt(i) : -1;
      if (d === 0x2c) {
        i = skipWs(s, i + 1, n);
        if (kind === OBJECT) {
          i = scanKey(s, i, n, depth, true);
          if (i < 0) return failure;
          i = skipWs(s, i, n);
        } else if (i < n && s.charCodeAt(i) === 0x5d) {
          return fail("JSON_SYNTAX", "trailing comma", i);
        }
        break;
      }
      if (d === (kind === ARRAY ? 0x5d : 0x7d)) {
        i++;
        depth--;
        continue;
      }
      return unexpectedAfter(s, i, kind);
    }
  }
}
