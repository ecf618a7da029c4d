/**
 * The commands a newcomer runs besides the two in the README (issue 15,
 * finding 8): each does what the README says, and fails with one clear line
 * when what it needs is missing.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { coreBrowserBundle } from "../scripts/lib/bundle.js";
import { startCollector } from "./helpers/collector.js";

const run = promisify(execFile);
const tsx = (...args: string[]) =>
  run(process.execPath, ["node_modules/tsx/dist/cli.mjs", ...args], { encoding: "utf8", timeout: 90_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe("the conformance commands without the suites", () => {
  it("say in one line where the suites come from, and exit 2", async () => {
    for (const script of ["scripts/conformance-json.ts", "scripts/conformance-schema.ts"]) {
      const r = await tsx(script, "/nonexistent/suite");
      expect(r.code, script).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^no (JSONTestSuite test_parsing|JSON Schema Test Suite) at \/nonexistent\/suite: the suites are not part of isoagent; see docs\/testing\.md, "Conformance suites", for where they come from/,
      );
    }
  });
});

describe("npm run example:serve (the HTTP app in Node, on @hono/node-server)", () => {
  it("serves the API and the console, runs the demo through them, and has sent the runs' spans to the collector OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names by the time it exits", async () => {
    const collector = await startCollector();
    const env = { ...process.env, ISOAGENT_TOKEN: "serve-test-token-0123456789", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=node" };
    const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "examples/node/serve.ts", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.on("exit", r));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /in Node at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
          if (m !== null) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`example:serve exited ${code}: ${out}`)));
      });
      const auth = { authorization: "Bearer serve-test-token-0123456789", "content-type": "application/json" };
      expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
      const { runId } = (await (await fetch(`${base}/runs`, { method: "POST", headers: auth, body: JSON.stringify({ task: "Summarise notes/todo.md into notes/summary.md" }) })).json()) as {
        runId: string;
      };
      let run: { status: string; approvals: unknown[] } = { status: "running", approvals: [] };
      // Waits on the state; the test's own timeout bounds it.
      while (run.status !== "waiting" && run.status !== "failed") {
        run = ((await (await fetch(`${base}/runs/${runId}`, { headers: auth })).json()) as { run: typeof run }).run;
        if (run.status !== "waiting") await new Promise((r) => setTimeout(r, 25));
      }
      expect(run.status).toBe("waiting");
      expect((await fetch(`${base}/login`)).status).toBe(200);
      // Stopped (most likely before its first 10 s interval): by the time it has exited, what ended was sent.
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect([...collector.names.values()]).toContain("execute_tool read_file");
      expect(collector.lastHeaders?.["x-api-key"]).toBe("node");
    } finally {
      child.kill("SIGTERM");
      await collector.close();
    }
  }, 60_000);
});

describe("npm run deploy", () => {
  it("bundles the Worker of wrangler.toml with its two Durable Object bindings (wrangler deploy --dry-run)", async () => {
    const out = mkdtempSync(join(tmpdir(), "isoagent-deploy-"));
    try {
      const r = await run(process.execPath, ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--outdir", out], {
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      });
      expect(r.stdout).toContain("env.RUNS (RunObject)");
      expect(r.stdout).toContain("env.RUN_INDEX (RunIndex)");
      expect(r.stdout).toContain("--dry-run: exiting now.");
      expect(readFileSync(join(out, "index.js"), "utf8")).toContain("RunIndex");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 150_000);
});

describe("the README's figures", () => {
  it("quote the core's size as npm run build prints it", async () => {
    const size = await coreBrowserBundle();
    const kb = (size.gzipBytes / 1024).toFixed(1);
    expect(readFileSync("README.md", "utf8")).toContain(`**${kb} KB** minified and gzipped`);
  });
});
