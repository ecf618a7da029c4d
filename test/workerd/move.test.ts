/**
 * Moves between Node and the Durable Objects of a Worker in workerd (plain
 * miniflare): a run moved into its object, driven there to the end and
 * moved back; bundles streamed both ways through the Worker into the run's
 * object; the move routes' refusals; races; and the object reset (a crash)
 * in the middle of a move in either role, settled to one owner.
 */
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  calls,
  createDriver,
  defineTool,
  final,
  isIsoagentError,
  memoryStore,
  number,
  rulesPolicy,
  scriptedAgent,
  strictObject,
  type Driver,
  type RunId,
  type Store,
  type Tool,
} from "../../src/index.js";
import { bundleText, exportRun, httpPlace, localPlace, movable, moveRun, settleMove, toolShapes, type HttpFetch, type Place } from "../../src/move/index.js";
import { listScenario } from "../../src/testkit/index.js";
import { scaled, until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

const TOKEN = "workerd-move-token-0123456789";
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("test/workerd/workers/do-entry.ts", {
    durableObjects: {
      ...RUN_OBJECTS.durableObjects,
      WORLD: { className: "World", useSQLite: true },
      WORKSPACES: { className: "WorkspaceObject", useSQLite: true },
      SQL_PROBE: { className: "SqlProbe", useSQLite: true },
    },
    bindings: { ISOAGENT_TOKEN: TOKEN },
  });
});
afterAll(async () => {
  await mf?.dispose();
});

const fetchIt: HttpFetch = (url, init) => mf.dispatchFetch(url, init as never) as never;
const api = async (path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${TOKEN}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  } as never);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as any) : text };
};

/** The tab's side: a memory store in this process, with the scenario's tool (the shape the run objects give). */
function tab(name = "tab:node"): { store: Store; driver: Driver; place: Place } {
  const tools = listScenario("read_only").setup().tools;
  const store = movable(memoryStore());
  const driver = createDriver({ store, owner: "node-driver", agent: listScenario("read_only").agent(), tools, policy: rulesPolicy([{ tool: "add_item", permission: "ask" }]) });
  return { store, driver, place: localPlace(store, { name, tools: toolShapes(tools) }) };
}
const edge = (): Place => httpPlace({ url: "http://localhost", name: "edge", token: TOKEN, fetch: fetchIt });
let ids = 0;
const newId = (what: string): RunId => `mv_${what}_${++ids}_${Date.now().toString(36)}` as RunId;

async function owners(runId: RunId, t: ReturnType<typeof tab>): Promise<string[]> {
  const out: string[] = [];
  if ((await t.store.custody!(runId).catch(() => "none")) === undefined) out.push("tab");
  const e = await edge().head(runId);
  if (e !== null && e.custody === undefined) out.push("edge");
  return out;
}

describe("a run moved between Node and a Durable Object", () => {
  it("continues in the cloud (the object drives it once approved), and comes back offline completed", async () => {
    const t = tab();
    const runId = newId("roundtrip");
    const waiting = await t.driver.start("ask read_only", { runId });
    expect(waiting.status).toBe("waiting");
    // The edge trusts no key of this tab's: what the tab asked is asked again there, of its operator, once its object drives the run.
    expect((await moveRun(runId, t.place, edge())).completed.reopened).toBe(1);
    expect(await owners(runId, t)).toEqual(["edge"]);
    await until(`run ${runId} to wait at the edge`, async () => (await api(`/runs/${runId}`)).body.run.status === "waiting");
    const run = (await api(`/runs/${runId}`)).body.run;
    expect([run.status, run.custody]).toEqual(["waiting", null]);
    const listed = (await api("/runs")).body.runs.find((r: { runId: string }) => r.runId === runId);
    expect(listed.custody).toBeUndefined();
    const [a] = run.approvals;
    expect((await api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: JSON.stringify({ decision: "approve", requestHash: a.requestHash, by: "console" }) })).status).toBe(200);
    await until(`run ${runId} to complete in its object`, async () => {
      const now = (await api(`/runs/${runId}`)).body.run;
      for (const p of now.approvals)
        await api(`/runs/${runId}/approvals/${p.approvalId}`, { method: "POST", body: JSON.stringify({ decision: "approve", requestHash: p.requestHash, by: "console" }) });
      return now.status === "completed";
    });
    await moveRun(runId, edge(), t.place);
    expect(await owners(runId, t)).toEqual(["tab"]);
    expect((await t.driver.state(runId)).output).toBe("added");
    const mirrored = (await api("/runs")).body.runs.find((r: { runId: string }) => r.runId === runId);
    expect(mirrored.custody).toMatchObject({ role: "moved", to: "tab:node" });
  });

  it("streams a bundle through the Worker into the run's object and out again, byte for byte; a mirror is listed with its custody", async () => {
    const t = tab();
    const runId = newId("stream");
    await t.driver.start("ask read_only", { runId });
    const text = await bundleText(exportRun(t.store, runId));
    const res = await mf.dispatchFetch("http://localhost/runs/import", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" }, body: text });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ runId, outcome: "created", custody: { role: "mirror" } });
    const back = await (await mf.dispatchFetch(`http://localhost/runs/${runId}/export`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(back).toBe(text);
    const listed = (await api("/runs")).body.runs.find((r: { runId: string }) => r.runId === runId);
    expect(listed).toMatchObject({ runId, status: "waiting", custody: { role: "mirror" }, lease: null });
  });

  it(
    "takes a 10,000-event run naming 50 artifacts into its object in one import, fast-forwards it by a 5,000-event tail, and gives it back byte for byte",
    async () => {
      const LONG = "a long output line, kept whole as an artifact past the visible bytes\n".repeat(300);
      const probe = defineTool<{ n: number }>({
        name: "probe",
        description: "Probe.",
        inputSchema: strictObject({ n: number() }),
        sideEffect: "read_only",
        timeoutMs: 1000,
        outputPolicy: { maxVisibleBytes: 1000, keepFull: true },
        call: (a) => (a.n % 50 === 0 ? `${a.n}\n${LONG}` : `ok ${a.n}`),
      }) as Tool<never, unknown>;
      const write = defineTool<{ n: number }>({
        name: "write",
        description: "Write.",
        inputSchema: strictObject({ n: number() }),
        sideEffect: "local_mutation",
        permission: "ask",
        timeoutMs: 1000,
        call: () => "written",
      }) as Tool<never, unknown>;
      // 1,250 probes, a write that waits for its approval, 1,249 probes more: about 5,000 events, then 10,000.
      const agent = scriptedAgent((view) =>
        view.step === 1251
          ? calls({ name: "write", args: JSON.stringify({ n: 0 }), callId: "w" })
          : view.step <= 2500
            ? calls({ name: "probe", args: JSON.stringify({ n: view.step }), callId: `c${view.step}` })
            : final("done"),
      );
      const store = movable(memoryStore());
      const driver = createDriver({ store, owner: "node", agent, tools: [probe, write], limits: { maxSteps: 0 }, policy: rulesPolicy([{ tool: "write", permission: "ask" }]) });
      const runId = newId("big");
      expect((await driver.start("big", { runId })).status).toBe("waiting");
      const post = (path: string, body: string) =>
        mf.dispatchFetch(`http://localhost${path}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" }, body });
      const first = await post("/runs/import", await bundleText(exportRun(store, runId)));
      expect(first.status).toBe(201);
      const half = (await first.json()) as { seq: number };
      expect(half.seq).toBe((await store.read(runId)).length);
      expect(half.seq).toBeGreaterThan(4900);
      const [a] = Object.values((await driver.state(runId)).approvals);
      await driver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
      expect((await driver.resume(runId)).status).toBe("completed");
      const events = await store.read(runId);
      expect(events.length).toBeGreaterThan(9900);
      const tail = await post(`/runs/${runId}/mirror`, await bundleText(exportRun(store, runId, { fromSeq: half.seq + 1 })));
      expect(await tail.json()).toMatchObject({ outcome: "fast_forwarded", seq: events.length });
      const whole = await bundleText(exportRun(store, runId));
      expect(whole.match(/^\{"artifact"/gm)?.length).toBe(50);
      const back = await (await mf.dispatchFetch(`http://localhost/runs/${runId}/export`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      expect(back === whole).toBe(true);
      expect((await api(`/runs/${runId}`)).body.run).toMatchObject({ status: "completed", custody: { role: "mirror" } });
    },
    scaled(180_000),
  );
});

describe("the move routes on the Worker: auth, bad input, races", () => {
  it("refuse callers without the token; an unknown run's export is 404 and creates no object", async () => {
    for (const [method, path] of [
      ["GET", "/runs/x/export"],
      ["POST", "/runs/import"],
      ["POST", "/runs/x/move"],
      ["POST", "/runs/x/mirror"],
    ] as const) {
      const res = await mf.dispatchFetch(`http://localhost${path}`, { method, headers: { "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) });
      expect([path, res.status]).toEqual([path, 401]);
    }
    const unknown = await api("/runs/never_made_1/export");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "RUN_NOT_FOUND"]);
    expect((await api("/runs")).body.runs.some((r: { runId: string }) => r.runId === "never_made_1")).toBe(false);
  });

  it("a tampered bundle is 400 and writes nothing; past the cap 413; a gap in a mirror 409 saying where it ends", async () => {
    const t = tab();
    const runId = newId("bad");
    await t.driver.start("ask read_only", { runId });
    const text = await bundleText(exportRun(t.store, runId));
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      mf.dispatchFetch(`http://localhost${path}`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson", ...headers }, body });
    const tampered = await post("/runs/import", text.replace('"attempt":1', '"attempt":2'));
    expect([tampered.status, ((await tampered.json()) as any).error.code]).toEqual([400, "BUNDLE_TAMPERED"]);
    expect((await api(`/runs/${runId}`)).status).toBe(404);
    expect((await post(`/runs/${runId}/mirror`, text)).status).toBe(201);
    const [a] = Object.values((await t.driver.state(runId)).approvals);
    await t.driver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await t.driver.resume(runId);
    const seq = (await api(`/runs/${runId}`)).body.run.seq as number;
    const gap = await post(`/runs/${runId}/mirror`, await bundleText(exportRun(t.store, runId, { fromSeq: seq + 2 })));
    expect([gap.status, ((await gap.json()) as any).error]).toEqual([409, expect.objectContaining({ code: "JOURNAL_CONFLICT", actualSeq: seq })]);
    const tail = await post(`/runs/${runId}/mirror`, await bundleText(exportRun(t.store, runId, { fromSeq: seq + 1 })));
    expect(await tail.json()).toMatchObject({ outcome: "fast_forwarded", seq: (await t.store.read(runId)).length });
  });

  it("two releases of one run at once: one seals, the other is refused", async () => {
    const t = tab();
    const runId = newId("race");
    await t.driver.start("ask read_only", { runId });
    await moveRun(runId, t.place, edge());
    // Released once the object has asked again what the tab had asked (no driver on it then).
    await until(`run ${runId} to wait at the edge`, async () => (await api(`/runs/${runId}`)).body.run.status === "waiting");
    const release = (to: string) => api(`/runs/${runId}/move`, { method: "POST", body: JSON.stringify({ action: "release", to }) });
    const [x, y] = await Promise.all([release("tab:a"), release("tab:b")]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    const events = (await api(`/runs/${runId}/events`)).body.events as { type: string }[];
    expect(events.filter((e) => e.type === "run.moved")).toHaveLength(2);
    expect(events.at(-1)!.type).toBe("run.moved");
    // The object refuses every write for the run now, naming where it went.
    const cancel = await api(`/runs/${runId}/cancel`, { method: "POST", body: "{}" });
    expect([cancel.status, cancel.body.error.code]).toEqual([409, "RUN_MOVED"]);
    expect(cancel.body.error.message).toMatch(new RegExp(`^run ${runId} moved to tab:[ab] at event \\d+ \\(epoch \\d+\\): it is continued there$`));
  });
});

describe("a move cut by the Durable Object's reset (a crash in the object), settled to one owner", () => {
  for (const [point, direction] of [
    ["move/imported", "into the object"],
    ["move/sealed", "out of the object"],
  ] as const) {
    for (const prefer of ["complete", "rollback"] as const) {
      it(
        `${point} (${direction}), settled preferring to ${prefer}`,
        async () => {
          const t = tab();
          const runId = newId(`cut_${point.replace("/", "_")}_${prefer}`);
          await t.driver.start("ask read_only", { runId });
          if (direction === "out of the object") {
            await moveRun(runId, t.place, edge());
            // Moved out once the object has asked again (it drives the run first: no move while it does).
            await until(`run ${runId} to wait at the edge`, async () => (await api(`/runs/${runId}`)).body.run.status === "waiting");
          }
          await api(`/test/run/${runId}/plan`, { method: "POST", body: JSON.stringify({ point }) });
          const [from, to] = direction === "into the object" ? [t.place, edge()] : [edge(), t.place];
          let cut = false;
          try {
            await moveRun(runId, from, to);
          } catch (e) {
            cut = true;
            expect(isIsoagentError(e), String(e)).toBe(true);
          }
          expect(cut).toBe(true);
          expect((await owners(runId, t)).length).toBeLessThanOrEqual(1);
          const s = await settleMove(runId, t.place, edge(), { prefer });
          const now = await owners(runId, t);
          expect(now).toHaveLength(1);
          expect(s.owner).toBe(now[0] === "tab" ? "tab:node" : "edge");
          // The owner finishes the run (each add_item asks).
          if (now[0] === "tab") {
            let status = (await t.driver.resume(runId)).status;
            for (let k = 0; status === "waiting" && k < 4; k++) {
              for (const a of Object.values((await t.driver.state(runId)).approvals).filter((x) => x.status === "pending"))
                await t.driver.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
              status = (await t.driver.resume(runId)).status;
            }
            expect(status).toBe("completed");
          } else {
            await until(`run ${runId} to complete at the edge`, async () => {
              const run = (await api(`/runs/${runId}`)).body.run;
              for (const a of run.approvals)
                await api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: JSON.stringify({ decision: "approve", requestHash: a.requestHash, by: "ops" }) });
              return run.status === "completed";
            });
          }
        },
        scaled(60_000),
      );
    }
  }
});
