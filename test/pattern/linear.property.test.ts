/**
 * The security property of linear.ts: a pattern it lets run on RegExp never
 * makes a backtracker do more than linear work. Timing RegExp would be a
 * timed assertion, so a backtracker of our own, which explores the program
 * in RegExp's order (each start position, then greedy first), counts its
 * steps on random patterns and inputs built to hurt them. The same counter
 * finds `^(a+)+$` blowing up, so the bound can fail.
 */
import { describe, expect, it } from "vitest";
import { backtracksLinearly } from "../../src/pattern/linear.js";
import { matcher } from "../../src/pattern/match.js";
import { parsePattern, PatternRefusal } from "../../src/pattern/parse.js";
import { ASSERT, buildProgram, CHAR, MATCH, SPLIT, type Program } from "../../src/pattern/program.js";
import { rng } from "../helpers/rng.js";
import { randomPattern, type Random } from "./generate.js";

const isWord = (c: number | undefined): boolean => c !== undefined && /^\w$/u.test(String.fromCodePoint(c));

/** Steps a backtracker takes to answer `test` (stopping past `cap`). */
function backtrackSteps(p: Program, has: (a: number, c: number) => boolean, input: string, cap: number): number {
  const cps = [...input].map((ch) => ch.codePointAt(0)!);
  let steps = 0;
  for (let start = 0; start <= cps.length; start++) {
    const stack: [number, number][] = [[p.start, start]];
    while (stack.length > 0) {
      if (++steps > cap) return steps;
      const [node, pos] = stack.pop()!;
      const o = p.op[node];
      if (o === MATCH) return steps;
      if (o === CHAR) {
        if (pos < cps.length && has(p.x[node]!, cps[pos]!)) stack.push([p.y[node]!, pos + 1]);
      } else if (o === SPLIT) {
        stack.push([p.y[node]!, pos], [p.x[node]!, pos]);
      } else if (o === ASSERT) {
        const a = p.x[node];
        const before = isWord(cps[pos - 1]);
        const after = isWord(cps[pos]);
        const holds = a === 0 ? pos === 0 : a === 1 ? pos === cps.length : a === 2 ? before !== after : before === after;
        if (holds) stack.push([p.y[node]!, pos]);
      }
    }
  }
  return steps;
}

/** An input that hurts: long runs of the pattern's own code points, and a few others. */
function hostileInput(r: Random, p: Program, has: (a: number, c: number) => boolean, length: number): string {
  const pool: number[] = [];
  for (const c of [..."abcAks-_ 07./😀é\n", "\uD83D"].map((ch) => ch.codePointAt(0)!)) if (p.atoms.some((_, a) => has(a, c))) pool.push(c);
  pool.push("!".codePointAt(0)!);
  let s = "";
  while ([...s].length < length) {
    const c = pool[Math.floor(r() * pool.length)]!;
    const run = 1 + Math.floor(r() * 40);
    s += String.fromCodePoint(c).repeat(run);
  }
  return s;
}

describe("what linear.ts lets run on RegExp takes a backtracker linear work (property)", () => {
  it("1,200 random patterns it proves, each on 6 hostile inputs of 300 code points: at most 3 × (n + 1) × |program| steps", () => {
    const r = rng(0x11ea7);
    let proved = 0;
    const over: string[] = [];
    for (let k = 0; k < 6000 && proved < 1200; k++) {
      const source = randomPattern(r);
      try {
        new RegExp(source, "u");
      } catch {
        continue;
      }
      let program: Program;
      try {
        program = buildProgram(parsePattern(source));
      } catch (e) {
        if (e instanceof PatternRefusal) continue;
        throw e;
      }
      const m = matcher(program, "u");
      if (!backtracksLinearly(program, m.has)) continue;
      proved++;
      for (let j = 0; j < 6; j++) {
        const input = hostileInput(r, program, m.has, 300);
        const bound = 3 * (301 + 1) * program.op.length;
        const steps = backtrackSteps(program, m.has, input, bound);
        if (steps > bound) over.push(`/${source}/u on ${JSON.stringify(input.slice(0, 40))}…: more than ${bound} steps`);
      }
    }
    expect(over.slice(0, 5)).toEqual([]);
    expect(proved).toBe(1200);
  });

  it("the counter sees a backtracking blow-up: ^(a+)+$, two paths to each a, ^a*a*b and a+b (which linear.ts refuses) go past the bound", () => {
    for (const source of ["^(a+)+$", "^(?:(?:|)a)+$", "^a*a*a*b", "a+b"]) {
      const program = buildProgram(parsePattern(source));
      const m = matcher(program, "u");
      expect(backtracksLinearly(program, m.has), source).toBe(false);
      const input = `${"a".repeat(300)}!`;
      const bound = 3 * (input.length + 1) * program.op.length;
      expect(backtrackSteps(program, m.has, input, bound), source).toBeGreaterThan(bound);
    }
  });
});
