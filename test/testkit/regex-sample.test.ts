/**
 * The fuzzer's regex sampler (src/testkit/regex-sample.ts) on its own
 * (audit finding 6: it had no tests of its own). It answers a string that
 * matches the pattern, or undefined when it cannot; so what these tests pin
 * is which syntax it can sample, and that its samples cover the pattern's
 * range rather than one corner of it.
 */
import { describe, expect, it } from "vitest";
import { sampleMatching } from "../../src/testkit/regex-sample.js";
import { rng } from "../helpers/rng.js";

/** Samples of `pattern` over `n` seeds (each defined: the sampler must handle it). */
function samples(pattern: string, n = 200): string[] {
  const rand = rng(20261201);
  return Array.from({ length: n }, () => {
    const s = sampleMatching(pattern, rand);
    if (s === undefined) throw new Error(`no sample for ${pattern}`);
    return s;
  });
}
const lengths = (xs: string[]) => [...new Set(xs.map((x) => [...x].length))].sort((a, b) => a - b);

describe("sampleMatching", () => {
  it("samples the syntax tool schemas use, each sample matching", () => {
    const patterns = [
      "^[a-z0-9_-]{1,64}$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^(?:https?)://[a-z]+\\.example$",
      "^[A-Z][a-z]*( [A-Z][a-z]*)*$",
      "^\\w+@\\w+\\.(com|org)$",
      "^[^\\s]+$",
      "^\\S\\D\\W$",
      "^a.b$",
      "^\\u00e9[\\u0041-\\u0043]$",
      "^[\\d.]+$",
      "^x\\+y\\?$",
      "^\\t\\n\\r$",
    ];
    for (const p of patterns) for (const s of samples(p, 50)) expect(s, p).toMatch(new RegExp(p, "u"));
  });

  it("covers a quantifier's whole range: {m,n}, {m,} (m to m + 3), *, +, ?, and a lazy one alike", () => {
    expect(lengths(samples("^a{2,4}$"))).toEqual([2, 3, 4]);
    expect(lengths(samples("^a{2,}$"))).toEqual([2, 3, 4, 5]);
    expect(lengths(samples("^a{3}$"))).toEqual([3]);
    expect(lengths(samples("^a*$"))).toEqual([0, 1, 2, 3]);
    expect(lengths(samples("^a+$"))).toEqual([1, 2, 3, 4]);
    expect(lengths(samples("^a?$"))).toEqual([0, 1]);
    expect(lengths(samples("^a+?$"))).toEqual([1, 2, 3, 4]);
  });

  it("picks every alternative, every character of a class and of a range, and nothing a negated class excludes", () => {
    expect(new Set(samples("^(red|green|blue)$"))).toEqual(new Set(["red", "green", "blue"]));
    expect(new Set(samples("^[abc]$"))).toEqual(new Set(["a", "b", "c"]));
    expect(new Set(samples("^[a-e]$"))).toEqual(new Set(["a", "b", "c", "d", "e"]));
    expect(new Set(samples("^[-x]$"))).toEqual(new Set(["-", "x"]));
    expect(new Set(samples("^[x-]$"))).toEqual(new Set(["x", "-"]));
    const negated = samples("^[^a-z]$", 500);
    expect(negated.every((s) => !/[a-z]/.test(s))).toBe(true);
    expect(new Set(negated).size).toBeGreaterThan(40);
    expect(new Set(samples("^\\d$"))).toEqual(new Set([..."0123456789"]));
    expect(new Set(samples("^\\s$"))).toEqual(new Set([" ", "\t"]));
  });

  it("answers undefined for syntax it does not sample, and for a pattern nothing matches", () => {
    const rand = rng(1);
    for (const p of ["(?=a)a", "(?<name>a)", "(a)\\1", "\\p{L}", "\\bword\\b", "a$b", "[", "(a", "a{2,1}", "[]"]) {
      expect(sampleMatching(p, rand), p).toBeUndefined();
    }
  });
});
