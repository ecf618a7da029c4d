/**
 * src/json held to the reference implementations of test/json/reference.ts
 * on generated inputs: the strict scanner's first refusal (code, reason,
 * offset, line, column, for text and for bytes), UTF-8 errors, byte
 * offsets, canonical JSON through the fast writer and through the full walk,
 * and SHA-256. Mutation testing (npm run mutate -- json) found most of the
 * fast paths' details untested: these tests are what kills those mutants.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isIsoagentError } from "../../src/index.js";
import { canonicalJson, cloneJson, hashJsonSync, isWellFormed, JsonValueError, MAX_JSON_DEPTH, sha256HexSync, tryParseJson } from "../../src/json/index.js";
import { canonicalBuffer, writeCanonical } from "../../src/json/canonical-bytes.js";
import { scanJson } from "../../src/json/scan.js";
import { firstInvalidUtf8, utf8Length } from "../../src/json/utf8.js";
import { rng } from "../helpers/rng.js";
import { corrupted, jsonText, plainValue, referenceCanonical, referenceInvalidUtf8, referencePosition, referenceScan } from "./reference.js";

/** These run thousands of cases: a busy machine (or a mutation run's instrumented code) takes many times their usual second. */
const HEAVY = 120_000;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** Decodes as the boundary does: a byte order mark is kept (and then refused), not skipped. */
const keepBom = new TextDecoder("utf-8", { ignoreBOM: true });
/** The platform's String.prototype.isWellFormed (ES2024; the project's lib is ES2023). */
const platformWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
const nodeSha = (data: string | Uint8Array): string => createHash("sha256").update(data).digest("hex");

describe("the strict scanner against the reference scanner", () => {
  it(
    "names the same first refusal (code, reason, position) on 6,000 generated texts, most of them broken, at depth limits from 0 to 256",
    () => {
      const r = rng(21);
      let refused = 0;
      for (let n = 0; n < 6000; n++) {
        const text = corrupted(r);
        const maxDepth = r() < 0.8 ? MAX_JSON_DEPTH : Math.floor(r() * 7);
        const want = referenceScan(text, maxDepth);
        expect(scanJson(text, maxDepth), text).toEqual(want);
        const got = tryParseJson(text, { maxDepth });
        if (want === null) {
          expect(got.ok, text).toBe(true);
          if (got.ok) expect(got.value).toEqual(JSON.parse(text));
          continue;
        }
        refused++;
        expect(got.ok, text).toBe(false);
        if (got.ok) continue;
        const { line, column } = referencePosition(text, want.at);
        expect({ code: got.error.code, message: got.error.message, offset: got.error.offset, line: got.error.line, column: got.error.column }, text).toEqual({
          code: want.code,
          message: `${want.reason} at line ${line}, column ${column}`,
          offset: want.at,
          line,
          column,
        });
      }
      // The generator must break most texts, and leave some whole.
      expect(refused).toBeGreaterThan(3000);
      expect(refused).toBeLessThan(5800);
    },
    HEAVY,
  );

  it(
    "finds repeated keys by counting even when someone added an enumerable property to Object.prototype (the slower count), on 1,500 texts",
    () => {
      const r = rng(27);
      const texts = Array.from({ length: 1500 }, () => corrupted(r));
      Object.defineProperty(Object.prototype, "polluted", { value: 1, enumerable: true, configurable: true, writable: true });
      try {
        for (const text of texts) {
          const want = referenceScan(text, MAX_JSON_DEPTH);
          const got = tryParseJson(text);
          expect(got.ok ? null : { code: got.error.code, offset: got.error.offset }, text).toEqual(want === null ? null : { code: want.code, offset: want.at });
        }
      } finally {
        delete (Object.prototype as Record<string, unknown>)["polluted"];
      }
    },
    HEAVY,
  );

  it(
    "cuts what a message quotes at its edges: keys at 64 characters, numbers at 24",
    () => {
      const cases: [string, string][] = [];
      for (const n of [63, 64, 65]) {
        const key = "k".repeat(n);
        cases.push([`{"${key}":1,"${key}":2}`, `duplicate key ${JSON.stringify(n > 64 ? `${key.slice(0, 64)}…` : key)}`]);
      }
      for (const n of [23, 24, 25]) {
        const number = `1${"0".repeat(n - 5)}e400`;
        cases.push([`[${number}]`, `number ${n > 24 ? `${number.slice(0, 24)}…` : number} is too large to represent`]);
      }
      for (const [text, reason] of cases) {
        expect(referenceScan(text, MAX_JSON_DEPTH)?.reason, text).toBe(reason);
        expect(scanJson(text, MAX_JSON_DEPTH)?.reason, text).toBe(reason);
      }
    },
    HEAVY,
  );

  it(
    "reports byte offsets for bytes, and the first ill-formed UTF-8 sequence by the Unicode table",
    () => {
      const r = rng(22);
      const junk = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90];
      for (let n = 0; n < 2000; n++) {
        const text = corrupted(r);
        if (!platformWellFormed(text)) continue;
        let bytes = enc(text);
        if (r() < 0.5) {
          // Break the encoding: a stray byte, or a sequence cut short.
          const at = Math.floor(r() * (bytes.length + 1));
          const insert = r() < 0.7 ? [junk[Math.floor(r() * junk.length)]!] : [...enc("€😀é")].slice(0, 1 + Math.floor(r() * 5));
          bytes = Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at)]);
        }
        const got = tryParseJson(bytes);
        const bad = referenceInvalidUtf8(bytes);
        if (bad !== null) {
          expect(firstInvalidUtf8(bytes)).toEqual(bad);
          const prefix = keepBom.decode(bytes.subarray(0, bad.offset));
          const { line, column } = referencePosition(prefix, prefix.length);
          expect(got.ok ? "accepted" : { code: got.error.code, message: got.error.message, offset: got.error.offset }).toEqual({
            code: "JSON_INVALID_UTF8",
            message: `${bad.reason} at line ${line}, column ${column}`,
            offset: bad.offset,
          });
          continue;
        }
        const decoded = keepBom.decode(bytes);
        const want = referenceScan(decoded, MAX_JSON_DEPTH);
        if (want === null) {
          expect(got.ok).toBe(true);
          continue;
        }
        expect(got.ok ? "accepted" : { code: got.error.code, offset: got.error.offset }).toEqual({ code: want.code, offset: Buffer.byteLength(decoded.slice(0, want.at)) });
      }
    },
    HEAVY,
  );

  it(
    "firstInvalidUtf8 on valid bytes returns their end; utf8Length counts what TextEncoder writes, surrogates included",
    () => {
      const r = rng(23);
      const units = ["a", "\u007f", "\u0080", "é", "\u07ff", "\u0800", "€", "\uffff", "😀", "\u{10000}", "\u{10FFFF}", "\ud800", "\udc00", "\udbff", "\udfff", "\ue000"];
      for (let n = 0; n < 2000; n++) {
        let s = "";
        for (let k = Math.floor(r() * 12); k > 0; k--) s += units[Math.floor(r() * units.length)];
        const end = Math.floor(r() * (s.length + 1));
        expect(utf8Length(s, end), JSON.stringify(s)).toBe(Buffer.byteLength(s.slice(0, end)));
        expect(utf8Length(s)).toBe(Buffer.byteLength(s));
        const valid = enc(s);
        expect(firstInvalidUtf8(valid)).toEqual({ offset: valid.length, reason: "no invalid UTF-8" });
        // The JS fallback of isWellFormed agrees with the platform's.
        expect(isWellFormed(s), JSON.stringify(s)).toBe(platformWellFormed(s));
      }
    },
    HEAVY,
  );

  it(
    "takes maxDepth from 0 to 256 and refuses anything else, saying so (fails with the bounds off by one)",
    () => {
      expect(tryParseJson("1", { maxDepth: 0 }).ok).toBe(true);
      expect(tryParseJson("[]", { maxDepth: 0 }).ok).toBe(false);
      expect(tryParseJson("[".repeat(256) + "]".repeat(256), { maxDepth: 256 }).ok).toBe(true);
      for (const bad of [-1, 257, 1.5, Number.NaN]) {
        let caught: unknown = "accepted";
        try {
          tryParseJson("1", { maxDepth: bad });
        } catch (e) {
          caught = e;
        }
        expect(caught, String(bad)).toBeInstanceOf(RangeError);
        expect((caught as Error).message).toBe("maxDepth must be an integer from 0 to 256");
      }
    },
    HEAVY,
  );
});

describe("canonical JSON against the reference", () => {
  it(
    "the fast writer takes every plain value (1,000 generated) and writes exactly its canonical form; canonicalJson and hashJsonSync agree",
    () => {
      const r = rng(24);
      for (let n = 0; n < 1000; n++) {
        const v = plainValue(r);
        const want = referenceCanonical(v);
        const len = writeCanonical(v, 100);
        expect(len, want).toBeGreaterThanOrEqual(0);
        expect(new TextDecoder().decode(canonicalBuffer().subarray(0, len))).toBe(want);
        expect(canonicalBuffer().length - len).toBeGreaterThanOrEqual(100);
        expect(canonicalJson(v)).toBe(want);
        expect(hashJsonSync(v)).toBe(nodeSha(want));
      }
    },
    HEAVY,
  );

  it(
    "never writes past the end of its buffer: each write that reserves room, placed exactly where a short reservation would overflow",
    () => {
      // The writer's buffer is module state, grown as needed. Numbers and
      // commas reserve exactly what they write, so a padding of them puts the
      // next write at a chosen distance from the end; each case leaves just
      // less room than the write needs (the correct writer grows the buffer,
      // one that reserves too little writes past the end and loses bytes).
      const check = (v: unknown): void => {
        const want = referenceCanonical(v);
        const len = writeCanonical(v);
        expect(len).toBeGreaterThanOrEqual(0);
        expect(new TextDecoder().decode(canonicalBuffer().subarray(0, len)) === want).toBe(true);
      };
      /** [1,1,...,1, x] with `x`'s critical write (`at` bytes into it) starting `gap` bytes before the buffer's end. */
      const placed = (x: unknown, at: number, gap: number): unknown[] => {
        const before = canonicalBuffer().length - gap - at - 1; // "[" then "1," per element
        const ones = Array<number>(Math.floor(before / 2)).fill(1);
        return before % 2 === 0 ? [...ones, x] : [11, ...ones.slice(1), x];
      };
      const key = new TextEncoder().encode('"kk€":').length;
      check(placed({ a: 1, "kk€": 2 }, '{"a":1'.length, key - 1)); // a key and its comma: room(kl + 1)
      check(placed("\u0001".repeat(10), 0, 6 * 10 - 2)); // a short string, every unit escaped: room(len * 6 + 2)
      check(placed(-1.7976931348623157e308, 0, 0)); // a number: room(s.length)
      check(placed([[]], 0, 0)); // a bracket: room(1)
      // room(spare): the room asked for after the text.
      const near = placed(7, 0, 40);
      const len = writeCanonical(near, 100);
      expect(canonicalBuffer().length - len).toBeGreaterThanOrEqual(100);
      // A long string reserves three bytes a unit: one longer than the buffer,
      // of three-byte characters, needs more than twice its size.
      check(["€".repeat(canonicalBuffer().length)]);
    },
    HEAVY,
  );

  it(
    "grows its buffer for large values: a megabyte of strings, long and short, many keys",
    () => {
      const big: Record<string, unknown> = {};
      for (let k = 0; k < 3000; k++) big[`key-${k}-${"é".repeat(k % 7)}`] = k % 3 === 0 ? "€".repeat(200 + k) : { n: k, s: `😀${"x".repeat(k % 90)}` };
      const want = referenceCanonical(big);
      expect(want.length).toBeGreaterThan(1_000_000);
      expect(canonicalJson(big)).toBe(want);
      expect(hashJsonSync(big)).toBe(nodeSha(want));
    },
    HEAVY,
  );

  it(
    "leaves what is not plain, well-formed JSON to the full walk (-1), which refuses it",
    () => {
      const deep: unknown[] = [];
      let cursor = deep;
      for (let k = 0; k < MAX_JSON_DEPTH; k++) cursor.push((cursor = []));
      class Point {
        x = 1;
      }
      const refused: [unknown, string, string][] = [
        [Number.NaN, "JSON_NOT_SERIALIZABLE", "NaN is not a JSON number at the root"],
        [[1, Number.POSITIVE_INFINITY], "JSON_NOT_SERIALIZABLE", "Infinity is not a JSON number at /1"],
        [{ a: undefined }, "JSON_NOT_SERIALIZABLE", "undefined is not JSON at /a"],
        [{ a: () => 1 }, "JSON_NOT_SERIALIZABLE", "a function is not JSON at /a"],
        [{ a: 1n }, "JSON_NOT_SERIALIZABLE", "a BigInt is not JSON at /a"],
        [{ a: Symbol("s") }, "JSON_NOT_SERIALIZABLE", "a symbol is not JSON at /a"],
        [{ p: new Point() }, "JSON_NOT_SERIALIZABLE", "an object of class Point is not JSON at /p"],
        [{ o: Object.create(Object.create(null) as object) as object }, "JSON_NOT_SERIALIZABLE", "an object of class unknown is not JSON at /o"],
        // eslint-disable-next-line no-sparse-arrays
        [[1, , 3], "JSON_NOT_SERIALIZABLE", "an array hole is not JSON at /1"],
        ["a\ud800", "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        ["\udfff", "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        ["\udc00\udc00", "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        ["x\ud800y", "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        ["\ud800\ue000", "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        [`${"x".repeat(100)}\udc00`, "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at the root"],
        [{ "k\ud800": 1 }, "JSON_LONE_SURROGATE", "a key with an unpaired surrogate is not JSON at /k\ud800"],
        [{ "a/b~c": [deep] }, "JSON_TOO_DEEP", `nesting deeper than 256 levels at /a~1b~0c/0${"/0".repeat(MAX_JSON_DEPTH - 2)}`],
      ];
      for (const [v, code, message] of refused) {
        expect(writeCanonical(v), message).toBe(-1);
        let caught: unknown = "accepted";
        try {
          canonicalJson(v);
        } catch (e) {
          caught = e;
        }
        expect(caught, message).toBeInstanceOf(JsonValueError);
        expect(isIsoagentError(caught, code as never), message).toBe(true);
        expect((caught as Error).message).toBe(message);
        expect((caught as Error).name).toBe("JsonValueError");
        expect(() => hashJsonSync(v), message).toThrow(message);
      }
    },
    HEAVY,
  );

  it("the fast writer takes objects without a prototype, as plain JSON", () => {
    const bare = Object.assign(Object.create(null) as object, { b: 1, a: [true] });
    const len = writeCanonical(bare);
    expect(len).toBeGreaterThanOrEqual(0);
    expect(new TextDecoder().decode(canonicalBuffer().subarray(0, len))).toBe('{"a":[true],"b":1}');
  });

  it(
    "the full walk writes the same canonical form when the fast writer is busy (a getter that serialises while being serialised)",
    () => {
      const r = rng(25);
      for (let n = 0; n < 300; n++) {
        const inner = plainValue(r);
        let seen: [string, string] | undefined;
        const outer = {
          get probe() {
            // The writer is busy with `outer`: these take the full walk.
            seen = [canonicalJson(inner), hashJsonSync(inner)];
            return 1;
          },
        };
        expect(canonicalJson(outer)).toBe('{"probe":1}');
        expect(seen).toEqual([referenceCanonical(inner), nodeSha(referenceCanonical(inner))]);
      }
    },
    HEAVY,
  );

  it(
    "cloneJson copies plain JSON as plain, writable objects in key order, shared parts twice, -0 as 0, null-prototype objects too",
    () => {
      const shared = { a: 1 };
      const nullProto = Object.assign(Object.create(null) as object, { z: 1, y: [2] });
      const clone = cloneJson({ b: shared, a: shared, n: -0, p: nullProto }) as Record<string, any>;
      expect(Object.keys(clone)).toEqual(["b", "a", "n", "p"]);
      expect(clone["b"]).toEqual({ a: 1 });
      expect(clone["b"]).not.toBe(clone["a"]);
      expect(Object.is(clone["n"], 0)).toBe(true);
      expect(Object.getPrototypeOf(clone["p"])).toBe(Object.prototype);
      expect(clone["p"]).toEqual({ z: 1, y: [2] });
      expect(Object.getOwnPropertyDescriptor(clone, "b")).toEqual({ value: { a: 1 }, enumerable: true, writable: true, configurable: true });
      const cyclic: Record<string, unknown> = {};
      cyclic["self"] = cyclic;
      expect(() => cloneJson(cyclic)).toThrow("a cycle is not JSON at /self");
    },
    HEAVY,
  );
});

describe("SHA-256 against node:crypto", () => {
  it(
    "agrees on bytes of every length around the blocks, on text with every width of character, and on inputs larger than its scratch buffer",
    () => {
      const r = rng(26);
      for (let len = 0; len < 300; len++) {
        const bytes = Uint8Array.from({ length: len }, () => Math.floor(r() * 256));
        expect(sha256HexSync(bytes), String(len)).toBe(nodeSha(bytes));
      }
      for (const len of [1023, 1024, 4096, 70_000]) {
        const bytes = Uint8Array.from({ length: len }, (_, k) => k & 255);
        expect(sha256HexSync(bytes), String(len)).toBe(nodeSha(bytes));
      }
      for (const s of ["", "a", "é€😀", "\ud800 lone", "x".repeat(55), "x".repeat(56), "€".repeat(1000)]) expect(sha256HexSync(s)).toBe(nodeSha(s));
      // Six megabytes of UTF-8 from two million characters: more than any
      // scratch buffer an earlier test grew, and three bytes to each unit.
      const large = "€".repeat(2_000_000);
      expect(sha256HexSync(large)).toBe(nodeSha(large));
      // And bytes more than twice that: the scratch buffer must grow to them.
      const bytes = new Uint8Array(13_000_000).fill(0x61);
      expect(sha256HexSync(bytes)).toBe(nodeSha(bytes));
    },
    HEAVY,
  );
});

it(
  "the generators make the constructs the scanner treats specially",
  () => {
    // A guard on the inputs above: without these, the comparisons would pass
    // without reaching the code they are meant to reach.
    const r = rng(21);
    const texts = Array.from({ length: 2000 }, () => jsonText(r)).join("\n");
    for (const piece of ["\\u", "\\uD", "\\ud", '\\"', "\\/", "😀", "e+", "E-", "999999999999999999999999", "\r\n", "\t"]) expect(texts, piece).toContain(piece);
    expect(texts).toMatch(/"k1[3-9]"/);
  },
  HEAVY,
);
