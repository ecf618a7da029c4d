/**
 * Base64 (RFC 4648, standard alphabet, padded) for artifact bytes in a
 * bundle. Decoding is strict: only the canonical encoding of some bytes is
 * accepted (each artifact's SHA-256 is checked after anyway).
 */
import { BASE64_ALPHABET } from "../base64.js";
import { decodeUtf8Fatal, encodeUtf8 } from "../web.js";

let index: Int16Array | undefined;

let alphabetBytes: Uint8Array | undefined;

/** Bytes as base64: written as ASCII bytes and decoded once (no array of char codes, no string per chunk). */
export function toBase64(bytes: Uint8Array): string {
  const table = (alphabetBytes ??= encodeUtf8(BASE64_ALPHABET));
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  const full = n - (n % 3);
  let o = 0;
  for (let k = 0; k < full; k += 3) {
    const v = (bytes[k]! << 16) | (bytes[k + 1]! << 8) | bytes[k + 2]!;
    out[o++] = table[v >> 18]!;
    out[o++] = table[(v >> 12) & 63]!;
    out[o++] = table[(v >> 6) & 63]!;
    out[o++] = table[v & 63]!;
  }
  if (full < n) {
    const a = bytes[full]!;
    const b = full + 1 < n ? bytes[full + 1]! : -1;
    out[o++] = table[a >> 2]!;
    out[o++] = table[((a & 3) << 4) | (b < 0 ? 0 : b >> 4)]!;
    out[o++] = b < 0 ? 61 : table[(b & 15) << 2]!;
    out[o++] = 61;
  }
  return decodeUtf8Fatal(out);
}

/** Base64 to bytes; undefined when `text` is not the canonical padded encoding of some bytes. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (index === undefined) {
    index = new Int16Array(256).fill(-1);
    for (let k = 0; k < 64; k++) index[BASE64_ALPHABET.charCodeAt(k)] = k;
  }
  const table = index;
  const n = text.length;
  if (n % 4 !== 0) return undefined;
  const pad = n > 0 && text.charCodeAt(n - 1) === 61 ? (text.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const out = new Uint8Array((n / 4) * 3 - pad);
  const at = (k: number): number => {
    const ch = text.charCodeAt(k);
    return ch < 256 ? table[ch]! : -1;
  };
  let o = 0;
  const full = pad === 0 ? n : n - 4;
  for (let k = 0; k < full; k += 4) {
    const a = at(k),
      b = at(k + 1),
      c = at(k + 2),
      d = at(k + 3);
    if ((a | b | c | d) < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  if (pad > 0) {
    const a = at(n - 4),
      b = at(n - 3),
      c = pad === 1 ? at(n - 2) : 0;
    // Canonical: the bits the padding leaves over are zero.
    if ((a | b | c) < 0 || (pad === 2 ? b & 15 : c & 3) !== 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    if (pad === 1) out[o++] = ((b & 15) << 4) | (c >> 2);
  }
  return out;
}
