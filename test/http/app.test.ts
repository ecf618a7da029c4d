import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend, type RunsBackend } from "../../src/http/index.js";
import { until as waitFor } from "../helpers/time.js";

const TOKEN = "t0k3n-for-tests-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

function setup(backendOverride?: Partial<RunsBackend>) {
  const files: Record<string, string> = {};
  const write = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string(), content: string() }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: (a) => {
      files[a.path] = a.content;
      return { ok: true };
    },
  });
  const driver = createDriver({
    store: memoryStore(),
    ids: sequentialIds(),
    agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("done")]),
    tools: [write as Tool<never, unknown>],
    policy: rulesPolicy([]),
  });
  const backend = { ...driverBackend(driver), ...backendOverride };
  const app = createHttpApp({ backend, tokens: () => [TOKEN], maxBodyBytes: 2048 });
  return { app, driver, files };
}

const json = (body: unknown, headers: Record<string, string> = auth): RequestInit => ({ method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });

/** Waits for a state (no fixed budget: the deadline is scaled by ISOAGENT_TEST_TIMEOUT_SCALE). */
async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  return waitFor(
    "the HTTP app to get there",
    async () => {
      const v = await f();
      return ok(v) ? { v } : undefined;
    },
    { everyMs: 5 },
  ).then((r) => r.v);
}

describe("the HTTP app: authentication", () => {
  it("answers the health check, the login page and the static assets without a token, and every other route only with one", async () => {
    const { app } = setup();
    expect(await (await app.request("/health")).json()).toEqual({ ok: true });
    for (const path of ["/login", "/login.js", "/console.js", "/console.css"]) expect((await app.request(path)).status, path).toBe(200);
    const routes: [string, string][] = [
      ["POST", "/runs"],
      ["GET", "/runs"],
      ["GET", "/runs/run_1"],
      ["GET", "/runs/run_1/events"],
      ["GET", "/runs/run_1/approvals"],
      ["POST", "/runs/run_1/approvals/apr.1"],
      ["POST", "/runs/run_1/cancel"],
      ["POST", "/runs/run_1/reconcile"],
      ["POST", "/logout"],
      ["GET", "/nowhere"],
    ];
    for (const [method, path] of routes) {
      for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: TOKEN }]) {
        const res = await app.request(path, { method, headers });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(await res.json()).toEqual({ error: { code: "UNAUTHORIZED", message: "a valid bearer token is required" } });
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="isoagent"');
      }
    }
    // The console page itself sends a browser without a session to log in.
    const page = await app.request("/");
    expect([page.status, page.headers.get("location")]).toEqual([302, "/login"]);
  });

  it("serves the console to a logged-in browser under a CSP without eval", async () => {
    const { app } = setup();
    const login = await app.request("/login", { method: "POST", headers: { origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ token: TOKEN }) });
    expect(login.status).toBe(204);
    const cookie = login.headers.get("set-cookie")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    const page = await app.request("/", { headers: { cookie: cookie.split(";")[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).not.toContain("unsafe-eval");
    expect(await page.text()).toContain('<script type="module" src="/console.js"></script>');
  });
});

describe("the HTTP app: bodies and errors", () => {
  it("refuses malformed, repeated-key, oversized and ill-shaped bodies with clear errors", async () => {
    const { app } = setup();
    const post = (body: string) => app.request("/runs", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    const cases: [string, number, unknown][] = [
      ['{"task": "x",}', 400, { error: { code: "JSON_SYNTAX", message: "the body is not valid JSON: trailing comma at line 1, column 14" } }],
      ['{"task": "x", "task": "y"}', 400, { error: { code: "JSON_DUPLICATE_KEY", message: 'the body is not valid JSON: duplicate key "task" at line 1, column 15' } }],
      ['{"task": "\\ud800"}', 400, { error: { code: "JSON_LONE_SURROGATE", message: 'the body is not valid JSON: unpaired surrogate "\\ud800" in a string at line 1, column 11' } }],
      ['{"goal": "x"}', 400, { error: { code: "INVALID_BODY", message: 'the body is not what this route takes: missing required property "task"; unexpected property "goal"' } }],
      [JSON.stringify({ task: "x".repeat(3000) }), 413, { error: { code: "BODY_TOO_LARGE", message: "the body is larger than 2048 bytes" } }],
    ];
    for (const [body, status, want] of cases) {
      const res = await post(body);
      expect(res.status, body.slice(0, 30)).toBe(status);
      expect(await res.json()).toEqual(want);
    }
  });

  it("never leaks a stack or a path", async () => {
    const { app } = setup({
      list: async () => {
        throw new Error("ENOENT at /home/ana/isoagent/src/secret.ts:12:3");
      },
    });
    const res = await app.request("/runs", { headers: auth });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
  });

  it("keeps CORS off unless configured", async () => {
    const { app } = setup();
    const res = await app.request("/runs", { headers: { ...auth, origin: "https://evil.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const open = createHttpApp({ backend: driverBackend(setup().driver), tokens: () => [TOKEN], corsOrigins: ["https://ops.example"] });
    const ok = await open.request("/runs", { headers: { ...auth, origin: "https://ops.example" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://ops.example");
  });
});

describe("the HTTP app: runs", () => {
  it("creates a run, shows its approval, refuses the wrong hash with 409, approves, and the run completes", async () => {
    const { app, files } = setup();
    const created = await app.request("/runs", json({ task: { goal: "write a.md" } }));
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    expect(runId).toBe("run_1");
    const { approvals } = (await until(
      async () => (await (await app.request(`/runs/${runId}/approvals`, { headers: auth })).json()) as { approvals: { approvalId: string; requestHash: string; request: { tool: string } }[] },
      (v) => v.approvals.length > 0,
    )) as { approvals: { approvalId: string; requestHash: string; request: { tool: string } }[] };
    const [a] = approvals;
    expect(a!.request.tool).toBe("write_file");
    const wrong = await app.request(`/runs/${runId}/approvals/${a!.approvalId}`, json({ decision: "approve", requestHash: "0".repeat(64) }));
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe("APPROVAL_HASH_MISMATCH");
    const ok = await app.request(`/runs/${runId}/approvals/${a!.approvalId}`, json({ decision: "approve", requestHash: a!.requestHash, by: "ana" }));
    expect(ok.status).toBe(200);
    const done = await until(
      async () => ((await (await app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { status: string; output?: unknown } }).run,
      (r) => r.status === "completed",
    );
    expect(done.output).toBe("done");
    expect(files["a.md"]).toBe("hi");
    const list = (await (await app.request("/runs?status=completed", { headers: auth })).json()) as { runs: { runId: string }[] };
    expect(list.runs.map((r) => r.runId)).toEqual(["run_1"]);
    expect((await app.request("/runs/run_9", { headers: auth })).status).toBe(404);
    expect((await app.request("/runs/not%20an%20id", { headers: auth })).status).toBe(400);
  });

  it("streams the journal over SSE, resuming after Last-Event-ID, and ends with the run", async () => {
    const { app, driver } = setup();
    const runId = await driver.create("t");
    expect((await driver.resume(runId)).status).toBe("waiting");
    await driver.cancel(runId, { by: "ana" });
    const res = await app.request(`/runs/${runId}/events`, { headers: { ...auth, accept: "text/event-stream", "last-event-id": "3" } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(4);
    expect(ids.at(-1)).toBe((await driver.events(runId)).length);
    expect(text).toContain('event: end\ndata: {"status":"cancelled"}');
    const plain = (await (await app.request(`/runs/${runId}/events?from=2`, { headers: auth })).json()) as { events: { seq: number }[] };
    expect(plain.events[0]!.seq).toBe(2);
  });
});

describe("progress over SSE", () => {
  it("streams what the agent has said so far in the step it decides, then the decision journaled once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const driver = createDriver({
      store: memoryStore(),
      ids: sequentialIds(),
      tools: [],
      agent: {
        async decide(_view, ctx) {
          ctx.onProgress?.({ type: "text", delta: "Thinking about " });
          ctx.onProgress?.({ type: "call", index: 0, name: "read_file", argsDelta: '{"path":' });
          await gate;
          return { kind: "final", output: "done" };
        },
      },
    });
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
    const runId = ((await (await app.request("/runs", json({ task: "t" }))).json()) as { runId: string }).runId;
    const res = await app.request(`/runs/${runId}/events`, { headers: { ...auth, accept: "text/event-stream" } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: progress")) text += decoder.decode((await reader.read()).value);
    while (!text.includes("\n\n", text.indexOf("event: progress"))) text += decoder.decode((await reader.read()).value);
    const data = text.slice(text.indexOf("event: progress")).split("\n")[1]!.slice("data: ".length);
    expect(JSON.parse(data)).toEqual({ step: 1, text: "Thinking about ", calls: [{ name: "read_file", args: '{"path":' }] });
    release();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += decoder.decode(r.value);
    }
    expect(text).toContain("event: end");
    expect(text.match(/"type":"step.decided"/g)).toHaveLength(1);
    expect(driver.progress(runId as never)).toBeUndefined();
  });
});

describe("the run's trace over HTTP", () => {
  it("returns the spans derived from the journal as OTLP/JSON, and the run's view names the trace id", async () => {
    const { app, driver } = setup();
    const runId = await driver.create("t");
    await driver.resume(runId);
    await driver.cancel(runId, { by: "ana" });
    const res = await app.request(`/runs/${runId}/trace`, { headers: auth });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[] };
    const spans = body.resourceSpans[0]!.scopeSpans[0]!.spans;
    const view = ((await (await app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { traceId: string } }).run;
    expect(spans.map((s) => s.name)).toContain("invoke_agent isoagent");
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([view.traceId]));
    expect((await app.request("/runs/run_9/trace", { headers: auth })).status).toBe(404);
  });
});

describe("the HTTP app: leases", () => {
  // Issue 13, finding 2: an operator could not tell "another driver holds
  // this run until T" from "stuck". The run's view and the list show the
  // lease (store state, not journal state); on the old code they had none.
  it("shows who holds a run's lease and until when while it is driven, and none once it waits", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const slow = defineTool({
      name: "slow",
      description: "Takes its time.",
      inputSchema: strictObject({}),
      sideEffect: "read_only",
      timeoutMs: 60_000,
      call: async () => {
        running();
        await held;
        return {};
      },
    });
    const driver = createDriver({
      store: memoryStore(),
      ids: sequentialIds(),
      owner: "driver-in-the-api",
      leaseTtlMs: 30_000,
      agent: scriptedAgent([calls(call("slow")), final("done")]),
      tools: [slow as Tool<never, unknown>],
    });
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
    const { runId } = (await (await app.request("/runs", json({ task: "t" }))).json()) as { runId: string };
    await started;
    const run = ((await (await app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { status: string; lease: { holder: string; expiresAt: number } | null } }).run;
    expect(run.status).toBe("running");
    expect(run.lease?.holder).toBe("driver-in-the-api");
    expect(run.lease!.expiresAt).toBeGreaterThan(Date.now());
    const listed = ((await (await app.request("/runs", { headers: auth })).json()) as { runs: { runId: string; lease: unknown }[] }).runs;
    expect(listed).toMatchObject([{ runId, lease: { holder: "driver-in-the-api", expiresAt: run.lease!.expiresAt } }]);
    release();
    // Released once the drive ends (just after its last append).
    const done = await until(
      async () => ((await (await app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { status: string; lease: unknown } }).run,
      (r) => r.status === "completed" && r.lease === null,
    );
    expect(done).toMatchObject({ status: "completed", lease: null });
  });
});
