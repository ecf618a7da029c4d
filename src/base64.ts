/**
 * Base64 (RFC 4648, standard alphabet, padded) of a few bytes, written once
 * for the core: the gate keeps a result that is not UTF-8 as base64, and
 * the shell's filesystem writes a file in base64 when a command asks for
 * it. A run bundle's artifacts, megabytes at a time, have their own encoder
 * and strict decoder (src/move/base64.ts), built for throughput; the
 * decoders of MCP content and of the shell read leniently, each as its
 * protocol says.
 */

/** The standard alphabet (RFC 4648, section 4). */
export const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Bytes as padded base64. */
export function base64Of(bytes: Uint8Array): string {
  let out = "";
  for (let k = 0; k < bytes.length; k += 3) {
    const a = bytes[k]!,
      b = bytes[k + 1],
      c = bytes[k + 2];
    out += BASE64_ALPHABET[a >> 2]! + BASE64_ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? "=" : BASE64_ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? "=" : BASE64_ALPHABET[c & 63]!;
  }
  return out;
}
