/**
 * The canonical JSON of a value written as UTF-8 straight into a buffer: the
 * one fast serialiser behind both `canonicalJson` (which decodes the bytes)
 * and `hashJsonSync` (which pads and hashes them in place). The hash chain
 * seals every journal event with it, where building a string, flattening it
 * and encoding it cost as much as the hash. Anything the writer does not take
 * (a value that is not plain JSON) is left to the full walk in canonical.ts,
 * which refuses it with the error and JSON Pointer it always gives.
 */
import { MAX_JSON_DEPTH } from "./parse.js";
import { wellFormed } from "./well-formed.js";
import { encodeUtf8, encodeUtf8Into } from "../web.js";

let buf = new Uint8Array(4096);
let pos = 0;
let busy = false;

/** Makes room for `need` more bytes. */
function room(need: number): void {
  if (pos + need <= buf.length) return;
  const next = new Uint8Array(Math.max(buf.length * 2, pos + need + 4096));
  next.set(buf.subarray(0, pos));
  buf = next;
}

/** Keys seen before, as the UTF-8 of `"key":`; null for a key with an unpaired surrogate. */
const keyBytes = new Map<string, Uint8Array | null>();

const HEX = "0123456789abcdef";
/** Strings longer than this go through JSON.stringify and the platform's encoder. */
const SHORT = 64;

/** Writes a string as JSON.stringify would, as UTF-8; false for an unpaired surrogate. */
function writeString(s: string): boolean {
  const len = s.length;
  if (len > SHORT) {
    if (!wellFormed(s)) return false;
    const quoted = JSON.stringify(s);
    room(quoted.length * 3);
    pos += encodeUtf8Into(quoted, buf.subarray(pos));
    return true;
  }
  room(len * 6 + 2);
  const b = buf;
  let p = pos;
  b[p++] = 34;
  for (let i = 0; i < len; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 34 && c !== 92) b[p++] = c;
      else {
        // The escapes JSON.stringify writes: \" \\ \b \f \n \r \t, else \u00xx in lowercase.
        b[p++] = 92;
        if (c === 34 || c === 92) b[p++] = c;
        else if (c === 8) b[p++] = 98;
        else if (c === 12) b[p++] = 102;
        else if (c === 10) b[p++] = 110;
        else if (c === 13) b[p++] = 114;
        else if (c === 9) b[p++] = 116;
        else {
          b[p++] = 117;
          b[p++] = 48;
          b[p++] = 48;
          b[p++] = HEX.charCodeAt(c >> 4);
          b[p++] = HEX.charCodeAt(c & 15);
        }
      }
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    } else {
      if (c > 0xdbff || i + 1 >= len) return false;
      const d = s.charCodeAt(i + 1);
      if (d < 0xdc00 || d > 0xdfff) return false;
      i++;
      c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      b[p++] = 0xf0 | (c >> 18);
      b[p++] = 0x80 | ((c >> 12) & 63);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    }
  }
  b[p++] = 34;
  pos = p;
  return true;
}

function writeAscii(s: string): void {
  room(s.length);
  for (let i = 0; i < s.length; i++) buf[pos++] = s.charCodeAt(i);
}

function writeByte(b: number): void {
  room(1);
  buf[pos++] = b;
}

/**
 * Sorts keys by UTF-16 code units, as `Array.prototype.sort` does: by
 * insertion when they are few (an event's or an argument's), which costs a
 * third less than the builtin's call for them.
 */
function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/** Writes the canonical JSON of plain, well-formed JSON; false for anything else. Depth bounds cycles. */
function write(v: unknown, depth: number): boolean {
  if (typeof v === "string") return writeString(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return false;
    writeAscii(String(v === 0 ? 0 : v));
    return true;
  }
  if (typeof v === "boolean") {
    writeAscii(v ? "true" : "false");
    return true;
  }
  if (typeof v !== "object") return false;
  if (v === null) {
    writeAscii("null");
    return true;
  }
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(v)) {
    writeByte(91);
    for (let k = 0; k < v.length; k++) {
      if (!(k in v)) return false;
      if (k > 0) writeByte(44);
      if (!write(v[k], depth + 1)) return false;
    }
    writeByte(93);
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(v);
  sortKeys(keys);
  writeByte(123);
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    let kb = keyBytes.get(key);
    if (kb === undefined) {
      kb = wellFormed(key) ? encodeUtf8(`${JSON.stringify(key)}:`) : null;
      if (keyBytes.size > 4096) keyBytes.clear();
      keyBytes.set(key, kb);
    }
    if (kb === null) return false;
    const kl = kb.length;
    room(kl + 1);
    const b = buf;
    let p = pos;
    if (k > 0) b[p++] = 44;
    // A key is short: a loop beats a call to TypedArray.prototype.set.
    for (let i = 0; i < kl; i++) b[p++] = kb[i]!;
    pos = p;
    if (!write((v as Record<string, unknown>)[key], depth + 1)) return false;
  }
  writeByte(125);
  return true;
}

/**
 * Writes the canonical JSON of `value` into the buffer and returns its
 * length, with at least `spare` bytes free after it; -1 when the value is not
 * plain, well-formed JSON (the caller takes the full walk), or when a getter
 * met on the way is itself being serialised (the buffer is not shared with
 * it). Read the bytes with {@link canonicalBuffer} before anything else
 * writes.
 */
export function writeCanonical(value: unknown, spare = 0): number {
  if (busy) return -1;
  busy = true;
  try {
    pos = 0;
    if (!write(value, 0)) return -1;
    const n = pos;
    room(spare);
    return n;
  } finally {
    busy = false;
    pos = 0;
  }
}

/** The buffer {@link writeCanonical} wrote into. */
export function canonicalBuffer(): Uint8Array {
  return buf;
}
