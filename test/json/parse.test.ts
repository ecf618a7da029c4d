import { describe, expect, it } from "vitest";
import { rng } from "../helpers/rng.js";
import { isIsoagentError } from "../../src/index.js";
import { JsonBoundaryError, MAX_JSON_DEPTH, parseJson, tryParseJson } from "../../src/json/index.js";
import { scanJson } from "../../src/json/scan.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function refusal(input: string | Uint8Array): { code: string; message: string; offset: number; line: number; column: number } {
  const r = tryParseJson(input);
  if (r.ok) throw new Error(`accepted: ${JSON.stringify(r.value)}`);
  const { code, message, offset, line, column } = r.error;
  return { code, message, offset, line, column };
}

describe("parseJson: refusals, pinned by exact value", () => {
  const cases: [string, string, string][] = [
    ['{"a":1,"a":2}', "JSON_DUPLICATE_KEY", 'duplicate key "a" at line 1, column 8'],
    ['{"\\u0061":1,"a":2}', "JSON_DUPLICATE_KEY", 'duplicate key "a" at line 1, column 13'],
    ['"\\ud800"', "JSON_LONE_SURROGATE", 'unpaired surrogate "\\ud800" in a string at line 1, column 2'],
    ['"\\udc00\\ud800"', "JSON_LONE_SURROGATE", 'unpaired surrogate "\\udc00" in a string at line 1, column 2'],
    ['"\\ud800\\u0041"', "JSON_LONE_SURROGATE", 'unpaired surrogate "\\ud800" in a string at line 1, column 2'],
    ['"a\ud800b"', "JSON_LONE_SURROGATE", "unpaired surrogate U+D800 in a string at line 1, column 3"],
    ["[1,]", "JSON_SYNTAX", "trailing comma at line 1, column 4"],
    ['{"a":1,}', "JSON_SYNTAX", "trailing comma at line 1, column 8"],
    ["// c\n1", "JSON_SYNTAX", "comments are not allowed in JSON at line 1, column 1"],
    ["[1]/*c*/", "JSON_SYNTAX", "comments are not allowed in JSON at line 1, column 4"],
    ["NaN", "JSON_SYNTAX", 'unexpected character "N" at line 1, column 1'],
    ["[Infinity]", "JSON_SYNTAX", 'unexpected character "I" at line 1, column 2'],
    ["01", "JSON_SYNTAX", "leading zeros are not allowed in numbers at line 1, column 1"],
    ["[-01]", "JSON_SYNTAX", "leading zeros are not allowed in numbers at line 1, column 2"],
    ["1.", "JSON_SYNTAX", "invalid number: a digit must follow the decimal point at line 1, column 1"],
    ["1e+", "JSON_SYNTAX", "invalid number: a digit must follow the exponent at line 1, column 1"],
    ["-", "JSON_SYNTAX", "invalid number at line 1, column 1"],
    ["[1e999]", "JSON_NUMBER_OUT_OF_RANGE", "number 1e999 is too large to represent at line 1, column 2"],
    ['"a\nb"', "JSON_SYNTAX", "unescaped control character U+000A in a string at line 1, column 3"],
    ['"\\x"', "JSON_SYNTAX", 'invalid escape: a backslash followed by "x" in a string at line 1, column 2'],
    ['"\\u12"', "JSON_SYNTAX", "invalid unicode escape in a string at line 1, column 2"],
    ['"abc', "JSON_SYNTAX", "unterminated string at line 1, column 1"],
    ["{'a':1}", "JSON_SYNTAX", 'expected a string key, found "\'" at line 1, column 2'],
    ['{"a" 1}', "JSON_SYNTAX", 'expected ":" after a key, found "1" at line 1, column 6'],
    ["[1 2]", "JSON_SYNTAX", 'expected "," or "]", found "2" at line 1, column 4'],
    ['{"a":1 "b":2}', "JSON_SYNTAX", 'expected "," or "}", found "\\"" at line 1, column 8'],
    ["tru", "JSON_SYNTAX", "invalid literal: expected true, false or null at line 1, column 1"],
    ["[1]x", "JSON_SYNTAX", 'unexpected "x" after the JSON value at line 1, column 4'],
    ["", "JSON_SYNTAX", "unexpected end of input at line 1, column 1"],
    ["  \n ", "JSON_SYNTAX", "unexpected end of input at line 2, column 2"],
    ["[\n  1,\n  ]", "JSON_SYNTAX", "trailing comma at line 3, column 3"],
    ["\ufeff{}", "JSON_SYNTAX", "a byte order mark is not allowed at line 1, column 1"],
    ["[\u00a0]", "JSON_SYNTAX", "unexpected character U+00A0 at line 1, column 2"],
  ];
  it.each(cases)("%j -> %s", (input, code, message) => {
    const r = refusal(input);
    expect(r.code).toBe(code);
    expect(r.message).toBe(message);
  });

  it("gives the position as offset, line and column (columns count characters)", () => {
    expect(refusal('{\n  "é😀": 1,\n  "é😀": 2\n}')).toEqual({
      code: "JSON_DUPLICATE_KEY",
      message: 'duplicate key "é😀" at line 3, column 3',
      offset: 16,
      line: 3,
      column: 3,
    });
  });

  it("reports byte offsets for byte input", () => {
    // "é" is two bytes, "😀" four: the key starts at byte 1 + 2 + ... as counted below.
    const text = '["é😀",1,]';
    const r = refusal(enc(text));
    expect(r.message).toBe("trailing comma at line 1, column 9");
    expect(r.offset).toBe(1 + 1 + 2 + 4 + 1 + 1 + 1 + 1);
  });

  it("is an IsoagentError with a stable code, and parseJson throws it", () => {
    let caught: unknown;
    try {
      parseJson("[1,]");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(JsonBoundaryError);
    expect(isIsoagentError(caught, "JSON_SYNTAX")).toBe(true);
    expect((caught as JsonBoundaryError).reason).toBe("trailing comma");
    expect((caught as Error).name).toBe("JsonBoundaryError");
  });
});

describe("parseJson: depth", () => {
  const nested = (n: number): string => "[".repeat(n) + "]".repeat(n);
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    expect(tryParseJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(refusal(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ code: "JSON_TOO_DEEP", message: "nesting deeper than 256 levels at line 1, column 257" });
    expect(refusal('{"a":'.repeat(300) + "1" + "}".repeat(300)).code).toBe("JSON_TOO_DEEP");
  });
  it("refuses 100,000 open brackets without exhausting the stack", () => {
    expect(refusal("[".repeat(100_000)).code).toBe("JSON_TOO_DEEP");
  });
  it("takes a smaller limit, and refuses a limit above 256", () => {
    expect(tryParseJson("[[1]]", { maxDepth: 1 }).ok).toBe(false);
    expect(tryParseJson("[1]", { maxDepth: 1 }).ok).toBe(true);
    expect(() => tryParseJson("1", { maxDepth: 257 })).toThrow(RangeError);
  });
});

describe("parseJson: UTF-8", () => {
  const cases: [number[], string][] = [
    [[0x5b, 0x22, 0xff, 0x22, 0x5d], "invalid UTF-8 byte 0xFF at line 1, column 3"],
    [[0x22, 0xc0, 0xaf, 0x22], "invalid UTF-8 byte 0xC0 at line 1, column 2"],
    [[0x22, 0xed, 0xa0, 0x80, 0x22], "invalid UTF-8 sequence 0xED 0xA0 at line 1, column 2"],
    [[0x22, 0xe9, 0x22], "invalid UTF-8 sequence 0xE9 0x22 at line 1, column 2"],
    [[0x22, 0xf0, 0x9f, 0x98], "truncated UTF-8 sequence 0xF0 0x9F 0x98 at end of input at line 1, column 2"],
  ];
  it.each(cases)("%j", (bytes, message) => {
    expect(refusal(new Uint8Array(bytes))).toMatchObject({ code: "JSON_INVALID_UTF8", message, offset: bytes.indexOf(bytes.find((b) => b >= 0x80)!) });
  });
  it("accepts valid UTF-8 and decodes it", () => {
    expect(parseJson(enc('{"k":"é😀\\u00e9"}'))).toEqual({ k: "é😀é" });
  });
  it("refuses a byte order mark given as bytes", () => {
    expect(refusal(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])).message).toBe("a byte order mark is not allowed at line 1, column 1");
  });
});

describe("parseJson: accepted values", () => {
  it("returns what JSON.parse returns", () => {
    const texts = ['{"a":[1,2.5,-0,1e-400,true,false,null,"x\\n\\"\\u00e9\\ud83d\\ude00"]}', '"__proto__"', '{"__proto__":{"x":1}}', "  7  ", "[]", "{}"];
    for (const t of texts) expect(parseJson(t)).toEqual(JSON.parse(t));
  });
  it("keeps a __proto__ key as an own property", () => {
    const v = parseJson('{"__proto__":1}') as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["__proto__"]);
  });
  it("finds repeated keys in objects of every size, at every depth", () => {
    const keys = Array.from({ length: 40 }, (_, k) => `"k${k}":${k}`);
    expect(tryParseJson(`{${keys.join(",")}}`).ok).toBe(true);
    expect(refusal(`{${keys.join(",")},"k7":0}`).message).toBe(`duplicate key "k7" at line 1, column ${keys.join(",").length + 3}`);
    expect(refusal('[{"a":{"b":1,"b":2}}]').code).toBe("JSON_DUPLICATE_KEY");
    // The same key in sibling objects is not a repetition.
    expect(tryParseJson('[{"a":1},{"a":2},{"b":{"a":3}}]').ok).toBe(true);
  });
  it("counts colons outside strings only: colons in keys and values, escaped or not, neither hide nor fake a repeated key", () => {
    expect(tryParseJson('{"a:b":"c:d","e":"::"}').ok).toBe(true);
    expect(tryParseJson('{"\\u003a":1,"x":"\\u003a\\u003A"}').ok).toBe(true);
    expect(refusal('{"a:b":"c:d","a:b":1}').code).toBe("JSON_DUPLICATE_KEY");
    // The same key written two ways, beside a string holding an escaped colon.
    expect(refusal('{"\\u003a":1,":":2,"s":"\\u003a"}').code).toBe("JSON_DUPLICATE_KEY");
    expect(refusal('{"k":"\\u003a","k":"x"}').code).toBe("JSON_DUPLICATE_KEY");
  });
  it("still finds a repeated key when someone added an enumerable property to Object.prototype", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto["polluted"] = 1;
    try {
      expect(tryParseJson('{"a":1,"b":{"c":2}}').ok).toBe(true);
      expect(refusal('{"a":1,"b":{"c":2,"c":3}}').code).toBe("JSON_DUPLICATE_KEY");
    } finally {
      delete proto["polluted"];
    }
  });
});

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 4 ? 4 : 7));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return r() < 0.5 ? Math.floor(r() * 1e6) - 5e5 : (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    case 3: {
      const alphabet = ["a", "é", '"', "\\", "\n", "\u0001", "😀", "/", "\u2028", " "];
      let s = "";
      for (let n = Math.floor(r() * 8); n > 0; n--) s += alphabet[Math.floor(r() * alphabet.length)];
      return s;
    }
    case 4:
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let n = Math.floor(r() * 5); n > 0; n--) o[`k${Math.floor(r() * 20)}`] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe("parseJson: differential checks", () => {
  it("accepts every JSON.stringify output and returns the same value (2,000 random values)", () => {
    const r = rng(1);
    for (let n = 0; n < 2000; n++) {
      const text = JSON.stringify(randomValue(r, 0), null, n % 3 === 0 ? 2 : undefined);
      expect(parseJson(text)).toEqual(JSON.parse(text));
    }
  });

  it("agrees with JSON.parse and with its own full scanner on mutated texts (20,000 mutations)", () => {
    const r = rng(2);
    const pieces = ["", ",", "]", "}", "[", "{", '"', "\\", "\\u", "\\ud800", "\\udc00", "0", "-", "e", ".", "/", " ", "\n", "\u0000", "\ud800", "true", "nul", ":", '"a":1,'];
    for (let n = 0; n < 20_000; n++) {
      const base = JSON.stringify(randomValue(r, 0));
      const at = Math.floor(r() * (base.length + 1));
      const cut = Math.floor(r() * 3);
      const text = base.slice(0, at) + pieces[Math.floor(r() * pieces.length)] + base.slice(at + cut);
      const strict = tryParseJson(text);
      let platform: unknown;
      let platformOk = true;
      try {
        platform = JSON.parse(text);
      } catch {
        platformOk = false;
      }
      // The full scanner must agree with the fast path about acceptance.
      expect(scanJson(text, MAX_JSON_DEPTH) === null, text).toBe(strict.ok);
      // Whatever the strict parser accepts, the platform accepts identically.
      if (strict.ok) {
        expect(platformOk, text).toBe(true);
        expect(strict.value).toEqual(platform);
      }
    }
  });
});
