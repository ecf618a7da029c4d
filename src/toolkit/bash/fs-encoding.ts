/**
 * File content as just-bash hands it to the shell's filesystem (fs.ts) and
 * asks for it back: bytes, or a string in one of the encodings it passes
 * (utf8 by default, latin1/binary, base64, hex). The workspace keeps
 * bytes; these are the conversions both ways.
 */
import { base64Of, BASE64_ALPHABET } from "../../base64.js";
import { encodeUtf8, utf8StreamDecoder } from "../../web.js";
import type { JbEncoding as BufferEncoding } from "./just-bash.js";

/** What just-bash writes: a string (in an encoding) or bytes. */
export type FileContent = string | Uint8Array;

function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let n = 0;
  for (let k = 0; k + 1 < clean.length; k += 4) {
    const v = [0, 1, 2, 3].map((i) => (k + i < clean.length ? BASE64_ALPHABET.indexOf(clean[k + i]!) : 0));
    out[n++] = (v[0]! << 2) | (v[1]! >> 4);
    if (k + 2 < clean.length) out[n++] = ((v[1]! & 15) << 4) | (v[2]! >> 2);
    if (k + 3 < clean.length) out[n++] = ((v[2]! & 3) << 6) | v[3]!;
  }
  return out.subarray(0, n);
}

function decodeUtf8(bytes: Uint8Array): string {
  const d = utf8StreamDecoder();
  return d(bytes) + d();
}

/** Content as bytes: bytes as they are, a string in its encoding (UTF-8 when none is given). */
export function toBytes(content: FileContent, encoding: BufferEncoding | undefined): Uint8Array {
  if (content instanceof Uint8Array) return content;
  if (encoding === "binary" || encoding === "latin1") {
    const out = new Uint8Array(content.length);
    for (let k = 0; k < content.length; k++) out[k] = content.charCodeAt(k) & 0xff;
    return out;
  }
  if (encoding === "base64") return fromBase64(content);
  if (encoding === "hex") {
    const out = new Uint8Array(Math.floor(content.length / 2));
    for (let k = 0; k < out.length; k++) out[k] = parseInt(content.slice(2 * k, 2 * k + 2), 16);
    return out;
  }
  return encodeUtf8(content);
}

/** Bytes as a string in an encoding (UTF-8 when none is given). */
export function fromBytes(bytes: Uint8Array, encoding: BufferEncoding | null | undefined): string {
  if (encoding === "binary" || encoding === "latin1") {
    let out = "";
    for (let k = 0; k < bytes.length; k += 0x8000) out += String.fromCharCode(...bytes.subarray(k, k + 0x8000));
    return out;
  }
  if (encoding === "base64") return base64Of(bytes);
  if (encoding === "hex") return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return decodeUtf8(bytes);
}

/** The encoding an option names: given alone, or as `{ encoding }`. */
export const encodingOf = (o: { encoding?: BufferEncoding | null } | BufferEncoding | string | null | undefined): BufferEncoding | undefined =>
  o === null || o === undefined ? undefined : typeof o === "string" ? (o as BufferEncoding) : (o.encoding ?? undefined);
