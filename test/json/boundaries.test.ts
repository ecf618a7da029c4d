/**
 * Every edge of the surrogate ranges and of UTF-8's lead bytes, against the
 * platform as the reference (issue 21: mutants at these comparisons, `<` for
 * `<=` at 0xDBFF, 0xDC00, 0xDFFF, survived; every test sat away from the
 * edges). Random strings are drawn from an alphabet of the edge code units
 * (and edge code points for bytes), so each comparison meets both sides of
 * its bound many times.
 */
import { describe, expect, it } from "vitest";
import { rng } from "../helpers/rng.js";
import { isIsoagentError } from "../../src/index.js";
import { canonicalJson, hashJsonSync, isWellFormed, sha256HexSync, tryParseJson } from "../../src/json/index.js";
import { canonicalBuffer, writeCanonical } from "../../src/json/canonical-bytes.js";
import { utf8Length } from "../../src/json/utf8.js";

const CASES = 3_000;
// Code units at both sides of every bound the JSON code compares against;
// no '"', '\\' or control character, so that a string is its own raw JSON text.
const UNITS = [0x41, 0x7e, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xd801, 0xdbfe, 0xdbff, 0xdc00, 0xdc01, 0xdffe, 0xdfff, 0xe000, 0xfffd, 0xffff];
const platformWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
const enc = new TextEncoder();

function randomString(next: () => number): string {
  const n = Math.floor(next() * 7);
  let s = "";
  for (let k = 0; k < n; k++) s += String.fromCharCode(UNITS[Math.floor(next() * UNITS.length)]!);
  return s;
}

/** Index of the first unpaired surrogate of `s`, or -1. */
function firstUnpaired(s: string): number {
  for (let k = 0; k < s.length; k++) {
    const u = s.charCodeAt(k);
    if (u >= 0xd800 && u <= 0xdbff && k + 1 < s.length) {
      const v = s.charCodeAt(k + 1);
      if (v >= 0xdc00 && v <= 0xdfff) {
        k++;
        continue;
      }
    }
    if (u >= 0xd800 && u <= 0xdfff) return k;
  }
  return -1;
}

const hex4 = (u: number): string => u.toString(16).padStart(4, "0");

describe("surrogates at their bounds (random strings of edge code units)", () => {
  it("isWellFormed agrees with the platform's String.prototype.isWellFormed", () => {
    const next = rng(2101);
    for (let c = 0; c < CASES; c++) {
      const s = randomString(next);
      expect(isWellFormed(s), JSON.stringify(s)).toBe(platformWellFormed(s));
    }
  });

  it("utf8Length counts what TextEncoder writes (an unpaired surrogate as U+FFFD's 3 bytes), for the whole string and every prefix", () => {
    const next = rng(2102);
    for (let c = 0; c < CASES; c++) {
      const s = randomString(next);
      for (let end = 0; end <= s.length; end++) expect(utf8Length(s, end), `${JSON.stringify(s)} to ${end}`).toBe(enc.encode(s.slice(0, end)).length);
    }
  });

  it("the fast canonical writer takes every well-formed string, writing the platform's UTF-8, and refuses every other (canonicalJson then names the surrogate)", () => {
    const next = rng(2103);
    for (let c = 0; c < CASES; c++) {
      const s = randomString(next);
      const n = writeCanonical(s);
      if (platformWellFormed(s)) {
        // Taken by the fast path (a refusal there would fall back to the slow walk).
        expect(n, JSON.stringify(s)).toBeGreaterThanOrEqual(0);
        expect(canonicalBuffer().subarray(0, n)).toEqual(enc.encode(`"${s}"`));
        expect(canonicalJson(s)).toBe(`"${s}"`);
        expect(hashJsonSync(s)).toBe(sha256HexSync(`"${s}"`));
      } else {
        expect(n, JSON.stringify(s)).toBe(-1);
        let code = "";
        try {
          canonicalJson(s);
        } catch (e) {
          code = isIsoagentError(e) ? e.code : String(e);
        }
        expect(code).toBe("JSON_LONE_SURROGATE");
      }
    }
  });

  it("the boundary accepts a raw string iff it is well-formed, and puts a refusal at the unpaired unit's line and column (a pair is one column)", () => {
    const next = rng(2104);
    for (let c = 0; c < CASES; c++) {
      const s = randomString(next);
      const prefix = randomString(next).replace(/[\ud800-\udfff]/g, "B");
      // On the second line, after a well-formed prefix of the same alphabet.
      const text = `[1,\n"${prefix}${s}"]`;
      const r = tryParseJson(text);
      const bad = firstUnpaired(s);
      if (bad < 0) {
        expect(r.ok, JSON.stringify(s)).toBe(true);
        if (r.ok) expect(r.value).toEqual([1, prefix + s]);
        continue;
      }
      expect(r.ok, JSON.stringify(s)).toBe(false);
      if (r.ok) continue;
      const at = 5 + prefix.length + bad;
      expect(r.error.code).toBe("JSON_LONE_SURROGATE");
      expect(r.error.offset).toBe(at);
      expect(r.error.line).toBe(2);
      expect(r.error.column, JSON.stringify(s)).toBe(Array.from(text.slice(4, at)).length + 1);
      expect(r.error.message).toBe(`unpaired surrogate U+${hex4(s.charCodeAt(bad)).toUpperCase()} in a string at line 2, column ${r.error.column}`);
    }
  });

  it("the boundary decodes every escaped string, pairs of \\u escapes included, and refuses an unpaired escape naming it", () => {
    const next = rng(2105);
    for (let c = 0; c < CASES; c++) {
      const s = randomString(next);
      const text = `{"k":"${Array.from({ length: s.length }, (_, k) => `\\u${hex4(s.charCodeAt(k))}`).join("")}"}`;
      const r = tryParseJson(text);
      const bad = firstUnpaired(s);
      if (bad < 0) {
        expect(r.ok, text).toBe(true);
        if (r.ok) expect(r.value).toEqual({ k: s });
        continue;
      }
      expect(r.ok, text).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe("JSON_LONE_SURROGATE");
      expect(r.error.message).toBe(`unpaired surrogate "\\u${hex4(s.charCodeAt(bad))}" in a string at line 1, column ${7 + 6 * bad}`);
    }
  });

  it("an escaped key goes the same way", () => {
    const next = rng(2106);
    for (let c = 0; c < CASES / 3; c++) {
      const s = randomString(next);
      const text = `{"${Array.from({ length: s.length }, (_, k) => `\\u${hex4(s.charCodeAt(k))}`).join("")}":1}`;
      const r = tryParseJson(text);
      expect(r.ok, text).toBe(firstUnpaired(s) < 0);
      if (r.ok) expect(Object.keys(r.value as object)).toEqual([s]);
      else expect(r.error.code).toBe("JSON_LONE_SURROGATE");
    }
  });
});

describe("UTF-8 at its bounds (random byte strings of edge code points, some bytes replaced)", () => {
  // Code points at both sides of every length and lead-byte bound of UTF-8.
  const POINTS = [0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xfff, 0x1000, 0xcfff, 0xd000, 0xd7ff, 0xe000, 0xefff, 0xf000, 0xffff, 0x10000, 0x3ffff, 0x40000, 0xfffff, 0x100000, 0x10ffff];
  // Bytes at both sides of every bound a lead or continuation byte is checked against.
  const BYTES = [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff];
  const strict = new TextDecoder("utf-8", { fatal: true });
  const valid = (b: Uint8Array): boolean => {
    try {
      strict.decode(b);
      return true;
    } catch {
      return false;
    }
  };

  /** Where the first sequence starts that decodes as no character (UTF-8 is prefix-free, so reading greedily is exact). */
  const firstBadSequence = (b: Uint8Array): number => {
    let p = 0;
    read: while (p < b.length) {
      for (let len = 1; len <= 4 && p + len <= b.length; len++) {
        if (valid(b.subarray(p, p + len))) {
          p += len;
          continue read;
        }
      }
      return p;
    }
    return -1;
  };

  it("the boundary accepts the bytes iff the platform's fatal decoder does, and a refusal's offset is where the first sequence starts that decodes as no character", () => {
    const next = rng(2107);
    let refused = 0;
    for (let c = 0; c < CASES; c++) {
      const points = Array.from({ length: 1 + Math.floor(next() * 4) }, () => POINTS[Math.floor(next() * POINTS.length)]!);
      const text = `"${String.fromCodePoint(...points)}"`;
      const bytes = enc.encode(text);
      if (next() < 0.6) bytes[1 + Math.floor(next() * (bytes.length - 2))] = BYTES[Math.floor(next() * BYTES.length)]!;
      const r = tryParseJson(bytes);
      const ok = valid(bytes);
      expect(r.ok, Array.from(bytes, (b) => b.toString(16)).join(" ")).toBe(ok);
      if (r.ok) {
        expect(r.value).toBe(strict.decode(bytes).slice(1, -1));
        continue;
      }
      refused++;
      expect(r.error.code).toBe("JSON_INVALID_UTF8");
      expect(r.error.offset, Array.from(bytes, (b) => b.toString(16)).join(" ")).toBe(firstBadSequence(bytes));
    }
    expect(refused).toBeGreaterThan(CASES / 4);
  });
});

describe("the scanner's other edges", () => {
  it("a leading zero before any digit, 0 to 9, is refused as one", () => {
    for (let d = 0; d <= 9; d++) {
      for (const text of [`0${d}`, `-0${d}`, `[1,0${d}]`]) {
        const r = tryParseJson(text);
        expect(r.ok, text).toBe(false);
        if (!r.ok) expect(r.error.message).toBe(`leading zeros are not allowed in numbers at line 1, column ${text.startsWith("[") ? 4 : 1}`);
      }
    }
  });

  it("a duplicate key is found however many keys come before it (the scanner switches from a list to a set past 12)", () => {
    for (let n = 1; n <= 40; n++) {
      const keys = Array.from({ length: n }, (_, k) => `k${k}`);
      for (const dup of [0, n - 1]) {
        const text = `{${[...keys, keys[dup]!].map((k, i) => `"${k}":${i}`).join(",")}}`;
        const r = tryParseJson(text);
        expect(r.ok ? "accepted" : r.error.code, `${n} keys, repeating ${keys[dup]}`).toBe("JSON_DUPLICATE_KEY");
      }
    }
  });

  // mutation: scan.ts fastCheckParsed, `} else if (c === 0x7d || c === 0x5d) { depth--; }` -> never
  // (or for one kind of bracket only): the fast check then counts every bracket ever opened as
  // depth, gives up on a wide shallow text, and the strict scanner, finding nothing wrong, throws.
  it("depth is how deep brackets nest, not how many open: 400 siblings of each kind, one level down, are taken", () => {
    for (const [empty, value] of [
      ["[]", []],
      ["{}", {}],
      ['{"a":[]}', { a: [] }],
    ] as const) {
      const text = `[${Array(400).fill(empty).join(",")}]`;
      expect(tryParseJson(text), empty).toEqual({ ok: true, value: Array(400).fill(value) });
    }
    expect(tryParseJson(`{${Array.from({ length: 400 }, (_, k) => `"k${k}":{}`).join(",")}}`).ok).toBe(true);
  });

  it("a number that starts with 0 is judged whole for overflow: 0.1e309 is finite, 0.1e400 is not", () => {
    expect(tryParseJson("0.1e309")).toEqual({ ok: true, value: 1e308 });
    expect(tryParseJson("[0.1e309]")).toEqual({ ok: true, value: [1e308] });
    const r = tryParseJson("0.1e400");
    expect(r.ok ? "accepted" : r.error.code).toBe("JSON_NUMBER_OUT_OF_RANGE");
  });

  it("after a key, the end of the input or a comment is named as such, anything else as a missing colon", () => {
    const table: [string, string][] = [
      ['{"a"', "unexpected end of input at line 1, column 5"],
      ['{"a" ', "unexpected end of input at line 1, column 6"],
      ['{"a"/*c*/:1}', "comments are not allowed in JSON at line 1, column 5"],
      ['{"a" // c\n:1}', "comments are not allowed in JSON at line 1, column 6"],
      ['{"a" 1}', 'expected ":" after a key, found "1" at line 1, column 6'],
    ];
    for (const [text, message] of table) {
      const r = tryParseJson(text);
      expect(r.ok ? "accepted" : r.error.message, text).toBe(message);
    }
  });

  it("the fast canonical writer takes plain and null-prototype objects, and leaves anything else to the full walk", () => {
    const bare = Object.assign(Object.create(null) as Record<string, number>, { b: 2, a: 1 });
    expect(writeCanonical({ b: 2, a: 1 })).toBe(13);
    expect(writeCanonical(bare)).toBe(13);
    expect(new TextDecoder().decode(canonicalBuffer().subarray(0, 13))).toBe('{"a":1,"b":2}');
    class Point {
      x = 1;
    }
    expect(writeCanonical(new Point())).toBe(-1);
    expect(writeCanonical(new Map())).toBe(-1);
    expect(writeCanonical([new Date(0)])).toBe(-1);
  });
});
