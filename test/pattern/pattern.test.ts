import { describe, expect, it } from "vitest";
import { compilePattern, MAX_PATTERN_LENGTH, MAX_PATTERN_NESTING, MAX_PROGRAM } from "../../src/pattern/index.js";
import { MAX_LINEAR_PROGRAM } from "../../src/pattern/linear.js";

const why = (source: string, ignoreCase = false): string => {
  const r = compilePattern(source, { ignoreCase });
  return r.ok ? "ok" : `${r.reason}: ${r.why}`;
};
const native = (source: string): boolean => {
  const r = compilePattern(source);
  if (!r.ok) throw new Error(r.why);
  return r.pattern.native;
};

describe("compilePattern: what it refuses, and why", () => {
  it("refuses what no linear-time matcher can run: backreferences and lookaround", () => {
    expect(why("(a)\\1")).toBe("unsupported: uses a backreference (\\1), which a linear-time matcher cannot run");
    expect(why("(?<x>a)\\k<x>")).toBe("unsupported: uses a backreference (\\k), which a linear-time matcher cannot run");
    for (const p of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b"]) {
      expect(why(p)).toBe("unsupported: uses a lookaround assertion ((?=, (?!, (?<=, (?<!), which a linear-time matcher cannot run");
    }
  });

  it("refuses what is not an ECMAScript pattern as invalid, by RegExp's own verdict (u mode)", () => {
    for (const p of ["(", "a{2,1}", "\\-", "]", "a**", "\\p{Nope}"]) expect(why(p)).toBe("invalid: is not a valid regular expression");
    // Valid without u, invalid with it.
    expect(why("\\_")).toBe("invalid: is not a valid regular expression");
  });

  it("bounds the pattern: its length, its groups' depth, and what counted repetition expands to", () => {
    expect(why("a".repeat(MAX_PATTERN_LENGTH + 1))).toBe(`unsupported: is longer than ${MAX_PATTERN_LENGTH} characters`);
    expect(why(`${"(".repeat(MAX_PATTERN_NESTING + 1)}a${")".repeat(MAX_PATTERN_NESTING + 1)}`)).toBe(`unsupported: nests groups deeper than ${MAX_PATTERN_NESTING} levels`);
    expect(why(`${"(".repeat(MAX_PATTERN_NESTING)}a${")".repeat(MAX_PATTERN_NESTING)}`)).toBe("ok");
    const expands = `unsupported: expands to more than ${MAX_PROGRAM} steps (each repetition counts its copies: a{1000} is 1,000)`;
    expect(why("(a{1000}){1000}")).toBe(expands);
    expect(why("a{1001}")).toBe(expands);
    expect(why("a{998}")).toBe("ok");
    expect(why("[a-z]{0,99999999}")).toBe(expands);
    expect(why(`a{1,${"9".repeat(40)}}`)).toBe("unsupported: has a repetition count too large to run");
    // A body that is nothing repeats at no cost.
    expect(why("(?:){99999999999999999999}a")).toBe("ok");
  });

  it("takes group modifiers nowhere (where RegExp has them, the matcher does not)", () => {
    let supported = true;
    try {
      new RegExp("(?i:a)", "u");
    } catch {
      supported = false;
    }
    expect(why("(?i:a)")).toBe(supported ? "unsupported: uses a group modifier ((?i: and the like), which the matcher does not take" : "invalid: is not a valid regular expression");
  });
});

describe("compilePattern: which patterns run on RegExp (proved linear there, src/pattern/linear.ts)", () => {
  it("takes the anchored, deterministic patterns tool schemas use", () => {
    for (const p of [
      "^[A-Za-z0-9_-]+$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^https?://[^\\s/$.?#].[^\\s]*$",
      "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
      "^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z-.]+)?$",
      "^[a-z]+(-[a-z]+)*$",
      "^#[0-9a-fA-F]{6}$",
      "^\\p{L}+$",
      "\\p{Letter}cole",
      '^[^"]*"',
    ]) {
      expect(native(p), p).toBe(true);
    }
  });

  it("leaves to the matcher what can backtrack: nested or overlapping loops, loops a search restarts, case folding", () => {
    for (const p of ["^(a+)+$", "^(a|a)*$", "^(a*)*$", "^a*a*b", "^(?:a|ab)c", "a+b", "\\s*$", "f.*o", "^\\S+\\s", "^[a-z0-9.-]+\\.[a-z]{2,}$"]) {
      expect(native(p), p).toBe(false);
    }
    const folded = compilePattern("^[a-z]+$", { ignoreCase: true });
    expect(folded.ok && folded.pattern.native).toBe(false);
    // Past the size the proof looks at, the matcher runs it.
    expect(native(`^${"a".repeat(MAX_LINEAR_PROGRAM)}$`)).toBe(false);
    expect(native(`^${"a".repeat(MAX_LINEAR_PROGRAM - 10)}$`)).toBe(true);
  });

  it("falls back to the matcher when RegExp gives up on a long input (V8's backtrack stack: RangeError)", () => {
    const r = compilePattern("^(?:a|b)*$");
    if (!r.ok) throw new Error(r.why);
    expect(r.pattern.native).toBe(true);
    const long = "ab".repeat(5_000_000);
    let nativeThrew = false;
    try {
      /^(?:a|b)*$/u.test(long);
    } catch {
      nativeThrew = true;
    }
    // The premise (V8 here): RegExp itself throws on this input...
    expect(nativeThrew).toBe(true);
    // ...and the pattern still answers.
    expect(r.pattern.test(long)).toBe(true);
    expect(r.pattern.test(`${long}c`)).toBe(false);
  });
});

describe("the matcher on what RegExp does in u mode", () => {
  const both = (source: string, input: string, ignoreCase = false): [boolean, boolean] => {
    const r = compilePattern(source, { ignoreCase, matcherOnly: true });
    if (!r.ok) throw new Error(r.why);
    return [r.pattern.test(input), new RegExp(source, ignoreCase ? "iu" : "u").test(input)];
  };
  it("iterates by code point: a surrogate pair is one, a lone surrogate is one", () => {
    for (const [p, s] of [
      ["^.$", "😀"],
      ["^..$", "😀"],
      ["^.$", "\uD83D"],
      ["^\\uD83D$", "😀"],
      ["^\\uD83D\\uDE00$", "😀"],
      ["\\uDE00", "😀"],
      ["^[😀-😂]+$", "😁😂"],
      ["^\\u{1F600}$", "😀"],
    ] as const) {
      const [got, want] = both(p, s);
      expect(got, `${p} on ${s}`).toBe(want);
    }
  });
  it("folds case as RegExp does under i (the Kelvin sign, the long s, in \\w and \\b too)", () => {
    for (const [p, s] of [
      ["^k$", "\u212A"],
      ["^\\w$", "\u017F"],
      ["\\bs\\b", " \u017F "],
      ["^[a-z]+$", "ÀB"],
      ["^σ$", "ς"],
    ] as const) {
      const [got, want] = both(p, s, true);
      expect(got, `${p} on ${s}`).toBe(want);
    }
  });
  it("answers as the platform where it starts a match between the halves of a pair (V8 finds \\B there)", () => {
    expect(both("\\B", "7😀s")).toEqual([/\B/u.test("7😀s"), /\B/u.test("7😀s")]);
    expect(both("^\\B", "7😀s")).toEqual([false, false]);
  });
});
