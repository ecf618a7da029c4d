import { describe, expect, it } from "vitest";
import { canonicalJson, hashJsonSync, sha256Hex, sha256HexSync } from "../../src/json/index.js";

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % n;
}

const pieces = ["a", "Z", " ", '"', "\\", "/", "\n", "\t", "\b", "\f", "\r", "\u0000", "\u001f", "\u007f", "é", "€", "\u2028", "\ufeff", "\uffff", "😀", "𝄞", "0", "1", "10"];

function randomString(r: (n: number) => number, max: number): string {
  let s = "";
  const len = r(max);
  for (let k = 0; k < len; k++) s += pieces[r(pieces.length)];
  return s;
}

const numbers = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789.123, -(2 ** 53), 2 ** 53 + 2];

function randomValue(r: (n: number) => number, depth: number): unknown {
  const kind = depth > 4 ? r(4) : r(7);
  switch (kind) {
    case 0:
      return randomString(r, r(4) === 0 ? 200 : 12);
    case 1:
      return numbers[r(numbers.length)];
    case 2:
      return [true, false, null][r(3)];
    case 3:
      return r(1000) - 500;
    case 4:
      return Array.from({ length: r(5) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const count = r(4) === 0 ? 17 + r(10) : r(6);
      for (let k = 0; k < count; k++) o[randomString(r, 4)] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe("sha256HexSync", () => {
  it("agrees with crypto.subtle at every length around the block boundaries, for text and bytes", async () => {
    for (let n = 0; n < 300; n++) {
      const text = "é😀x".repeat(n).slice(0, n);
      expect(sha256HexSync(text)).toBe(await sha256Hex(text));
      const bytes = Uint8Array.from({ length: n }, (_, k) => (k * 31 + n) & 255);
      expect(sha256HexSync(bytes)).toBe(await sha256Hex(bytes));
    }
  });
});

describe("hashJsonSync", () => {
  it("is the SHA-256 of canonicalJson's text, over 3,000 generated values", async () => {
    const r = rng(20261130);
    for (let k = 0; k < 3000; k++) {
      const value = randomValue(r, 0);
      expect(hashJsonSync(value), JSON.stringify(value)).toBe(await sha256Hex(canonicalJson(value)));
    }
  });

  it("takes a value larger than its buffer", async () => {
    const value = { big: "x".repeat(100_000), many: Array.from({ length: 3000 }, (_, k) => ({ k, s: `é${k}` })) };
    expect(hashJsonSync(value)).toBe(await sha256Hex(canonicalJson(value)));
  });

  it("refuses what canonicalJson refuses, with the same error", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    const refused: unknown[] = [{ a: "\ud800" }, { ["\udc00"]: 1 }, [1, undefined], { n: Number.NaN }, cycle, new Date(0), { f: () => 1 }, 10n];
    for (const value of refused) {
      let expected: unknown;
      try {
        canonicalJson(value);
      } catch (e) {
        expected = e;
      }
      expect(expected).toBeDefined();
      expect(() => hashJsonSync(value)).toThrow(expected as Error);
    }
  });

  it("hashes right when a getter on the way hashes something else", async () => {
    const inner = { deep: "value" };
    const value = {
      a: 1,
      get b() {
        return hashJsonSync(inner);
      },
      c: "after",
    };
    expect(hashJsonSync(value)).toBe(await sha256Hex(canonicalJson(value)));
  });
});
