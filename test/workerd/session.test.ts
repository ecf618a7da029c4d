/**
 * Issue 26, finding 7 on the Worker: the console's session ends on the
 * server for every isolate, and a one-time login code is spent once
 * wherever it is used. Two Workers of the same script ("a" holds the
 * Durable Objects, "b" binds to a's), each in its own isolate, stand for
 * the isolates of a deployment: nothing one holds in memory is the
 * other's. Before: a logout only cleared the cookie in the browser, so the
 * same value kept working for 12 hours in every isolate; there were no
 * login codes.
 */
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker } from "../helpers/workerd.js";

const TOKEN = "session-worker-token-0123456789";
const ORIGIN = "http://localhost";
let mf: Miniflare;
type Fetcher = { fetch(url: string, init?: RequestInit): Promise<Response> };
let a: Fetcher;
let b: Fetcher;

beforeAll(async () => {
  const script = await bundleWorker("examples/worker/index.ts");
  const common = { modules: true, script, compatibilityDate: "2026-07-01", bindings: { ISOAGENT_TOKEN: TOKEN } };
  mf = new Miniflare({
    workers: [
      { name: "a", ...common, durableObjects: { RUNS: { className: "RunObject", useSQLite: true }, RUN_INDEX: { className: "RunIndex", useSQLite: true } } },
      { name: "b", ...common, durableObjects: { RUNS: { className: "RunObject", scriptName: "a", useSQLite: true }, RUN_INDEX: { className: "RunIndex", scriptName: "a", useSQLite: true } } },
    ],
  } as never);
  await mf.ready;
  a = (await mf.getWorker("a")) as unknown as Fetcher;
  b = (await mf.getWorker("b")) as unknown as Fetcher;
});
afterAll(async () => {
  await mf?.dispose();
});

const json = { "content-type": "application/json", origin: ORIGIN };
const login = (w: Fetcher, body: unknown) => w.fetch(`${ORIGIN}/login`, { method: "POST", headers: json, body: JSON.stringify(body) });
const runs = async (w: Fetcher, cookie: string) => (await w.fetch(`${ORIGIN}/runs`, { headers: { cookie } })).status;
const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0]!;
async function code(w: Fetcher): Promise<string> {
  const res = await w.fetch(`${ORIGIN}/login/code`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { code: string }).code;
}

describe("the console's session on the Worker, across isolates", () => {
  it("is open in every isolate once made, and a logout in one refuses the cookie in every other at once", async () => {
    const made = await login(a, { token: TOKEN });
    expect(made.status).toBe(204);
    const cookie = cookieOf(made);
    expect([await runs(a, cookie), await runs(b, cookie)]).toEqual([200, 200]);
    const out = await b.fetch(`${ORIGIN}/logout`, { method: "POST", headers: { cookie, origin: ORIGIN } });
    expect(out.status).toBe(204);
    expect([await runs(a, cookie), await runs(b, cookie)]).toEqual([401, 401]);
    // Another session of the same token goes on.
    const other = cookieOf(await login(b, { token: TOKEN }));
    expect(await runs(a, other)).toBe(200);
  });

  it("spends a login code once, whichever isolate it is used in, even when both try at once", async () => {
    const c = await code(a);
    const first = await login(b, { code: c });
    expect(first.status).toBe(204);
    expect(await runs(a, cookieOf(first))).toBe(200);
    const again = await login(a, { code: c });
    expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([401, "LOGIN_CODE_INVALID"]);
    for (let round = 0; round < 5; round++) {
      const raced = await code(b);
      const answers = await Promise.all([a, b, a, b].map((w) => login(w, { code: raced })));
      expect(answers.map((r) => r.status).sort()).toEqual([204, 401, 401, 401]);
    }
  });
});
