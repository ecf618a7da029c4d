import { decodeUtf8Fatal } from "../web.js";
import { JsonBoundaryError, type JsonPosition } from "./errors.js";
import { scanJson, type ScanFailure } from "./scan.js";
import { fastCheckParsed } from "./fast-check.js";
import { firstInvalidUtf8, utf8Length } from "./utf8.js";
import { wellFormed } from "./well-formed.js";

/** The deepest nesting the boundary accepts: 256 arrays or objects. */
export const MAX_JSON_DEPTH = 256;

/** A JSON value as the strict parser returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Options of the strict parser. */
export interface ParseJsonOptions {
  /** Deepest nesting accepted, at most (and by default) {@link MAX_JSON_DEPTH}. */
  readonly maxDepth?: number;
}

/** The outcome of {@link tryParseJson}: the value, or why it was refused. */
export type JsonParseResult = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: JsonBoundaryError };

/**
 * Parses one JSON text strictly, returning the refusal as data.
 *
 * Refused: anything RFC 8259 refuses (trailing commas, comments, NaN, leading
 * zeros, single quotes, control characters in strings, a byte order mark, ...),
 * nesting deeper than 256, invalid UTF-8 (for bytes), an unpaired surrogate
 * (escaped like `"\ud800"`, or raw in a string), a repeated object key, and a
 * number too large to be finite. Each refusal is a {@link JsonBoundaryError}
 * with a stable `code`, a stable message and its position.
 *
 * @example
 * ```ts
 * const r = tryParseJson('{"a":1,"a":2}')
 * // r.ok === false, r.error.code === "JSON_DUPLICATE_KEY",
 * // r.error.message === 'duplicate key "a" at line 1, column 8'
 * ```
 */
export function tryParseJson(input: string | Uint8Array, options?: ParseJsonOptions): JsonParseResult {
  const maxDepth = depthOption(options);
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    try {
      text = decodeUtf8Fatal(input);
    } catch {
      const bad = firstInvalidUtf8(input);
      const prefix = decodeUtf8Fatal(input.subarray(0, bad.offset));
      return { ok: false, error: new JsonBoundaryError("JSON_INVALID_UTF8", bad.reason, positionIn(prefix, prefix.length, bad.offset)) };
    }
  }
  // The common case first: the platform parser checks the grammar and builds
  // the value; a linear pass then checks what it does not. Only a refusal pays
  // for the full scanner, which finds the first problem in document order and
  // says where it is.
  const value = accepted(text, maxDepth, typeof input === "string");
  if (value !== undefined) return { ok: true, value };
  const failure = scanJson(text, maxDepth);
  if (failure === null) throw new Error("isoagent: the strict JSON scanners disagree; please report this input");
  return { ok: false, error: toError(text, failure, typeof input !== "string") };
}

/** The value of a text the boundary accepts, or undefined (its reason is then the full scanner's to find). */
function accepted(text: string, maxDepth: number, checkSurrogates: boolean): JsonValue | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  return fastCheckParsed(text, maxDepth, value) && (!checkSurrogates || wellFormed(text)) ? value : undefined;
}

/**
 * @internal The value of a JSON text {@link tryParseJson} accepts, or
 * undefined when it refuses it (ask it why): the argument check's hot path,
 * without the result object.
 */
export function acceptedJson(text: string): JsonValue | undefined {
  return accepted(text, MAX_JSON_DEPTH, true);
}

/**
 * Parses one JSON text strictly (see {@link tryParseJson} for what is
 * refused), throwing a {@link JsonBoundaryError} on refusal.
 *
 * @example
 * ```ts
 * parseJson(new TextEncoder().encode('{"path":"notes.md"}')) // { path: "notes.md" }
 * parseJson("[1,]") // throws: trailing comma at line 1, column 4
 * ```
 */
export function parseJson(input: string | Uint8Array, options?: ParseJsonOptions): JsonValue {
  const r = tryParseJson(input, options);
  if (!r.ok) throw r.error;
  return r.value;
}

function depthOption(options: ParseJsonOptions | undefined): number {
  const d = options?.maxDepth;
  if (d === undefined) return MAX_JSON_DEPTH;
  if (!Number.isInteger(d) || d < 0 || d > MAX_JSON_DEPTH) {
    throw new RangeError(`maxDepth must be an integer from 0 to ${MAX_JSON_DEPTH}`);
  }
  return d;
}

function toError(text: string, f: ScanFailure, fromBytes: boolean): JsonBoundaryError {
  const offset = fromBytes ? utf8Length(text, f.at) : f.at;
  return new JsonBoundaryError(f.code, f.reason, positionIn(text, f.at, offset));
}

/** The line and column of code unit `at` in `text`, with `offset` reported as given. */
function positionIn(text: string, at: number, offset: number): JsonPosition {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf("\n"); k !== -1 && k < at; k = text.indexOf("\n", k + 1)) {
    line++;
    lineStart = k + 1;
  }
  let column = 1;
  for (let k = lineStart; k < at; k++) {
    const u = text.charCodeAt(k);
    // A surrogate pair is one character.
    if (!(u >= 0xdc00 && u <= 0xdfff && k > lineStart && isHigh(text.charCodeAt(k - 1)))) column++;
  }
  return { offset, line, column };
}

function isHigh(u: number): boolean {
  return u >= 0xd800 && u <= 0xdbff;
}
