import { describe, expect, it } from "vitest";
import { isIsoagentError } from "../../src/index.js";
import { canonicalJson, cloneJson, hashJson, JsonValueError, sha256Hex } from "../../src/json/index.js";

const fromBits = (hex: string): number => new DataView(new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16))).buffer).getFloat64(0);

describe("canonicalJson (RFC 8785)", () => {
  it("serialises numbers as the RFC's table says", () => {
    const table: [string, string][] = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"],
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["0010000000000000", "2.2250738585072014e-308"],
      ["4340000000000000", "9007199254740992"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ];
    for (const [bits, text] of table) expect(canonicalJson(fromBits(bits))).toBe(text);
  });

  it("canonicalises the RFC's example object", () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it("sorts keys by UTF-16 code units, as the RFC's example", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    expect(canonicalJson(input).indexOf('"\\r"')).toBeLessThan(canonicalJson(input).indexOf('"1"'));
    const order = [...canonicalJson(input).matchAll(/"([^"]*)":"[^"]*"/g)].map((m) => m[1]);
    expect(order).toEqual(["\\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
  });

  it("orders keys as Array.prototype.sort does, for few keys and many, integer-like and astral ones included", () => {
    const alphabet = ["a", "b", "Z", "0", "1", "9", "10", "\u00e9", "\ud83d\ude00", "\uffff", "_", "aa", "a0"];
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    for (let round = 0; round < 300; round++) {
      const obj: Record<string, number> = {};
      const count = rand(40);
      for (let k = 0; k < count; k++) obj[Array.from({ length: 1 + rand(3) }, () => alphabet[rand(alphabet.length)]).join("")] = k;
      const expected = Object.keys(obj).sort();
      expect(canonicalJson(obj)).toBe(`{${expected.map((key) => `${JSON.stringify(key)}:${obj[key]}`).join(",")}}`);
    }
  });

  it("refuses what is not usable JSON, naming where", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle["self"] = cycle;
    let deep: unknown = 1;
    for (let k = 0; k < 257; k++) deep = [deep];
    const cases: [unknown, string, string][] = [
      [undefined, "JSON_NOT_SERIALIZABLE", "undefined is not JSON at the root"],
      [{ a: [1, undefined] }, "JSON_NOT_SERIALIZABLE", "undefined is not JSON at /a/1"],
      [{ a: NaN }, "JSON_NOT_SERIALIZABLE", "NaN is not a JSON number at /a"],
      [[Infinity], "JSON_NOT_SERIALIZABLE", "Infinity is not a JSON number at /0"],
      [{ n: 10n }, "JSON_NOT_SERIALIZABLE", "a BigInt is not JSON at /n"],
      [{ f: () => 1 }, "JSON_NOT_SERIALIZABLE", "a function is not JSON at /f"],
      [{ d: new Date(0) }, "JSON_NOT_SERIALIZABLE", "an object of class Date is not JSON at /d"],
      [{ "a/b~": new Map() }, "JSON_NOT_SERIALIZABLE", "an object of class Map is not JSON at /a~1b~0"],
      [cycle, "JSON_NOT_SERIALIZABLE", "a cycle is not JSON at /self"],
      // eslint-disable-next-line no-sparse-arrays -- the hole is the case
      [[, 1], "JSON_NOT_SERIALIZABLE", "an array hole is not JSON at /0"],
      [{ s: "a\ud800" }, "JSON_LONE_SURROGATE", "a string with an unpaired surrogate is not JSON at /s"],
      [{ "\udc00": 1 }, "JSON_LONE_SURROGATE", "a key with an unpaired surrogate is not JSON at /\udc00"],
      [deep, "JSON_TOO_DEEP", "nesting deeper than 256 levels at " + "/0".repeat(256)],
    ];
    for (const [value, code, message] of cases) {
      let caught: unknown;
      try {
        canonicalJson(value);
      } catch (e) {
        caught = e;
      }
      expect(caught, message).toBeInstanceOf(JsonValueError);
      expect(isIsoagentError(caught, code as never)).toBe(true);
      expect((caught as Error).message).toBe(message);
    }
  });

  it("accepts shared (non-cyclic) references and null-prototype objects", () => {
    const shared = { x: 1 };
    const bare = Object.assign(Object.create(null) as object, { b: 2, a: 1 });
    expect(canonicalJson({ p: shared, q: shared, r: bare })).toBe('{"p":{"x":1},"q":{"x":1},"r":{"a":1,"b":2}}');
  });
});

describe("cloneJson", () => {
  it("copies deeply, keeps key order, and refuses exactly what canonicalJson refuses", () => {
    const text = '{"b":[1,{"c":"x"}],"a":null,"__proto__":{"z":1}}';
    const c = cloneJson(JSON.parse(text));
    expect(c).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c as object)).toEqual(["b", "a", "__proto__"]);
    expect(() => cloneJson({ a: undefined })).toThrow("undefined is not JSON at /a");
  });
});

describe("sha256Hex and hashJson", () => {
  it("match the standard vectors", async () => {
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
  it("hash values by their canonical form", async () => {
    expect(await hashJson({ a: 1, b: [2, 3] })).toBe(await hashJson({ b: [2, 3], a: 1 }));
    expect(await hashJson({ a: 1 })).toBe(await sha256Hex('{"a":1}'));
    expect(await hashJson({ a: 1 })).not.toBe(await hashJson({ a: 2 }));
  });
});
