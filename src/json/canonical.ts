import { IsoagentError, type IsoagentErrorCode } from "../errors.js";
import { decodeUtf8Fatal, encodeUtf8, sha256Bytes } from "../web.js";
import { canonicalBuffer, writeCanonical } from "./canonical-bytes.js";
import { sha256HexInPlace, sha256HexSync } from "./sha256.js";
import { MAX_JSON_DEPTH, type JsonValue } from "./parse.js";
import { isWellFormed } from "./well-formed.js";

/** The codes a value can be refused with when it is not usable JSON. */
export type JsonValueErrorCode = Extract<IsoagentErrorCode, "JSON_NOT_SERIALIZABLE" | "JSON_TOO_DEEP" | "JSON_LONE_SURROGATE">;

/**
 * A JavaScript value that is not usable JSON: `undefined`, a function, a
 * symbol, a BigInt, NaN or an infinity, a cycle, a string with an unpaired
 * surrogate, an object that is not a plain object or array, or nesting deeper
 * than 256. `path` is the JSON Pointer of the offending value.
 */
export class JsonValueError extends IsoagentError {
  declare readonly code: JsonValueErrorCode;
  readonly path: string;
  readonly reason: string;

  constructor(code: JsonValueErrorCode, reason: string, path: string) {
    super(code, `${reason} at ${path === "" ? "the root" : path}`);
    this.name = "JsonValueError";
    this.path = path;
    this.reason = reason;
  }
}

const pointerToken = (key: string | number): string => String(key).replace(/~/g, "~0").replace(/\//g, "~1");

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number") return String(value);
  if (typeof value === "bigint") return "a BigInt";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (Array.isArray(value)) return "an array";
  return `an object of class ${(value as object).constructor?.name ?? "unknown"}`;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Walks a value as JSON, calling `visit` hooks; throws {@link JsonValueError}
 * on the first thing that is not usable JSON. Shared by canonical JSON and
 * cloning so the two refuse exactly the same values.
 */
function walk<T>(
  value: unknown,
  path: string,
  depth: number,
  ancestors: Set<object>,
  emit: {
    scalar(v: null | boolean | number | string): T;
    array(items: T[]): T;
    object(keys: string[], values: T[]): T;
    sortKeys: boolean;
  },
): T {
  switch (typeof value) {
    case "boolean":
      return emit.scalar(value);
    case "number":
      if (!Number.isFinite(value)) throw new JsonValueError("JSON_NOT_SERIALIZABLE", `${describe(value)} is not a JSON number`, path);
      return emit.scalar(value);
    case "string":
      if (!isWellFormed(value)) throw new JsonValueError("JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON", path);
      return emit.scalar(value);
    case "object": {
      if (value === null) return emit.scalar(null);
      if (depth >= MAX_JSON_DEPTH) throw new JsonValueError("JSON_TOO_DEEP", `nesting deeper than ${MAX_JSON_DEPTH} levels`, path);
      if (ancestors.has(value)) throw new JsonValueError("JSON_NOT_SERIALIZABLE", "a cycle is not JSON", path);
      ancestors.add(value);
      let out: T;
      if (Array.isArray(value)) {
        const items: T[] = new Array<T>(value.length);
        for (let k = 0; k < value.length; k++) {
          if (!(k in value)) throw new JsonValueError("JSON_NOT_SERIALIZABLE", "an array hole is not JSON", `${path}/${k}`);
          items[k] = walk(value[k], `${path}/${k}`, depth + 1, ancestors, emit);
        }
        out = emit.array(items);
      } else {
        if (!isPlainObject(value)) throw new JsonValueError("JSON_NOT_SERIALIZABLE", `${describe(value)} is not JSON`, path);
        const keys = Object.keys(value);
        if (emit.sortKeys) keys.sort();
        const values: T[] = new Array<T>(keys.length);
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          const childPath = `${path}/${pointerToken(key)}`;
          if (!isWellFormed(key)) throw new JsonValueError("JSON_LONE_SURROGATE", "a key with an unpaired surrogate is not JSON", childPath);
          values[k] = walk((value as Record<string, unknown>)[key], childPath, depth + 1, ancestors, emit);
        }
        out = emit.object(keys, values);
      }
      ancestors.delete(value);
      return out;
    }
    default:
      throw new JsonValueError("JSON_NOT_SERIALIZABLE", `${describe(value)} is not JSON`, path);
  }
}

const canonicalEmit = {
  // RFC 8785 serialises numbers and strings exactly as ECMAScript's
  // JSON.stringify does (Number::toString, minimal escapes, lowercase \u00xx).
  scalar: (v: null | boolean | number | string): string => JSON.stringify(v),
  array: (items: string[]): string => `[${items.join(",")}]`,
  object: (keys: string[], values: string[]): string => {
    let s = "{";
    for (let k = 0; k < keys.length; k++) s += `${k === 0 ? "" : ","}${JSON.stringify(keys[k])}:${values[k]}`;
    return `${s}}`;
  },
  // Sorted by UTF-16 code units, which is what Array.prototype.sort does.
  sortKeys: true,
};

/**
 * The canonical JSON (RFC 8785, JCS) of a value: object keys sorted by UTF-16
 * code units, no whitespace, numbers and strings serialised as ECMAScript
 * does. Throws {@link JsonValueError} for anything that is not usable JSON;
 * `toJSON` methods are not called.
 *
 * @example
 * ```ts
 * canonicalJson({ b: [1e21, -0], a: "é" }) // '{"a":"é","b":[1e+21,0]}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  // The fast writer serialises plain JSON in one pass without paths; anything
  // it does not take goes through the full walk, which finds the first
  // problem and its JSON Pointer.
  const n = writeCanonical(value);
  return n >= 0 ? decodeUtf8Fatal(canonicalBuffer().subarray(0, n)) : walk(value, "", 0, new Set(), canonicalEmit);
}

const cloneEmit = {
  scalar: (v: null | boolean | number | string): JsonValue => (Object.is(v, -0) ? 0 : v),
  array: (items: JsonValue[]): JsonValue => items,
  object: (keys: string[], values: JsonValue[]): JsonValue => {
    const o: Record<string, JsonValue> = {};
    for (let k = 0; k < keys.length; k++) {
      // defineProperty, so that a "__proto__" key stays an own data property.
      Object.defineProperty(o, keys[k]!, { value: values[k], enumerable: true, writable: true, configurable: true });
    }
    return o;
  },
  sortKeys: false,
};

/**
 * A deep copy of `value` as plain JSON (key order kept), or a
 * {@link JsonValueError} thrown for anything canonical JSON would refuse.
 */
export function cloneJson(value: unknown): JsonValue {
  return walk(value, "", 0, new Set(), cloneEmit);
}

const hexDigits = "0123456789abcdef";

/** Lowercase hex of bytes. */
function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let k = 0; k < bytes.length; k++) s += hexDigits[bytes[k]! >> 4]! + hexDigits[bytes[k]! & 15]!;
  return s;
}

/**
 * SHA-256 of text (as UTF-8) or bytes, as 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * await sha256Hex("") // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  return toHex(await sha256Bytes(typeof input === "string" ? encodeUtf8(input) : input));
}

/**
 * SHA-256 of a value's canonical JSON (RFC 8785) as UTF-8, synchronously:
 * the same as `sha256HexSync(canonicalJson(value))`, and it throws what
 * canonicalJson throws. The bytes are hashed where they were written, never
 * made a string: the journal's hash chain and approval hashes use it.
 *
 * @example
 * ```ts
 * hashJsonSync({ b: 2, a: 1 }) === hashJsonSync({ a: 1, b: 2 }) // true
 * ```
 */
export function hashJsonSync(value: unknown): string {
  const n = writeCanonical(value, 72);
  return n >= 0 ? sha256HexInPlace(canonicalBuffer(), n) : sha256HexSync(walk(value, "", 0, new Set(), canonicalEmit));
}

/**
 * SHA-256 of a value's canonical JSON: the hash of approval requests and
 * journal events. Equal values hash equally whatever their key order.
 *
 * @example
 * ```ts
 * (await hashJson({ a: 1, b: 2 })) === (await hashJson({ b: 2, a: 1 })) // true
 * ```
 */
export async function hashJson(value: unknown): Promise<string> {
  return sha256Hex(canonicalJson(value));
}
