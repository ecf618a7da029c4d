/**
 * Text helpers the workspace tools share: decoding, binary detection,
 * line counting, diff statistics, and the output limits.
 */
import { decodeUtf8Fatal, encodeUtf8, utf8StreamDecoder } from "../web.js";

/** Lines read_file shows per call, at most. */
export const TEXT_MAX_LINES = 2000;
/** Bytes read_file shows per call, at most (whole lines). */
export const TEXT_MAX_BYTES = 64 * 1024;
/** Characters of one line shown before it is cut. */
export const LINE_MAX_CHARS = 2000;
/** The largest file a tool writes. */
export const FILE_MAX_BYTES = 1024 * 1024;

/** Whether bytes look binary: a NUL in the first 8,000 bytes. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8000);
  for (let k = 0; k < n; k++) if (bytes[k] === 0) return true;
  return false;
}

/** The text of UTF-8 bytes; invalid bytes become U+FFFD, and `valid` says whether there were any. */
export function decodeText(bytes: Uint8Array): { text: string; valid: boolean } {
  try {
    return { text: decodeUtf8Fatal(bytes), valid: true };
  } catch {
    const d = utf8StreamDecoder();
    return { text: d(bytes) + d(), valid: false };
  }
}

export const encodeText = encodeUtf8;

/** Lines of a text, without their terminators ("" has none; a final newline ends the last line, it does not start one). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** "1 line", "3 lines" (with thousands separators). */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} ${n === 1 ? one : many}`;
}

/** Lines added and removed by a {@link lineDiff} output (a unified diff: its two header lines skipped). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of diff.split("\n").slice(2)) {
    if (l.startsWith("+")) added++;
    else if (l.startsWith("-")) removed++;
  }
  return { added, removed };
}

/** The end-of-line a text uses: CRLF when it has any, else LF. */
export function eolOf(text: string): "\r\n" | "\n" {
  return text.includes("\r\n") ? "\r\n" : "\n";
}
