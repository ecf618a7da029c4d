import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkBudget, describeBudget } from "../scripts/lib/size-budget.js";

describe("the core's size budget (scripts/lib/size-budget.ts)", () => {
  it("holds: every entry within its budget, none far under it (the budget only ratchets down)", async () => {
    const lines = await checkBudget();
    for (const line of lines) console.log(describeBudget(line));
    expect(lines.map((l) => l.problem).filter((p) => p !== undefined)).toEqual([]);
  });

  it("is what the README quotes for the createDriver entry and for full schema support", async () => {
    const [, driver] = await checkBudget();
    const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
    const readme = readFileSync("README.md", "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(`\`scriptedAgent\` loads ${kb(driver!.bundle.gzipBytes)};`);
    expect(readme).toContain(`is a chunk of ${kb(driver!.bundle.lazy.gzipBytes)} loaded only by`);
  });
});
