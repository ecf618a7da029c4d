/**
 * Output hygiene for everything model-facing (results, ToolError texts,
 * invalid content, previews, activity lines, tool descriptions): terminal
 * escape sequences are removed, control characters other than newline and
 * tab are replaced (U+FFFD; a lone carriage return becomes a newline, CRLF
 * becomes LF), and invisible formatting characters are removed, so a tool's
 * output cannot move an operator's cursor, retitle a terminal, hide text,
 * smuggle NULs into a prompt, reorder what a reader sees (the bidirectional
 * controls U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) or carry
 * text nobody sees (the tag characters U+E0000-U+E007F, the "ASCII
 * smuggling" of prompt injections). ZWJ and ZWNJ (U+200D, U+200C) stay:
 * emoji sequences and Indic and Persian scripts need them. What was cleaned
 * is counted.
 */
import type { JsonValue } from "../json/index.js";
import { mapStrings } from "./redact.js";

/** What cleaning did to a text. */
export interface CleanCount {
  escapes: number;
  controls: number;
  /** Bidirectional controls and tag characters removed. */
  invisible: number;
}

// Anything that needs a look: C0 controls but tab and newline, DEL, C1, the
// bidirectional controls, and the high surrogate of the tag block (U+E0000-U+E03FF: the loop looks closer).
// eslint-disable-next-line no-control-regex
const SUSPECT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\udb40]/;

/** The length (1, or 2 for a tag character's surrogate pair) of the invisible formatting character at `k`, or 0. */
function invisibleAt(text: string, k: number, c: number): number {
  if (c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return 1;
  if (c === 0xdb40) {
    const d = text.charCodeAt(k + 1);
    if (d >= 0xdc00 && d <= 0xdc7f) return 2;
  }
  return 0;
}

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
 * Where the terminal escape sequence that starts at `k` (ESC, or a C1 CSI,
 * OSC, DCS, SOS, PM or APC) ends, as cleaning removes it; -1 when none
 * starts there.
 */
export function escapeEnd(text: string, k: number): number {
  const c = text.charCodeAt(k);
  if (c === 0x9b) return skipCsi(text, k + 1);
  if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) return skipString(text, k + 1);
  if (c !== ESC) return -1;
  const d = text.charCodeAt(k + 1);
  if (d === 0x5b) return skipCsi(text, k + 2);
  if (d === 0x5d || d === 0x50 || d === 0x58 || d === 0x5e || d === 0x5f) return skipString(text, k + 2);
  if (d >= 0x20 && d <= 0x2f) {
    let next = k + 2;
    while (next < text.length && text.charCodeAt(next) >= 0x20 && text.charCodeAt(next) <= 0x2f) next++;
    if (next < text.length && text.charCodeAt(next) >= 0x30 && text.charCodeAt(next) <= 0x7e) next++;
    return next;
  }
  return d >= 0x30 && d <= 0x7e ? k + 2 : k + 1;
}

/**
 * A text with terminal escapes and invisible formatting characters removed
 * and control characters replaced, and how many of each. Text without any
 * comes back as it is.
 *
 * @example
 * ```ts
 * cleanText("\u001b[31mred\u001b[0m\u0007") // { text: "red\uFFFD", escapes: 2, controls: 1, invisible: 0 }
 * cleanText("invoice_\u202Efdp.exe") // { text: "invoice_fdp.exe", escapes: 0, controls: 0, invisible: 1 }
 * ```
 */
export function cleanText(text: string): { text: string } & CleanCount {
  if (!SUSPECT.test(text)) return { text, escapes: 0, controls: 0, invisible: 0 };
  let out = "";
  let from = 0;
  let escapes = 0;
  let controls = 0;
  let invisible = 0;
  for (let k = 0; k < text.length;) {
    const c = text.charCodeAt(k);
    if (c >= 0x20 && c < 0x7f) {
      k++;
      continue;
    }
    if (c > 0x9f) {
      const n = invisibleAt(text, k, c);
      if (n > 0) {
        out += text.slice(from, k);
        invisible++;
        from = k + n;
      }
      k += n > 0 ? n : 1;
      continue;
    }
    if (c === 0x09 || c === 0x0a) {
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
    } else if (c === ESC || c === 0x9b || c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) {
      next = escapeEnd(text, k);
      escapes++;
    } else {
      out += REPLACEMENT;
      controls++;
    }
    k = next;
    from = next;
  }
  return { text: out + text.slice(from), escapes, controls, invisible };
}

/** Whether a text has an invisible formatting character (a bidirectional control, a tag character). */
export function hasInvisible(text: string): boolean {
  if (!SUSPECT.test(text)) return false;
  for (let k = 0; k < text.length; k++) if (invisibleAt(text, k, text.charCodeAt(k)) > 0) return true;
  return false;
}

/** A fresh count. */
export const noCleaning = (): CleanCount => ({ escapes: 0, controls: 0, invisible: 0 });

/** Adds a text's cleaning to `count`; answers the cleaned text. */
export function cleanInto(text: string, count: CleanCount): string {
  const r = cleanText(text);
  count.escapes += r.escapes;
  count.controls += r.controls;
  count.invisible += r.invisible;
  return r.text;
}

/**
 * Every string of a JSON value cleaned, keys too (JSON escapes a key's
 * control characters, but not a bidirectional control or a tag character;
 * of two keys that clean alike, the later wins); the same value when
 * nothing changed.
 */
export function cleanJson(value: JsonValue, count: CleanCount): JsonValue {
  const f = (text: string): string => cleanInto(text, count);
  return mapStrings(value, f, f);
}

/** The count as the journal keeps it (`invisible` only when some were removed, so older observations keep their shape). */
export function cleaningOf(c: CleanCount): { escapes: number; controls: number; invisible?: number } {
  return { escapes: c.escapes, controls: c.controls, ...(c.invisible > 0 ? { invisible: c.invisible } : {}) };
}

/** The visible notice a cleaned text result carries. */
export function cleanedNotice(c: CleanCount): string {
  const parts: string[] = [];
  if (c.escapes > 0) parts.push(`${c.escapes} terminal escape sequence${c.escapes === 1 ? "" : "s"} removed`);
  if (c.controls > 0) parts.push(`${c.controls} control character${c.controls === 1 ? "" : "s"} replaced`);
  if (c.invisible > 0) parts.push(`${c.invisible} invisible formatting character${c.invisible === 1 ? "" : "s"} removed`);
  return `[Cleaned: ${parts.join(", ")}.]`;
}

/** Whether anything was cleaned. */
export const anyCleaned = (c: CleanCount): boolean => c.escapes > 0 || c.controls > 0 || c.invisible > 0;

/** A one-shot clean of a text that only needs the result (previews, activity lines). */
export const clean = (text: string): string => cleanText(text).text;
