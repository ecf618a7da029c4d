import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// The README's first command, as a new user runs it (without a terminal, the
// demo answers its approval itself).
describe("npm start (examples/node/demo.ts)", () => {
  it("runs both parts of the demo to completion", () => {
    const out = execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "examples/node/demo.ts", "--yes"], { encoding: "utf8", timeout: 60_000 });
    expect(out).toContain("approval.requested apr.2.s2c1.1: call write_file");
    expect(out).toContain('=> completed: {"summary":"notes/summary.md written and checked"}');
    expect(out).toContain("call.reconciled    s1c1: record_result by hook");
    expect(out).toContain("=> completed: the write took effect once");
    expect(out).toContain("Both journals verified");
  }, 60_000);
});
