/**
 * The fast check of the strict JSON boundary, for text that `JSON.parse`
 * has already accepted (the common case): one linear pass for what the
 * platform parser does not check (depth, repeated keys, escaped unpaired
 * surrogates, numbers too large to be finite), then a count of the parsed
 * value's members (members.ts). Only a refusal pays for the full scanner
 * (scan.ts), which finds the first problem in document order and says
 * where it is.
 */
import { hex4 } from "./scan.js";
import { members } from "./members.js";

/**
 * The fast check, for text that `JSON.parse` has already accepted (so the
 * grammar is known good) into `value`: true when the text also passes every
 * rule the strict boundary adds that the platform parser does not check:
 * depth, repeated keys, escaped unpaired surrogates and numbers too large to
 * be finite. Raw unpaired surrogates are the caller's to check (`isWellFormed`).
 *
 * A repeated key is found by counting, not by remembering keys: the parser
 * keeps one member per distinct key, so the value has fewer members than
 * the text has colons outside strings exactly when a key repeats.
 *
 * String bodies are skipped with `indexOf`, which runs at memchr speed; the
 * next backslash and the next quote are searched for once each and reused, so
 * the whole check is linear in the text.
 */
export function fastCheckParsed(s: string, maxDepth: number, value: unknown): boolean {
  const n = s.length;
  let depth = 0;
  let colons = 0;
  let bs = s.indexOf("\\");
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      let q = s.indexOf('"', j);
      while (bs !== -1 && bs < q) {
        if (s.charCodeAt(bs + 1) === 0x75) {
          const unit = hex4(s, bs + 2);
          if (unit >= 0xd800 && unit <= 0xdfff) {
            const lo = unit <= 0xdbff && s.charCodeAt(bs + 6) === 0x5c && s.charCodeAt(bs + 7) === 0x75 ? hex4(s, bs + 8) : -1;
            if (lo < 0xdc00 || lo > 0xdfff) return false;
            j = bs + 12;
          } else {
            j = bs + 6;
          }
        } else {
          j = bs + 2;
        }
        if (j > q) q = s.indexOf('"', j);
        bs = s.indexOf("\\", j);
      }
      i = q + 1;
      continue;
    }
    if (c === 0x3a) {
      colons++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return false;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      let big = false;
      let k = i + 1;
      for (; k < n; k++) {
        const d = s.charCodeAt(k);
        if (d >= 0x30 && d <= 0x39) continue;
        if (d === 0x2e || d === 0x2b || d === 0x2d) continue;
        if (d === 0x65 || d === 0x45) {
          big = true;
          continue;
        }
        break;
      }
      // Only an exponent or more than 308 digits can overflow a double.
      if ((big || k - start > 308) && !Number.isFinite(Number(s.slice(start, k)))) return false;
      i = k;
      continue;
    }
    i++;
  }
  return colons === 0 || members(value) === colons;
}
