/**
 * How a command's output is shown to the model: stdout and stderr each
 * under its label, each capped at {@link BASH_MAX_LINES} lines and
 * {@link BASH_MAX_BYTES} bytes (both limits apply: whichever leaves less
 * wins), cut at the end the strategy keeps (the tail by default) with a
 * visible notice that gives the exact counts and the artifact holding the
 * full stream. Binary output is not shown, only described. Control
 * characters and terminal escapes are left for the driver's output hygiene,
 * which cleans (and counts) every result once.
 */
import { cutUtf8 } from "../../call/projection.js";
import { encodeUtf8 } from "../../web.js";
import { count } from "../text.js";

/** Lines of one stream (stdout or stderr) shown, at most. */
export const BASH_MAX_LINES = 1000;
/** Bytes (UTF-8) of one stream shown, at most. */
export const BASH_MAX_BYTES = 24 * 1024;

export interface OutputOptions {
  readonly maxLines: number;
  readonly maxBytes: number;
  readonly strategy: "head" | "tail";
  /** Keeps bytes as an artifact; returns its SHA-256, or undefined when nothing keeps artifacts. */
  readonly keep: (bytes: Uint8Array) => Promise<string | undefined>;
}

/** Whether a stream is binary data rather than text: a NUL, or more than 1 in 10 of its first 8,000 characters are control characters other than tab, line ends, form feed, backspace and escape. */
export function looksBinaryText(text: string): boolean {
  const n = Math.min(text.length, 8000);
  let odd = 0;
  for (let k = 0; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c === 0) return true;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x08 && c !== 0x0b && c !== 0x1b) || (c >= 0x7f && c <= 0x9f)) odd++;
  }
  return n > 0 && odd * 10 > n;
}

/** A stream's bytes: a byte string (every character a byte) as it is, anything else as UTF-8. */
export function streamBytes(text: string, binary: boolean): Uint8Array {
  if (binary) {
    let bytewise = true;
    for (let k = 0; k < text.length && bytewise; k++) if (text.charCodeAt(k) > 0xff) bytewise = false;
    if (bytewise) {
      const out = new Uint8Array(text.length);
      for (let k = 0; k < text.length; k++) out[k] = text.charCodeAt(k);
      return out;
    }
  }
  return encodeUtf8(text);
}

/** The last (or first) `max` lines of a text, and how many lines it has. A final newline ends the last line. */
function byLines(text: string, max: number, from: "head" | "tail"): { text: string; total: number; shown: number } {
  let total = 0;
  for (let k = text.indexOf("\n"); k >= 0; k = text.indexOf("\n", k + 1)) total++;
  if (text !== "" && !text.endsWith("\n")) total++;
  if (total <= max) return { text, total, shown: total };
  if (from === "head") {
    let at = -1;
    for (let n = 0; n < max; n++) at = text.indexOf("\n", at + 1);
    return { text: text.slice(0, at + 1), total, shown: max };
  }
  let at = text.endsWith("\n") ? text.length - 1 : text.length;
  for (let n = 0; n < max; n++) at = text.lastIndexOf("\n", at - 1);
  return { text: text.slice(at + 1), total, shown: max };
}

/** UTF-8 size of a text without encoding it. */
function sizeOf(text: string): number {
  let n = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < text.length) {
      n += 4;
      k++;
    } else n += 3;
  }
  return n;
}

/**
 * One stream's section: its label, then its text (or "(empty)"), cut with
 * a notice when it is over a limit, or described when it is binary.
 *
 * @example
 * ```ts
 * await showStream("stdout", "hello\n", options) // ["--- stdout ---", "hello"]
 * ```
 */
export async function showStream(name: "stdout" | "stderr", text: string, o: OutputOptions): Promise<string[]> {
  const label = `--- ${name} ---`;
  if (text === "") return [label, "(empty)"];
  const where = (sha: string | undefined): string => (sha === undefined ? "the rest was not kept" : `the full ${name} is artifact sha256:${sha}`);
  if (looksBinaryText(text)) {
    const bytes = streamBytes(text, true);
    const sha = await o.keep(bytes);
    return [label, `[${name} is binary data (${count(bytes.length, "byte")}), not shown; ${sha === undefined ? "it was not kept" : `it is artifact sha256:${sha}`}.]`];
  }
  const lines = byLines(text, o.maxLines, o.strategy);
  const totalBytes = sizeOf(text);
  const cut = cutUtf8(lines.text, o.maxBytes, o.strategy);
  const shownText = cut.text;
  if (lines.shown === lines.total && cut.bytes === sizeOf(lines.text)) return [label, text.endsWith("\n") ? text.slice(0, -1) : text];
  const shownLines = byLines(shownText, Number.MAX_SAFE_INTEGER, o.strategy).total;
  const sha = await o.keep(encodeUtf8(text));
  const which = o.strategy === "tail" ? "last" : "first";
  const n = (x: number): string => String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const notice = `[${name} cut: showing the ${which} ${n(shownLines)} of ${count(lines.total, "line")} (${n(cut.bytes)} of ${count(totalBytes, "byte")}); ${where(sha)}]`;
  const body = shownText.endsWith("\n") ? shownText.slice(0, -1) : shownText;
  return o.strategy === "tail" ? [label, notice, body] : [label, body, notice];
}
