/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, a
 * dev dependency) against isoagent, offline: every connection the suite's
 * processes open other than to loopback is refused and logged (there must be
 * none). The scenario list and the baseline of expected failures, with
 * reasons, are committed in examples/mcp-conformance/; the suite itself
 * applies the baseline, so a new failure and a stale entry both fail.
 *
 * - client: `conformance client --command "<isoagent's client>"`, whose every
 *   call goes through a driver (examples/mcp-conformance/client.ts);
 * - server: `conformance server --url`, against isoagent tools served by
 *   `mcpServer` in a Worker on workerd, on loopback, without authentication:
 *   the suite sends no bearer token.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../helpers/workerd.js";

const CLI = resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
const OFFLINE = resolve("test/workerd/conformance/offline.mjs");
const BASELINE = resolve("examples/mcp-conformance/expected-failures.yml");
const SCENARIOS = JSON.parse(readFileSync("examples/mcp-conformance/scenarios.json", "utf8")) as {
  server: { run: string[] };
  client: { run: string[]; notRun: { scenarios: string[] } };
};
const expectedServerFailures = readFileSync(BASELINE, "utf8")
  .split("\n")
  .map((l) => /^\s+-\s+([a-z0-9-]+)/.exec(l)?.[1])
  .filter((s): s is string => s !== undefined);
const dir = mkdtempSync(join(tmpdir(), "isoagent-conformance-"));
const offlineLog = join(dir, "offline.log");
writeFileSync(offlineLog, "");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the suite's CLI, offline; answers its exit code and output. */
function suite(args: string[], timeoutMs: number): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NODE_OPTIONS: `--import=file://${OFFLINE}`, ISOAGENT_OFFLINE_LOG: offlineLog, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, out: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Per scenario, from the suite's saved checks: passed (no FAILURE; for a client, no WARNING either) or not. */
function outcomes(outputDir: string, prefix: string, strictWarnings: boolean): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const d of readdirSync(outputDir)) {
    const m = /^(.*)-\d{4}-\d{2}-\d{2}T.*$/.exec(d);
    if (m === null || !m[1]!.startsWith(prefix)) continue;
    const checks = JSON.parse(readFileSync(join(outputDir, d, "checks.json"), "utf8")) as { status: string }[];
    out.set(m[1]!.slice(prefix.length), !checks.some((c) => c.status === "FAILURE" || (strictWarnings && c.status === "WARNING")));
  }
  return out;
}

async function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
}

describe("the official MCP conformance suite", () => {
  it("runs its processes behind a guard that refuses and logs any connection but to loopback (the guard can fail)", async () => {
    const probe = await new Promise<number>((done) =>
      execFile(
        process.execPath,
        ["-e", "require('node:net').connect(443, '203.0.113.7').on('error', () => {})"],
        { env: { ...process.env, NODE_OPTIONS: `--import=file://${OFFLINE}`, ISOAGENT_OFFLINE_LOG: offlineLog } },
        (e) => done(e === null ? 0 : 1),
      ),
    );
    expect(probe).toBe(1);
    expect(readFileSync(offlineLog, "utf8")).toBe("connect 203.0.113.7:443\n");
    writeFileSync(offlineLog, "");
  }, 60_000);

  it("the committed scenario list is the suite's own: every scenario run or set aside with its reason", async () => {
    const server = await suite(["list", "--server"], 60_000);
    const client = await suite(["list", "--client"], 60_000);
    const names = (out: string) => [...out.matchAll(/^ {2}- (\S+)/gm)].map((m) => m[1]);
    expect(names(server.out)).toEqual(SCENARIOS.server.run);
    expect(names(client.out)).toEqual([...SCENARIOS.client.run, ...SCENARIOS.client.notRun.scenarios]);
  }, 120_000);

  it("client: isoagent's client passes initialize, tools_call, elicitation (SEP-1034 defaults) and Streamable HTTP (SSE retry), offline", async () => {
    const outputDir = join(dir, "client");
    const command = `${process.execPath} ${resolve("node_modules/tsx/dist/cli.mjs")} ${resolve("examples/mcp-conformance/client.ts")}`;
    for (const scenario of SCENARIOS.client.run) {
      const r = await suite(["client", "--command", command, "--scenario", scenario, "--expected-failures", BASELINE, "-o", outputDir, "--timeout", "60000"], 120_000);
      expect([scenario, r.code, r.code === 0 ? "" : r.out.slice(-2000)]).toEqual([scenario, 0, ""]);
    }
    const seen = outcomes(outputDir, "", true);
    expect([...seen.keys()].sort()).toEqual([...SCENARIOS.client.run].sort());
    expect([...seen.values()].every(Boolean)).toBe(true);
    expect(readFileSync(offlineLog, "utf8")).toBe("");
  }, 300_000);

  it(`server: isoagent tools in mcpServer on workerd pass every scenario but the committed baseline (${expectedServerFailures.length}), offline`, async () => {
    const port = await freePort();
    const mf = new Miniflare({
      modules: true,
      script: await bundleWorker("examples/mcp-conformance/worker.ts"),
      compatibilityDate: "2026-07-01",
      host: "127.0.0.1",
      port,
      bindings: { ALLOWED_HOSTS: `127.0.0.1:${port},localhost:${port}` },
    });
    try {
      await mf.ready;
      const outputDir = join(dir, "server");
      const r = await suite(["server", "--url", `http://127.0.0.1:${port}/mcp`, "--suite", "all", "--expected-failures", BASELINE, "-o", outputDir], 600_000);
      expect([r.code, r.code === 0 ? "" : r.out.slice(-3000)]).toEqual([0, ""]);
      const seen = outcomes(outputDir, "server-", false);
      expect([...seen.keys()].sort()).toEqual([...SCENARIOS.server.run].sort());
      const failed = [...seen]
        .filter(([, ok]) => !ok)
        .map(([s]) => s)
        .sort();
      expect(failed).toEqual([...expectedServerFailures].sort());
      // The tools scenarios isoagent's tools can serve all pass.
      for (const s of [
        "server-initialize",
        "ping",
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "tools-call-error",
        "tools-call-with-progress",
        "json-schema-2020-12",
        "dns-rebinding-protection",
      ])
        expect([s, seen.get(s)]).toEqual([s, true]);
      expect(readFileSync(offlineLog, "utf8")).toBe("");
    } finally {
      await mf.dispose();
    }
  }, 600_000);
});
