/**
 * What the console needs of the API (issue 15, finding 5): listing runs by
 * page with their titles, re-verifying a run's hash chain server-side, and
 * reading an artifact only through a run whose journal names it.
 */
import { describe, expect, it } from "vitest";
import { calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Store, type Tool } from "../../src/index.js";
import { taskTitle } from "../../src/store/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { until } from "../helpers/time.js";

const TOKEN = "console-api-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

/** A tool whose output is over the visible cap (8 bytes here): its full output is kept as an artifact. */
const long = defineTool({
  name: "long",
  description: "Say a lot.",
  inputSchema: strictObject({}),
  sideEffect: "read_only",
  timeoutMs: 1000,
  outputPolicy: { maxVisibleBytes: 8 },
  call: () => "the whole output, longer than eight bytes",
}) as Tool<never, unknown>;

function setup(store: Store = memoryStore()) {
  const driver = createDriver({ store, ids: sequentialIds(), agent: scriptedAgent((v) => (v.step === 1 ? calls({ name: "long", args: "{}" }) : final("done"))), tools: [long] });
  const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
  const get = async (path: string): Promise<{ status: number; body: any; res: Response }> => {
    const res = await app.request(path, { headers: auth });
    const type = res.headers.get("content-type") ?? "";
    return { status: res.status, res, body: type.includes("json") ? await res.json() : new Uint8Array(await res.arrayBuffer()) };
  };
  const create = async (task: unknown): Promise<RunId> =>
    ((await (await app.request("/runs", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ task }) })).json()) as { runId: RunId }).runId;
  const done = (runId: RunId) => until(`run ${runId} to complete`, async () => (await driver.state(runId)).status === "completed");
  return { app, driver, get, create, done };
}

describe("GET /runs, by page", () => {
  it("lists each run with its title, and pages with ?limit= and the cursor the previous page gives as next", async () => {
    const { get, create, done } = setup();
    const ids: RunId[] = [];
    for (const task of ["First line\nsecond line", { goal: "tidy" }, "three", "four", "five"]) ids.push(await create(task));
    for (const id of ids) await done(id);
    const all = (await get("/runs")).body;
    expect(all.next).toBeUndefined();
    expect(Object.fromEntries(all.runs.map((r: { runId: string; title: string }) => [r.runId, r.title]))).toEqual({
      run_1: "First line",
      run_2: '{"goal":"tidy"}',
      run_3: "three",
      run_4: "four",
      run_5: "five",
    });
    const pages: string[][] = [];
    let path = "/runs?limit=2";
    for (;;) {
      const page = (await get(path)).body as { runs: { runId: string }[]; next?: string };
      pages.push(page.runs.map((r) => r.runId));
      if (page.next === undefined) break;
      expect(page.next).toMatch(/^\d+:run_\d$/);
      path = `/runs?limit=2&before=${encodeURIComponent(page.next)}`;
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(all.runs.map((r: { runId: string }) => r.runId));
    // Filtered and paged together.
    const filtered = (await get("/runs?status=completed&limit=4")).body;
    expect(filtered.runs).toHaveLength(4);
    expect((await get(`/runs?status=completed&limit=4&before=${encodeURIComponent(filtered.next)}`)).body.runs).toHaveLength(1);
    expect((await get("/runs?status=waiting&limit=4")).body).toEqual({ runs: [] });
  });

  it("refuses a malformed cursor, limit or status with 400 INVALID_QUERY", async () => {
    const { get } = setup();
    for (const q of [
      "before=",
      "before=12",
      "before=abc:run_1",
      "before=12:",
      "before=12:not%20an%20id",
      `before=1:${"x".repeat(129)}`,
      `before=${"9".repeat(16)}:run_1`,
      "limit=0",
      "limit=501",
      "limit=2.5",
      "status=done",
    ]) {
      const r = await get(`/runs?${q}`);
      expect([q, r.status, r.body.error.code]).toEqual([q, 400, "INVALID_QUERY"]);
    }
    expect((await get("/runs?before=12:run_1")).body).toEqual({ runs: [] });
  });
});

describe("a run's title", () => {
  it("is its task's first non-empty line, or its JSON, cut to 120 characters never inside a surrogate pair", () => {
    expect(taskTitle("  \n  Tidy notes/ \nthen more")).toBe("Tidy notes/");
    expect(taskTitle({ goal: "tidy" })).toBe('{"goal":"tidy"}');
    const cut = taskTitle("😀".repeat(100));
    expect(cut.length).toBeLessThanOrEqual(120);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(cut)).toBe(false);
    expect(cut.endsWith("😀…")).toBe(true);
  });
});

describe("GET /runs/:id/verify", () => {
  it("re-verifies the whole chain: ok with its head, or the first seq where it breaks", async () => {
    const memory = memoryStore();
    // A store whose reads can be tampered with, as a disk edited behind the store's back would be.
    let tamper: ((events: JournalEvent[]) => JournalEvent[]) | undefined;
    const store: Store = { ...memory, read: async (runId, from) => (tamper ?? ((e) => e))(await memory.read(runId, from)) };
    const { get, create, done, driver } = setup(store);
    const runId = await create("verify me");
    await done(runId);
    const events = await driver.events(runId);
    expect((await get(`/runs/${runId}/verify`)).body).toEqual({ ok: true, events: events.length, head: events.at(-1)!.hash });
    tamper = (es) => es.map((e) => (e.seq === 3 ? ({ ...e, at: e.at + 1 } as JournalEvent) : e));
    expect((await get(`/runs/${runId}/verify`)).body).toEqual({ ok: false, events: events.length, seq: 3, problem: "event 3 does not match its hash" });
    tamper = (es) => es.filter((e) => e.seq !== 4);
    expect((await get(`/runs/${runId}/verify`)).body).toMatchObject({ ok: false, seq: 4, problem: "event 5 is out of sequence after 3" });
    tamper = undefined;
    expect((await get("/runs/run_404/verify")).status).toBe(404);
  });
});

describe("GET /runs/:id/artifacts/:sha256", () => {
  it("serves an artifact the run's journal names, and 404 for one it does not name, even when the store has it", async () => {
    const { get, create, done, driver } = setup();
    const a = await create("a");
    await done(a);
    const finished = (await driver.events(a)).find((e) => e.type === "call.finished")!;
    const sha = (finished as unknown as { observation: { truncated: { artifact: string } } }).observation.truncated.artifact;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    const ok = await get(`/runs/${a}/artifacts/${sha}`);
    expect(ok.status).toBe(200);
    expect(ok.res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(ok.res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(ok.res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new TextDecoder().decode(ok.body)).toBe("the whole output, longer than eight bytes");
    // Artifacts are stored by content and shared by the store's runs: a run whose own call kept the same output names it too; one that did not, does not get it.
    const same = await create("same");
    await done(same);
    expect((await get(`/runs/${same}/artifacts/${sha}`)).status).toBe(200);
    const quiet = await driver.create("quiet");
    expect((await get(`/runs/${quiet}/artifacts/${sha}`)).body.error).toEqual({ code: "ARTIFACT_NOT_FOUND", message: `run ${quiet}'s journal names no artifact ${sha}` });
    expect((await get(`/runs/${a}/artifacts/${"0".repeat(64)}`)).status).toBe(404);
    expect((await get(`/runs/${a}/artifacts/NOTHEX`)).body.error.code).toBe("INVALID_ID");
    expect((await get(`/runs/run_404/artifacts/${sha}`)).body.error.code).toBe("RUN_NOT_FOUND");
  });
});
