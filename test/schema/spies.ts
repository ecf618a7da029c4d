import type { Check } from "../../src/schema/fast-core.js";

/**
 * A compile that gives each subschema `{ name }` a check answering
 * `verdicts[name]` and logging its calls; true, false and an absent schema
 * compile as the evaluator's own do. The checks a keyword group makes run
 * combined, as the evaluator runs them (fast-core.ts: all).
 */
export function spies(verdicts: Record<string, boolean>): { calls: string[]; compile: (s: unknown) => Check } {
  const calls: string[] = [];
  const compile = (s: unknown): Check => {
    if (s === undefined || s === true) return () => true;
    if (s === false) return () => false;
    const name = String((s as { name: unknown }).name);
    return (v) => {
      calls.push(`${name}(${JSON.stringify(v)})`);
      return verdicts[name] ?? false;
    };
  };
  return { calls, compile };
}
