/**
 * Issue 12's findings 8 and 9 on the HTTP app: cross-site request forgery
 * from a same-site page, a cookie that was the token itself, a login that
 * kept the token in a URL, missing headers, and server faults from the
 * outside. Each test says what the old code did.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend, SESSION_COOKIE } from "../../src/http/index.js";

const TOKEN = "t0k3n-for-security-tests-0123456789";
const ORIGIN = "http://localhost";

function setup(options: { tokens?: () => string[] } = {}) {
  const effects: string[] = [];
  const write = defineTool<{ path: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string() }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    call: (a) => {
      effects.push(a.path);
      return "ok";
    },
  });
  const driver = createDriver({
    store: memoryStore(),
    ids: sequentialIds(),
    agent: scriptedAgent([calls(call("write_file", { path: "a.md" })), final("done")]),
    tools: [write as Tool<never, unknown>],
  });
  const clock = manualClock();
  const app = createHttpApp({ backend: driverBackend(driver), tokens: options.tokens ?? (() => [TOKEN]), clock, sessionTtlMs: 60_000 });
  return { app, driver, clock, effects };
}

/** Logs in as the console page would (same-origin JSON post); the session cookie's `name=value`. */
async function login(app: ReturnType<typeof setup>["app"], token = TOKEN): Promise<string> {
  const res = await app.request("/login", { method: "POST", headers: { origin: ORIGIN, "content-type": "application/json" }, body: JSON.stringify({ token }) });
  expect(res.status).toBe(204);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

describe("finding 8: cross-site request forgery and the console's session", () => {
  it("refuses a cookie-authenticated write from another origin, or with no origin at all (403 CSRF_REFUSED); nothing is created", async () => {
    // Before: a page on another port of the same host created runs with
    // no-cors fetch and with a text/plain form post.
    const { app, driver } = setup();
    const cookie = await login(app);
    const attempts: Record<string, string>[] = [
      { origin: "http://localhost:8788" },
      { origin: "http://sub.localhost" },
      { origin: "null" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "cross-site" },
      {},
    ];
    for (const headers of attempts) {
      for (const type of ["application/json", "text/plain"]) {
        const res = await app.request("/runs", { method: "POST", headers: { cookie, "content-type": type, ...headers }, body: JSON.stringify({ task: "forged" }) });
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(await res.json()).toEqual({ error: { code: "CSRF_REFUSED", message: "a write with the console's session must come from the console's own origin" } });
      }
    }
    // Cancel needed only the run id: not any more.
    const runId = await driver.create("t");
    const cancel = await app.request(`/runs/${runId}/cancel`, { method: "POST", headers: { cookie, "content-type": "application/json", origin: "http://localhost:8788" }, body: "{}" });
    expect(cancel.status).toBe(403);
    expect((await driver.state(runId)).status).toBe("running");
    expect((await driver.listRuns()).length).toBe(1);
  });

  it("accepts the console's own writes: Origin equal to the app's, or Sec-Fetch-Site same-origin", async () => {
    const { app } = setup();
    const cookie = await login(app);
    for (const headers of [{ origin: ORIGIN }, { "sec-fetch-site": "same-origin" }]) {
      const res = await app.request("/runs", { method: "POST", headers: { cookie, "content-type": "application/json", ...headers }, body: JSON.stringify({ task: "t" }) });
      expect(res.status).toBe(201);
    }
  });

  it("needs application/json for a body, bearer or cookie (415)", async () => {
    // Before: a text/plain form post was parsed as JSON.
    const { app } = setup();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""]) {
      const res = await app.request("/runs", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, ...(type === "" ? {} : { "content-type": type }) }, body: JSON.stringify({ task: "t" }) });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "the body must be JSON, sent with content-type: application/json" } });
    }
    const ok = await app.request("/runs", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ task: "t" }) });
    expect(ok.status).toBe(201);
  });

  it("gives the console a signed, expiring session that is never the token; a logout clears it in the browser", async () => {
    // Before: the cookie was the bearer token itself, with no expiry and no logout.
    const { app, clock } = setup();
    const res = await app.request("/login", { method: "POST", headers: { origin: ORIGIN, "content-type": "application/json" }, body: JSON.stringify({ token: TOKEN }) });
    const header = res.headers.get("set-cookie")!;
    expect(header).toMatch(new RegExp(`^${SESSION_COOKIE}=v1\\.\\d+\\.[0-9a-f]{32}\\.[0-9a-f]{64}; Max-Age=60; Path=/; HttpOnly; SameSite=Strict$`));
    expect(header).not.toContain(TOKEN);
    const cookie = header.split(";")[0]!;
    expect((await app.request("/runs", { headers: { cookie } })).status).toBe(200);
    // The old cookie, the token itself, is no credential.
    expect((await app.request("/runs", { headers: { cookie: `isoagent_token=${TOKEN}` } })).status).toBe(401);
    expect((await app.request("/runs", { headers: { cookie: `${SESSION_COOKIE}=${TOKEN}` } })).status).toBe(401);
    // A forged or altered session is refused.
    const [name, value] = cookie.split("=") as [string, string];
    const tampered = `${name}=${value.replace(/^v1\.(\d+)/, (_m, exp: string) => `v1.${Number(exp) + 1000000}`)}`;
    expect((await app.request("/runs", { headers: { cookie: tampered } })).status).toBe(401);
    // It expires.
    clock.advance(60_001);
    expect((await app.request("/runs", { headers: { cookie } })).status).toBe(401);
    // Logout clears it.
    const fresh = await login(app);
    // A logout from another origin is refused like any write.
    expect((await app.request("/logout", { method: "POST", headers: { cookie: fresh, origin: "http://localhost:9999" } })).status).toBe(403);
    const out = await app.request("/logout", { method: "POST", headers: { cookie: fresh, origin: ORIGIN } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0; Path=/`));
  });

  it("ends every session of a token when the token is rotated", async () => {
    let tokens = [TOKEN];
    const { app } = setup({ tokens: () => tokens });
    const cookie = await login(app);
    expect((await app.request("/runs", { headers: { cookie } })).status).toBe(200);
    tokens = ["another-token-0123456789abcdef"];
    expect((await app.request("/runs", { headers: { cookie } })).status).toBe(401);
  });

  it("never logs in on a GET, and the login page keeps the token out of history, referrers and caches", async () => {
    // Before: /?token= set the cookie on a GET and left the token in the
    // address; the 302 had no Cache-Control or Referrer-Policy.
    const { app } = setup();
    for (const path of [`/?token=${TOKEN}`, "/login"]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await res.text();
      expect(html).not.toContain(TOKEN);
      expect(html).toContain('<script type="module" src="/login.js"></script>');
    }
    const js = await (await app.request("/login.js")).text();
    expect(js).toContain('history.replaceState(null, "", "/login")');
    // A login post from another origin is refused (login CSRF).
    const cross = await app.request("/login", { method: "POST", headers: { origin: "http://evil.localhost", "content-type": "application/json" }, body: JSON.stringify({ token: TOKEN }) });
    expect(cross.status).toBe(403);
    const wrong = await app.request("/login", { method: "POST", headers: { origin: ORIGIN, "content-type": "application/json" }, body: JSON.stringify({ token: "nope" }) });
    expect(wrong.status).toBe(401);
    // The console itself sends a browser without a session to the login page.
    const console = await app.request("/");
    expect(console.status).toBe(302);
    expect(console.headers.get("location")).toBe("/login");
  });

  it("answers every route with nosniff and no-store", async () => {
    // Before: API answers carried neither.
    const { app } = setup();
    const cookie = await login(app);
    const requests: [string, RequestInit][] = [
      ["/health", {}],
      ["/runs", { headers: { authorization: `Bearer ${TOKEN}` } }],
      ["/runs", {}],
      ["/runs/run_9", { headers: { authorization: `Bearer ${TOKEN}` } }],
      ["/", { headers: { cookie } }],
      ["/console.js", {}],
      ["/nowhere", { headers: { authorization: `Bearer ${TOKEN}` } }],
      ["/runs", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" }, body: "x" }],
    ];
    for (const [path, init] of requests) {
      const res = await app.request(path, init);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("cache-control"), path).toBe("no-store");
    }
  });
});

describe("finding 9: server faults from the outside", () => {
  const bearer = { authorization: `Bearer ${TOKEN}` };
  it("validates and de-duplicates the status filter (400 for an unknown status, never 500)", async () => {
    // Before: 100 or more values built IN (?, ...) past the SQL limit: 500.
    const { app, driver } = setup();
    await driver.create("t");
    const many = await app.request(`/runs?status=${Array.from({ length: 150 }, () => "running").join(",")}`, { headers: bearer });
    expect(many.status).toBe(200);
    expect(((await many.json()) as { runs: unknown[] }).runs).toHaveLength(1);
    const unknown = await app.request(`/runs?status=running,${Array.from({ length: 120 }, (_, k) => `s${k}`).join(",")}`, { headers: bearer });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: { code: "INVALID_QUERY", message: 'status "s0" is not one of running, waiting, idle, completed, failed, cancelled' } });
    for (const limit of ["0", "501", "abc", "1.5", "-1"]) expect((await app.request(`/runs?limit=${limit}`, { headers: bearer })).status, limit).toBe(400);
  });

  it("answers 409 when /reconcile is asked to settle an ordinary approval, and the call does not run", async () => {
    // Before: 200, and the write executed.
    const { app, driver, effects } = setup();
    const waiting = await driver.start("t");
    const [a] = waiting.approvals;
    const res = await app.request(`/runs/${waiting.runId}/reconcile`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ approvalId: a!.approvalId, requestHash: a!.requestHash, resolution: "record_result", content: { forged: true } }),
    });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("APPROVAL_NOT_RECONCILABLE");
    await driver.resume(waiting.runId);
    expect(effects).toEqual([]);
  });
});
