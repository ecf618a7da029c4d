/**
 * Output hygiene for everything model-facing (results, ToolError texts,
 * invalid content, previews, activity lines): terminal escape sequences are
 * removed, and control characters other than newline and tab are replaced
 * (U+FFFD; a lone carriage return becomes a newline, CRLF becomes LF), so a
 * tool's output cannot move an operator's cursor, retitle a terminal, hide
 * text, or smuggle NULs into a prompt. What was cleaned is counted.
 */
import type { JsonValue } from "../json/index.js";
import { mapStrings } from "./redact.js";

/** What cleaning did to a text. */
export interface CleanCount {
  escapes: number;
  controls: number;
}

// Anything that needs a look: C0 controls but tab and newline, DEL, C1.
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const ESC = 0x1b;
const BEL = 0x07;
const REPLACEMENT = "\uFFFD";

/** Skips a control string (OSC, DCS, SOS, PM, APC) from `k`, to its terminator (BEL, ESC \ or ST) or the end. */
function skipString(text: string, k: number): number {
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === BEL || c === 0x9c) return k + 1;
    if (c === ESC && text.charCodeAt(k + 1) === 0x5c) return k + 2;
  }
  return k;
}

/** Skips a CSI sequence's parameters, intermediates and final byte from `k`. */
function skipCsi(text: string, k: number): number {
  while (k < text.length && text.charCodeAt(k) >= 0x30 && text.charCodeAt(k) <= 0x3f) k++;
  while (k < text.length && text.charCodeAt(k) >= 0x20 && text.charCodeAt(k) <= 0x2f) k++;
  if (k < text.length && text.charCodeAt(k) >= 0x40 && text.charCodeAt(k) <= 0x7e) k++;
  return k;
}

/**
 * A text with terminal escapes removed and control characters replaced, and
 * how many of each. Text without any comes back as it is.
 *
 * @example
 * ```ts
 * cleanText("\u001b[31mred\u001b[0m\u0007") // { text: "red\uFFFD", escapes: 2, controls: 1 }
 * ```
 */
export function cleanText(text: string): { text: string } & CleanCount {
  if (!SUSPECT.test(text)) return { text, escapes: 0, controls: 0 };
  let out = "";
  let from = 0;
  let escapes = 0;
  let controls = 0;
  for (let k = 0; k < text.length; ) {
    const c = text.charCodeAt(k);
    if (c >= 0x20 && c < 0x7f) {
      k++;
      continue;
    }
    if (c === 0x09 || c === 0x0a || c > 0x9f) {
      k++;
      continue;
    }
    out += text.slice(from, k);
    let next = k + 1;
    if (c === 0x0d) {
      // CRLF is a line end; a lone CR (a progress line redrawn) becomes one.
      if (text.charCodeAt(k + 1) !== 0x0a) {
        out += "\n";
        controls++;
      }
    } else if (c === ESC) {
      const d = text.charCodeAt(k + 1);
      if (d === 0x5b) next = skipCsi(text, k + 2);
      else if (d === 0x5d || d === 0x50 || d === 0x58 || d === 0x5e || d === 0x5f) next = skipString(text, k + 2);
      else if (d >= 0x20 && d <= 0x2f) {
        next = k + 2;
        while (next < text.length && text.charCodeAt(next) >= 0x20 && text.charCodeAt(next) <= 0x2f) next++;
        if (next < text.length && text.charCodeAt(next) >= 0x30 && text.charCodeAt(next) <= 0x7e) next++;
      } else if (d >= 0x30 && d <= 0x7e) next = k + 2;
      escapes++;
    } else if (c === 0x9b) {
      next = skipCsi(text, k + 1);
      escapes++;
    } else if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
      next = skipString(text, k + 1);
      escapes++;
    } else {
      out += REPLACEMENT;
      controls++;
    }
    k = next;
    from = next;
  }
  return { text: out + text.slice(from), escapes, controls };
}

/** Every string value of a JSON value cleaned (keys are left: they reach the model JSON-escaped); the same value when nothing changed. */
export function cleanJson(value: JsonValue, count: CleanCount): JsonValue {
  return mapStrings(value, (text) => {
    const r = cleanText(text);
    count.escapes += r.escapes;
    count.controls += r.controls;
    return r.text;
  });
}

/** The visible notice a cleaned text result carries. */
export function cleanedNotice(c: CleanCount): string {
  const parts: string[] = [];
  if (c.escapes > 0) parts.push(`${c.escapes} terminal escape sequence${c.escapes === 1 ? "" : "s"} removed`);
  if (c.controls > 0) parts.push(`${c.controls} control character${c.controls === 1 ? "" : "s"} replaced`);
  return `[Cleaned: ${parts.join(", ")}.]`;
}

/** Whether anything was cleaned. */
export const anyCleaned = (c: CleanCount): boolean => c.escapes > 0 || c.controls > 0;

/** A one-shot clean of a text that only needs the result (previews, activity lines). */
export const clean = (text: string): string => cleanText(text).text;
