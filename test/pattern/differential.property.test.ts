import { describe, expect, it } from "vitest";
import { compilePattern } from "../../src/pattern/index.js";
import { rng } from "../helpers/rng.js";
import { randomInput, randomPattern } from "./generate.js";

/**
 * The property the pattern engine stands on: on every pattern both accept,
 * the matcher answers exactly as RegExp's `test` with the same flags.
 * Patterns come from a grammar (generate.ts); inputs are short, so that
 * RegExp itself never backtracks for long on a random pattern.
 */
describe("the linear-time matcher answers as RegExp (differential, random patterns and inputs)", () => {
  for (const ignoreCase of [false, true]) {
    const flags = ignoreCase ? "iu" : "u";
    it(`${flags}: 1,500 random patterns × 24 random inputs each`, () => {
      const r = rng(ignoreCase ? 0x1ca5e : 0x5eed);
      let compared = 0;
      const wrong: string[] = [];
      for (let k = 0; k < 1500; k++) {
        const source = randomPattern(r);
        let re: RegExp;
        try {
          re = new RegExp(source, flags);
        } catch {
          expect(compilePattern(source, { ignoreCase }).ok, source).toBe(false);
          continue;
        }
        const c = compilePattern(source, { ignoreCase, matcherOnly: true });
        // The grammar makes nothing the matcher refuses.
        if (!c.ok) throw new Error(`${JSON.stringify(source)} refused: ${c.why}`);
        for (let j = 0; j < 24; j++) {
          const input = randomInput(r, 12);
          compared++;
          if (c.pattern.test(input) !== re.test(input)) wrong.push(`/${source}/${flags} on ${JSON.stringify(input)}: RegExp says ${re.test(input)}`);
        }
      }
      expect(wrong.slice(0, 10)).toEqual([]);
      expect(compared).toBeGreaterThan(30_000);
    });
  }

  it("what runs on RegExp (proved linear) answers as RegExp, and each kind is met", () => {
    const r = rng(0x11ea2);
    let native = 0;
    let matcher = 0;
    for (let k = 0; k < 1500; k++) {
      const source = randomPattern(r);
      const c = compilePattern(source);
      if (!c.ok) continue;
      const re = new RegExp(source, "u");
      if (c.pattern.native) native++;
      else matcher++;
      for (let j = 0; j < 8; j++) {
        const input = randomInput(r, 12);
        expect(c.pattern.test(input), `/${source}/u on ${JSON.stringify(input)}`).toBe(re.test(input));
      }
    }
    expect(native).toBeGreaterThan(100);
    expect(matcher).toBeGreaterThan(100);
  });

  it("answers as RegExp across cache resets (a pattern whose DFA has 2^13 states, over 2,000 random a/b)", () => {
    const r = rng(7);
    const source = "(?:a|b)*a(?:a|b){12}c";
    const c = compilePattern(source);
    if (!c.ok) throw new Error(c.why);
    const re = new RegExp(source, "u");
    for (let k = 0; k < 4; k++) {
      let s = "";
      for (let j = 0; j < 2000; j++) s += r() < 0.5 ? "a" : "b";
      const input = k % 2 === 0 ? s : `${s}c`;
      expect(c.pattern.test(input)).toBe(re.test(input));
    }
  });
});
