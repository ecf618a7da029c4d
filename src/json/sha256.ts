/**
 * SHA-256 in plain TypeScript, synchronous. The journal's hash chain seals
 * every event as it is appended; doing that through `crypto.subtle` would put
 * a promise (and, in browsers, a secure-context requirement) on the hot path
 * of every step. Checked against `crypto.subtle` by the tests.
 */
import { encodeUtf8Into } from "../web.js";

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Int32Array(64);
/** "00".."ff", for the digest's hex. */
const HEX2: string[] = Array.from({ length: 256 }, (_, k) => (k < 16 ? "0" : "") + k.toString(16));
/** A scratch buffer for padding, grown as needed (the hash chain hashes many small texts). */
let scratch = new Uint8Array(1024);

/** SHA-256 of bytes, as 64 lowercase hex digits. */
function sha256HexSyncBytes(data: Uint8Array): string {
  const n = data.length;
  const blocks = paddedLength(n);
  if (scratch.length < blocks) scratch = new Uint8Array(Math.max(blocks, scratch.length * 2));
  scratch.set(data);
  return sha256HexInPlace(scratch, n);
}

/** The length of `n` bytes once padded: what a buffer given to {@link sha256HexInPlace} must hold. */
export const paddedLength = (n: number): number => ((n + 9 + 63) >>> 6) << 6;

/**
 * SHA-256 of the first `n` bytes of `buf`, as 64 lowercase hex digits. The
 * padding is written in place after them: `buf` must hold
 * {@link paddedLength}(n) bytes.
 */
export function sha256HexInPlace(buf: Uint8Array, n: number): string {
  const blocks = paddedLength(n);
  buf.fill(0, n, blocks);
  buf[n] = 0x80;
  // Length in bits, big-endian, in the last 8 bytes (n < 2^53).
  const hi = Math.floor(n / 0x20000000);
  const lo = (n << 3) >>> 0;
  buf[blocks - 8] = hi >>> 24;
  buf[blocks - 7] = hi >>> 16;
  buf[blocks - 6] = hi >>> 8;
  buf[blocks - 5] = hi;
  buf[blocks - 4] = lo >>> 24;
  buf[blocks - 3] = lo >>> 16;
  buf[blocks - 2] = lo >>> 8;
  buf[blocks - 1] = lo;
  let h0 = 0x6a09e667 | 0,
    h1 = 0xbb67ae85 | 0,
    h2 = 0x3c6ef372 | 0,
    h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0,
    h5 = 0x9b05688c | 0,
    h6 = 0x1f83d9ab | 0,
    h7 = 0x5be0cd19 | 0;
  for (let off = 0; off < blocks; off += 64) {
    for (let t = 0; t < 16; t++) {
      const i = off + (t << 2);
      W[t] = (buf[i]! << 24) | (buf[i + 1]! << 16) | (buf[i + 2]! << 8) | buf[i + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const a = W[t - 15]!,
        b = W[t - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
    }
    let a = h0,
      b = h1,
      c = h2,
      d = h3,
      e = h4,
      f = h5,
      g = h6,
      h = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[t]! + W[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  return hexWord(h0) + hexWord(h1) + hexWord(h2) + hexWord(h3) + hexWord(h4) + hexWord(h5) + hexWord(h6) + hexWord(h7);
}

const hexWord = (w: number): string => HEX2[(w >>> 24) & 255]! + HEX2[(w >>> 16) & 255]! + HEX2[(w >>> 8) & 255]! + HEX2[w & 255]!;

/** SHA-256 of text (as UTF-8) or bytes, synchronously, as 64 lowercase hex digits. */
export function sha256HexSync(input: string | Uint8Array): string {
  if (typeof input !== "string") return sha256HexSyncBytes(input);
  // Encoded straight into the scratch buffer: no copy, no garbage.
  const room = input.length * 3 + 72;
  if (scratch.length < room) scratch = new Uint8Array(Math.max(room, scratch.length * 2));
  const n = encodeUtf8Into(input, scratch);
  return sha256HexInPlace(scratch, n);
}
