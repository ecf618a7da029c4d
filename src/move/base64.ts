/**
 * Base64 (RFC 4648, standard alphabet, padded) for artifact bytes in a
 * bundle. Decoding is strict: only the canonical encoding of some bytes is
 * accepted (each artifact's SHA-256 is checked after anyway).
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
let index: Int16Array | undefined;

/** Bytes as base64. */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  // Chunks keep each String.fromCharCode call's arguments bounded.
  for (let start = 0; start < bytes.length; start += 24_576) {
    const end = Math.min(bytes.length, start + 24_576);
    const codes: number[] = [];
    for (let k = start; k < end; k += 3) {
      const a = bytes[k]!;
      const b = k + 1 < end ? bytes[k + 1]! : -1;
      const c = k + 2 < end ? bytes[k + 2]! : -1;
      codes.push(ALPHABET.charCodeAt(a >> 2), ALPHABET.charCodeAt(((a & 3) << 4) | (b < 0 ? 0 : b >> 4)));
      codes.push(b < 0 ? 61 : ALPHABET.charCodeAt(((b & 15) << 2) | (c < 0 ? 0 : c >> 6)), c < 0 ? 61 : ALPHABET.charCodeAt(c & 63));
    }
    parts.push(String.fromCharCode(...codes));
  }
  return parts.join("");
}

/** Base64 to bytes; undefined when `text` is not the canonical padded encoding of some bytes. */
export function fromBase64(text: string): Uint8Array | undefined {
  if (index === undefined) {
    index = new Int16Array(256).fill(-1);
    for (let k = 0; k < 64; k++) index[ALPHABET.charCodeAt(k)] = k;
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
    const a = at(k), b = at(k + 1), c = at(k + 2), d = at(k + 3);
    if ((a | b | c | d) < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  if (pad > 0) {
    const a = at(n - 4), b = at(n - 3), c = pad === 1 ? at(n - 2) : 0;
    // Canonical: the bits the padding leaves over are zero.
    if ((a | b | c) < 0 || (pad === 2 ? b & 15 : c & 3) !== 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    if (pad === 1) out[o++] = ((b & 15) << 4) | (c >> 2);
  }
  return out;
}
