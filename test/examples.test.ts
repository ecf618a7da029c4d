import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const tsx = (...args: string[]): string => execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", ...args], { encoding: "utf8", timeout: 90_000 });

// The README's first command, as a new user runs it; --check walks the demo
// through the HTTP API instead of waiting for an operator.
describe("npm start (scripts/start.ts: the Worker on workerd)", () => {
  const data = mkdtempSync(join(tmpdir(), "isoagent-start-"));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it("serves the API and console, runs the demo to completion, and keeps runs and token across restarts", () => {
    const first = tsx("scripts/start.ts", "--check", "--port", "0", "--data", data);
    const token = readFileSync(join(data, "token"), "utf8").trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(join(data, "token")).mode & 0o777).toBe(0o600);
    expect(first).toMatch(new RegExp(`console: {2}http://127\\.0\\.0\\.1:\\d+/\\?token=${token}`));
    expect(first).toContain("runs:     0 kept from earlier starts; demo run run_");
    expect(first).toMatch(/waits for approval apr\.2\.s2c1\.1: write_file \{"path":"notes\/summary\.md"/);
    expect(first).toMatch(/completed: \{"summary":"notes\/summary\.md written and checked"\} \(22 journal events\)/);
    const second = tsx("scripts/start.ts", "--check", "--port", "0", "--data", data);
    expect(second).toContain(`token:    ${token}`);
    expect(second).toContain("runs:     1 kept from earlier starts");
  }, 120_000);
});

describe("npm run example:node (examples/node/demo.ts)", () => {
  it("runs both parts of the demo to completion", () => {
    const out = tsx("examples/node/demo.ts", "--yes");
    expect(out).toContain("approval.requested apr.2.s2c1.1: call write_file");
    expect(out).toContain('=> completed: {"summary":"notes/summary.md written and checked"}');
    expect(out).toContain("call.reconciled    s1c1: record_result by hook");
    expect(out).toContain("=> completed: the write took effect once");
    expect(out).toContain("Both journals verified");
  }, 60_000);
});
