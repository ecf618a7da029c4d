import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scaled } from "./helpers/time.js";

// Without any model key, whatever the machine has: the demos use the scripted agent.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC)_/.test(k) && k !== "ISOAGENT_MODEL"));
const tsx = (...args: string[]): string => execFileSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", ...args], { encoding: "utf8", timeout: scaled(90_000), env });

// The README's first command, as a new user runs it; --check walks the demo
// through the HTTP API instead of waiting for an operator.
describe("npm start (scripts/start.ts: the Worker on workerd)", () => {
  const data = mkdtempSync(join(tmpdir(), "isoagent-start-"));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it(
    "serves the API and console, runs the demo to completion, and keeps runs and token across restarts",
    () => {
      const first = tsx("scripts/start.ts", "--check", "--port", "0", "--data", data);
      const token = readFileSync(join(data, "token"), "utf8").trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(statSync(join(data, "token")).mode & 0o777).toBe(0o600);
      // The console's link carries a one-time login code, never the token (a browser keeps visited links in its files).
      expect(first).toMatch(/console: {2}http:\/\/127\.0\.0\.1:\d+\/login#code=c1\.\d+\.[0-9a-f]{32}\.[0-9a-f]{64} \(logs in once, within a minute; press Enter for a new link\)\n/);
      expect(first.split("\n").find((l) => l.includes("console:"))).not.toContain(token);
      expect(first).toContain("runs:     0 kept from earlier starts; demo run run_");
      expect(first).toContain("agent:    the scripted demo agent (set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real model)");
      expect(first).toMatch(/waits for approval apr\.2\.s2c1\.1: write_file \{"path":"notes\/summary\.md"/);
      expect(first).toMatch(/completed: \{"done":true,"summary":"notes\/summary\.md written and checked"\} \(22 journal events\)/);
      // Denied, the demo says what it could not do and claims nothing; a task it does not know, it says so.
      expect(first).toMatch(/\(write denied\) completed: \{"done":false,"summary":"notes\/summary\.md was not written: the write was declined"\}/);
      expect(first).toMatch(
        /\(task "hello"\) completed: \{"done":false,"summary":"The demo agent only knows one task \(\\"Summarise notes\/todo\.md into notes\/summary\.md\\"\), so it did nothing for: hello"\}/,
      );
      const second = tsx("scripts/start.ts", "--check", "--port", "0", "--data", data);
      expect(second).toContain(`token:    ${token}`);
      expect(second).toContain("runs:     3 kept from earlier starts");
    },
    scaled(120_000),
  );
});

describe("npm run example:node (examples/node/demo.ts)", () => {
  it(
    "runs both parts of the demo to completion",
    () => {
      const out = tsx("examples/node/demo.ts", "--yes");
      expect(out).toContain("approval.requested apr.2.s2c1.1: call write_file");
      expect(out).toContain('=> completed: {"summary":"notes/summary.md written and checked"}');
      expect(out).toContain("call.reconciled    s1c1: record_result by hook");
      expect(out).toContain("=> completed: the write took effect once");
      expect(out).toContain("Both journals verified");
    },
    scaled(60_000),
  );
});

describe("npm start with a model key (against a local server speaking OpenAI's wire format)", () => {
  it(
    "says it uses OpenAI, and its runs go through the model",
    async () => {
      const { execFile } = await import("node:child_process");
      const { promisify } = await import("node:util");
      const { mockModelServer, responsesStream } = await import("./helpers/mock-model.js");
      const server = await mockModelServer();
      server.answer(
        { chunks: responsesStream({ calls: [{ id: "call_a", name: "read_file", args: '{"path":"notes/todo.md"}' }] }) },
        { chunks: responsesStream({ calls: [{ id: "call_b", name: "write_file", args: JSON.stringify({ path: "notes/summary.md", content: "3 things" }) }] }) },
        { chunks: responsesStream({ text: "Wrote notes/summary.md." }) },
      );
      const data = mkdtempSync(join(tmpdir(), "isoagent-start-model-"));
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--check", "--port", "0", "--data", data], {
          encoding: "utf8",
          timeout: scaled(90_000),
          env: { ...env, OPENAI_API_KEY: "sk-test-start-0123456789", OPENAI_BASE_URL: server.url, ISOAGENT_MODEL: "gpt-mock" },
        });
        expect(stdout).toContain(`agent:    openai gpt-mock at ${server.url}`);
        expect(stdout).not.toContain("sk-test-start");
        expect(stdout).toMatch(/waits for approval apr\.2\.call_b\.1: write_file \{"path":"notes\/summary\.md","content":"3 things"\}/);
        expect(stdout).toMatch(/completed: "Wrote notes\/summary\.md\." \(\d+ journal events\)/);
        expect(server.requests).toHaveLength(3);
        expect(server.requests[0]!.headers["authorization"]).toBe("Bearer sk-test-start-0123456789");
        expect(server.requests[0]!.body.input).toEqual([{ role: "user", content: "Summarise notes/todo.md into notes/summary.md" }]);
      } finally {
        await server.close();
        rmSync(data, { recursive: true, force: true });
      }
    },
    scaled(120_000),
  );
});

describe("npm run example:model (a model run replayed from its recording)", () => {
  it(
    "replays the recorded run with no network and completes it, the write approved",
    () => {
      const out = tsx("examples/node/model-demo.ts");
      expect(out).toContain("agent: openai gpt-5-mini, replayed from examples/recordings/openai-summarise-notes.json with no network");
      expect(out).toContain("approving apr.2.call_write1.1 (write_file notes/summary.md) as the demo's operator");
      expect(out).toContain('=> completed: "Wrote a three-item summary to notes/summary.md."');
      expect(out).toContain("notes/summary.md:\n# Summary\n\n3 things to do:\n- buy milk");
    },
    scaled(60_000),
  );
});
