/**
 * Issue 26, finding 7 (Node): the console's session ends on the server.
 *
 * - Before: `POST /logout` answered 204 and cleared the cookie, but the same
 *   cookie value sent again still got 200 until it expired 12 h later.
 * - Before: the only way into the console by a link was a link carrying
 *   the long-lived token (`/login#token=...`), which the browser writes to
 *   its history files. Now an operator token mints a one-time login code
 *   (`POST /login/code`), valid for a minute, that the login page exchanges
 *   for a session, once.
 */
import { describe, expect, it } from "vitest";
import { createDriver, memoryStore, scriptedAgent, final } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend, memorySessions, SESSION_COOKIE, type SessionLedger } from "../../src/http/index.js";
import { rng } from "../helpers/rng.js";

const TOKEN = "session-tests-operator-token-0123456789";
const OTHER = "session-tests-second-operator-token-0123";
const RUN_TOKEN = "session-tests-run-token-0123456789";
const ORIGIN = "http://localhost";
const json = { "content-type": "application/json", origin: ORIGIN };

function setup(options: { tokens?: () => string[]; sessions?: SessionLedger; clock?: ReturnType<typeof manualClock>; keepAliveMs?: number } = {}) {
  const clock = options.clock ?? manualClock();
  const driver = createDriver({ store: memoryStore({ clock }), clock, ids: sequentialIds(), agent: scriptedAgent([final("done")]), tools: [] });
  const app = createHttpApp({
    backend: driverBackend(driver),
    tokens: options.tokens ?? (() => [TOKEN]),
    runTokens: () => [RUN_TOKEN],
    clock,
    ...(options.sessions === undefined ? {} : { sessions: options.sessions }),
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
  });
  return { app, clock, driver };
}
type App = ReturnType<typeof setup>["app"];

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

async function login(app: App, body: unknown): Promise<Response> {
  return app.request("/login", { method: "POST", headers: json, body: JSON.stringify(body) });
}
/** A session's cookie (`name=value`), logged in with the token. */
async function session(app: App, token = TOKEN): Promise<string> {
  const res = await login(app, { token });
  expect(res.status).toBe(204);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}
async function mint(app: App, token = TOKEN): Promise<Response> {
  return app.request("/login/code", { method: "POST", headers: { authorization: `Bearer ${token}` } });
}
async function code(app: App, token = TOKEN): Promise<string> {
  const res = await mint(app, token);
  expect(res.status).toBe(201);
  return ((await res.json()) as { code: string }).code;
}
const runs = async (app: App, cookie: string): Promise<number> => (await app.request("/runs", { headers: { cookie } })).status;
const logout = (app: App, cookie: string) => app.request("/logout", { method: "POST", headers: { cookie, origin: ORIGIN } });

describe("logging out", () => {
  it("ends the session on the server: the same cookie value sent again is refused at once (401)", async () => {
    const { app } = setup();
    const cookie = await session(app);
    expect(await runs(app, cookie)).toBe(200);
    const out = await logout(app, cookie);
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(new RegExp(`^${SESSION_COOKIE}=; Max-Age=0; Path=/`));
    const again = await app.request("/runs", { headers: { cookie } });
    expect(again.status).toBe(401);
    expect(await errorOf(again)).toEqual({ code: "UNAUTHORIZED", message: "a valid bearer token is required" });
    // Nor does it write, nor log out twice, nor open the console.
    expect((await app.request("/runs", { method: "POST", headers: { cookie, ...json }, body: JSON.stringify({ task: "t" }) })).status).toBe(401);
    expect((await logout(app, cookie)).status).toBe(401);
    expect((await app.request("/", { headers: { cookie } })).headers.get("location")).toBe("/login");
  });

  it("ends that session only: another session of the same token goes on", async () => {
    const { app } = setup();
    const a = await session(app);
    const b = await session(app);
    await logout(app, a);
    expect([await runs(app, a), await runs(app, b)]).toEqual([401, 200]);
  });

  it("ends it in every app that shares the ledger (processes behind one balancer pass one)", async () => {
    const sessions = memorySessions();
    const clock = manualClock();
    const one = setup({ sessions, clock }).app;
    const two = setup({ sessions, clock }).app;
    const cookie = await session(one);
    expect(await runs(two, cookie)).toBe(200);
    await logout(two, cookie);
    expect(await runs(one, cookie)).toBe(401);
    // Without a shared ledger, each app knows its own sessions only: fail closed.
    const alone = setup({ clock }).app;
    expect(await runs(alone, await session(one))).toBe(401);
  });

  it("ends a live event stream the session opened, at its next ping", async () => {
    const { app, driver, clock } = setup({ keepAliveMs: 20 });
    const runId = await driver.create("t");
    const cookie = await session(app);
    const res = await app.request(`/runs/${runId}/events`, { headers: { cookie, accept: "text/event-stream" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    await logout(app, cookie);
    clock.advance(20);
    // Pings go on every 20 ms until the stream sees the session ended: then it ends.
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});

describe("one-time login codes", () => {
  it("are minted by an operator token, and give a session once", async () => {
    const { app, clock } = setup();
    const res = await mint(app);
    expect(res.status).toBe(201);
    const minted = (await res.json()) as { code: string; expiresAt: number; login: string };
    expect(minted.code).toMatch(/^c1\.\d+\.[0-9a-f]{32}\.[0-9a-f]{64}$/);
    expect(minted.code).not.toContain(TOKEN);
    expect(minted.expiresAt).toBe(clock.now() + 60_000);
    expect(minted.login).toBe(`${ORIGIN}/login#code=${minted.code}`);
    const first = await login(app, { code: minted.code });
    expect(first.status).toBe(204);
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    expect(await runs(app, cookie)).toBe(200);
    const second = await login(app, { code: minted.code });
    expect(second.status).toBe(401);
    expect(second.headers.get("set-cookie")).toBeNull();
    expect(await errorOf(second)).toEqual({
      code: "LOGIN_CODE_INVALID",
      message: "this login link was used already, or has expired (a link works once, within a minute of being made): make a new one, or log in with the token",
    });
  });

  it("expire after a minute (loginCodeTtlMs), and are refused once their token is rotated out", async () => {
    let tokens = [TOKEN, OTHER];
    const { app, clock } = setup({ tokens: () => tokens });
    const late = await code(app);
    clock.advance(60_000);
    expect((await errorOf(await login(app, { code: late }))).code).toBe("LOGIN_CODE_INVALID");
    const rotated = await code(app, OTHER);
    tokens = [TOKEN];
    expect((await errorOf(await login(app, { code: rotated }))).code).toBe("LOGIN_CODE_INVALID");
    // A session made from a code is the token's: rotating the token ends it.
    tokens = [TOKEN, OTHER];
    const res = await login(app, { code: await code(app, OTHER) });
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    expect(await runs(app, cookie)).toBe(200);
    tokens = [TOKEN];
    expect(await runs(app, cookie)).toBe(401);
  });

  it("are minted only with an operator's bearer token: not a run token (403), not a session (403), not without one (401)", async () => {
    const { app } = setup();
    const asRun = await mint(app, RUN_TOKEN);
    expect([asRun.status, await errorOf(asRun)]).toEqual([
      403,
      { code: "OPERATOR_SCOPE_REQUIRED", message: "this token may create and read runs, not make login codes: that needs an operator token" },
    ]);
    const cookie = await session(app);
    // A session that could mint codes could renew itself for ever.
    const bySession = await app.request("/login/code", { method: "POST", headers: { cookie, origin: ORIGIN } });
    expect([bySession.status, await errorOf(bySession)]).toEqual([
      403,
      { code: "BEARER_REQUIRED", message: "a login code is made with an operator token (Authorization: Bearer), not with the console's session" },
    ]);
    expect((await app.request("/login/code", { method: "POST" })).status).toBe(401);
  });

  it("refuse forged, altered and malformed codes, a token in the code's place, and a body with both or neither (no session is made)", async () => {
    const { app } = setup();
    const good = await code(app);
    const [, exp, nonce, sig] = good.split(".") as [string, string, string, string];
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith("0") ? "1" : "0");
    for (const forged of [`c1.${Number(exp) + 1}.${nonce}.${sig}`, `c1.${exp}.${flip(nonce)}.${sig}`, `c1.${exp}.${nonce}.${flip(sig)}`]) {
      const res = await login(app, { code: forged });
      expect([res.status, (await errorOf(res)).code]).toEqual([401, "LOGIN_CODE_INVALID"]);
    }
    for (const body of [{ code: "nope" }, { code: TOKEN }, { code: 5 }, { token: TOKEN, code: good }, {}, { code: `${good}x` }]) {
      const res = await login(app, body);
      expect([JSON.stringify(body), res.status, (await errorOf(res)).code]).toEqual([JSON.stringify(body), 400, "INVALID_BODY"]);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    // The good one was not spent by any of them.
    expect((await login(app, { code: good })).status).toBe(204);
    // A session cookie is no code, and a code is no session cookie.
    const cookie = await session(app);
    expect((await login(app, { code: cookie.split("=")[1] })).status).toBe(400);
    expect(await runs(app, `${SESSION_COOKIE}=${await code(app)}`)).toBe(401);
  });

  it("give exactly one session when exchanged many times at once", async () => {
    const { app } = setup();
    for (let round = 0; round < 5; round++) {
      const c = await code(app);
      const answers = await Promise.all(Array.from({ length: 8 }, () => login(app, { code: c })));
      expect(answers.map((r) => r.status).sort()).toEqual([204, 401, 401, 401, 401, 401, 401, 401]);
    }
  });
});

describe("the session rules, as a property", () => {
  it("in random sequences of logins (by token or code), logouts, rotations and time, a cookie works exactly when the model says it should", async () => {
    const ROTATING = ["prop-token-a-0123456789abcdef", "prop-token-b-0123456789abcdef", "prop-token-c-0123456789abcdef"];
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
      let tokens = [ROTATING[0]!];
      const { app, clock } = setup({ tokens: () => tokens });
      // What each cookie and code should do: its token, its expiry, and whether it was spent.
      const cookies: { cookie: string; token: string; expiresAt: number; out: boolean }[] = [];
      const codes: { code: string; token: string; expiresAt: number; used: boolean }[] = [];
      const log: string[] = [];
      const live = (s: (typeof cookies)[number]) => !s.out && tokens.includes(s.token) && clock.now() < s.expiresAt;
      for (let step = 0; step < 40; step++) {
        const op = pick(["token", "mint", "code", "logout", "rotate", "time", "check"] as const);
        log.push(op);
        if (op === "token" && tokens.length > 0) {
          const token = pick(tokens);
          cookies.push({ cookie: await session(app, token), token, expiresAt: clock.now() + 12 * 3600_000, out: false });
        } else if (op === "mint" && tokens.length > 0) {
          const token = pick(tokens);
          codes.push({ code: await code(app, token), token, expiresAt: clock.now() + 60_000, used: false });
        } else if (op === "code" && codes.length > 0) {
          const c = pick(codes);
          const res = await login(app, { code: c.code });
          const ok = !c.used && tokens.includes(c.token) && clock.now() < c.expiresAt;
          expect([seed, log.join(" "), res.status]).toEqual([seed, log.join(" "), ok ? 204 : 401]);
          if (ok) {
            cookies.push({ cookie: res.headers.get("set-cookie")!.split(";")[0]!, token: c.token, expiresAt: clock.now() + 12 * 3600_000, out: false });
            c.used = true;
          }
        } else if (op === "logout" && cookies.length > 0) {
          const s = pick(cookies);
          const res = await logout(app, s.cookie);
          expect([seed, log.join(" "), res.status]).toEqual([seed, log.join(" "), live(s) ? 204 : 401]);
          // A refused logout ends nothing (a token rotated back in brings its unexpired sessions back).
          if (live(s)) s.out = true;
        } else if (op === "rotate") {
          tokens = ROTATING.filter(() => r() < 0.6);
        } else if (op === "time") {
          clock.advance(pick([1_000, 59_000, 61_000, 3600_000, 12 * 3600_000]));
        }
        for (const s of cookies) expect([seed, log.join(" "), await runs(app, s.cookie)]).toEqual([seed, log.join(" "), live(s) ? 200 : 401]);
      }
    }
  });
});
