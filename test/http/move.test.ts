import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, rulesPolicy, scriptedAgent, type RunId, type Store } from "../../src/index.js";
import { seal } from "../../src/journal/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { bundleText, exportRun, generateBundleKey, httpPlace, localPlace, movable, moveRun, sealRun, signingKey, tailOf, trustedKeys, type HttpFetch, type PlaceKeys } from "../../src/move/index.js";
import { SHAPES, TOOLS } from "../move/helpers.js";
import { until } from "../helpers/time.js";

const TOKEN = "operator-token-for-move-tests-0123";
const RUN_TOKEN = "run-token-for-move-tests-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const NDJSON = "application/x-ndjson";

const agent = () =>
  scriptedAgent((view) => (view.step <= 2 ? calls(call("read_file", { path: `p${view.step}` })) : view.step === 3 ? calls(call("write_file", { path: "out.md", content: "x" })) : final("done")));
const policy = rulesPolicy([{ tool: "write_file", permission: "ask" }]);

/** The edge (an app over a driver and a memory store, as `npm run example:serve` serves it) and a tab (a memory store here). */
function setup(options: { maxImportBytes?: number } = {}, keys: { edge?: PlaceKeys; tab?: PlaceKeys } = {}) {
  const clock = manualClock();
  const edgeStore = memoryStore({ clock });
  const edgeDriver = createDriver({ store: edgeStore, clock, owner: "edge-host", agent: agent(), tools: TOOLS, policy });
  const backend = driverBackend(edgeDriver, {
    move: (drive) => storeMoveBackend(edgeStore, { place: "edge", tools: SHAPES, onOwned: drive, ...(keys.edge === undefined ? {} : { keys: keys.edge }) }),
  });
  const app = createHttpApp({ backend, tokens: () => [TOKEN], runTokens: () => [RUN_TOKEN], ...options });
  const tabStore = movable(memoryStore({ clock }));
  const tabDriver = createDriver({ store: tabStore, clock, owner: "tab-driver", agent: agent(), tools: TOOLS, policy });
  const fetch: HttpFetch = (url, init) => app.request(url, init as RequestInit) as never;
  const edge = httpPlace({ url: "http://edge.test", name: "edge", token: TOKEN, fetch });
  const tab = localPlace(tabStore, { name: "tab:1", tools: SHAPES, clock, ...(keys.tab === undefined ? {} : { keys: keys.tab }) });
  return { app, clock, edgeStore, edgeDriver, tabStore, tabDriver, edge, tab };
}

async function waitingInTab(s: ReturnType<typeof setup>): Promise<RunId> {
  const o = await s.tabDriver.start("read, then write out.md");
  expect(o.status).toBe("waiting");
  return o.runId;
}

const post = (body: BodyInit, headers: Record<string, string> = {}) => ({ method: "POST", headers: { ...auth, ...headers }, body });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; actualSeq?: number; seq?: number } }).error;

describe("the move routes: who may call them", () => {
  it("refuse every caller without a token (401); a run token may export, not import, move or mirror (403)", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    const bundle = await bundleText(exportRun(s.tabStore, runId));
    await s.app.request("/runs/import", post(bundle, { "content-type": NDJSON }));
    const routes: [string, string, string, Record<string, string>][] = [
      ["GET", `/runs/${runId}/export`, "", {}],
      ["POST", "/runs/import", bundle, { "content-type": NDJSON }],
      ["POST", `/runs/${runId}/move`, JSON.stringify({ action: "abandon" }), { "content-type": "application/json" }],
      ["POST", `/runs/${runId}/mirror`, bundle, { "content-type": NDJSON }],
    ];
    for (const [method, path, body, headers] of routes) {
      const init = { method, headers, ...(method === "POST" ? { body } : {}) };
      const none = await s.app.request(path, init);
      expect([path, none.status]).toEqual([path, 401]);
      expect((await errorOf(none)).code).toBe("UNAUTHORIZED");
      const asRun = await s.app.request(path, { ...init, headers: { ...headers, authorization: `Bearer ${RUN_TOKEN}` } });
      if (method === "GET") expect([path, asRun.status]).toEqual([path, 200]);
      else {
        expect([path, asRun.status]).toEqual([path, 403]);
        expect(await errorOf(asRun)).toEqual({ code: "OPERATOR_SCOPE_REQUIRED", message: "this token may create and read runs, not import, move or mirror them: that needs an operator token" });
      }
    }
  });

  it("refuse a write made with the console's session from another origin (403 CSRF_REFUSED)", async () => {
    const s = setup();
    const login = await s.app.request("/login", { method: "POST", headers: { "content-type": "application/json", origin: "http://localhost" }, body: JSON.stringify({ token: TOKEN }) });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const res = await s.app.request("/runs/import", { method: "POST", headers: { cookie, origin: "https://evil.example", "content-type": NDJSON }, body: "{}" });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe("CSRF_REFUSED");
  });
});

describe("the move routes: bad input", () => {
  it("export: an unknown run is 404, a bad from 400; the stream is the bundle", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    expect((await s.app.request("/runs/nope/export", { headers: auth })).status).toBe(404);
    expect((await errorOf(await s.app.request(`/runs/${runId}/export?from=0`, { headers: auth }))).code).toBe("INVALID_QUERY");
    await s.app.request("/runs/import", post(await bundleText(exportRun(s.tabStore, runId)), { "content-type": NDJSON }));
    const res = await s.app.request(`/runs/${runId}/export`, { headers: auth });
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(await res.text()).toBe(await bundleText(exportRun(s.tabStore, runId)));
  });

  it("import: another media type 415, garbage and tampering 400 with the bundle's typed error, past the cap 413 whether declared or streamed, nothing written", async () => {
    const s = setup({ maxImportBytes: 400_000 });
    const runId = await waitingInTab(s);
    const bundle = await bundleText(exportRun(s.tabStore, runId));
    expect((await s.app.request("/runs/import", post(bundle, { "content-type": "application/json" }))).status).toBe(415);
    const garbage = await s.app.request("/runs/import", post("not a bundle\n", { "content-type": NDJSON }));
    expect([garbage.status, (await errorOf(garbage)).code]).toEqual([400, "BUNDLE_INVALID"]);
    const tampered = await s.app.request("/runs/import", post(bundle.replace('"attempt":1', '"attempt":7'), { "content-type": NDJSON }));
    expect(await errorOf(tampered)).toEqual({ code: "BUNDLE_TAMPERED", message: "event 5 does not match its hash" });
    const declared = await s.app.request("/runs/import", post("x", { "content-type": NDJSON, "content-length": "500000" }));
    expect([declared.status, (await errorOf(declared)).code]).toEqual([413, "BUNDLE_TOO_LARGE"]);
    const big = bundle + "x".repeat(400_000);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const streamed = await s.app.request("/runs/import", { method: "POST", headers: { ...auth, "content-type": NDJSON }, body: stream, duplex: "half" } as RequestInit);
    expect(await errorOf(streamed)).toEqual({ code: "BUNDLE_TOO_LARGE", message: "the bundle is larger than 400000 bytes, the import cap; nothing was written" });
    expect((await errorOf(await s.app.request("/runs/import?role=owner", post(bundle, { "content-type": NDJSON })))).code).toBe("INVALID_QUERY");
    expect(await s.edgeDriver.listRuns()).toEqual([]);
    const ok = await s.app.request("/runs/import", post(bundle, { "content-type": NDJSON }));
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ runId, outcome: "created", seq: 13, status: "waiting", custody: { role: "mirror" } });
  });

  it("move: JSON only, known actions only, no move to itself, an unknown run 404, an accept without the seal naming this place refused with nothing written", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    await s.app.request("/runs/import?role=in_transit", post(await bundleText(exportRun(s.tabStore, runId)), { "content-type": NDJSON }));
    const move = (body: unknown, type = "application/json") => s.app.request(`/runs/${runId}/move`, post(typeof body === "string" ? body : JSON.stringify(body), { "content-type": type }));
    expect((await move({ action: "abandon" }, "text/plain")).status).toBe(415);
    expect((await errorOf(await move({ action: "steal" }))).code).toBe("INVALID_BODY");
    expect((await errorOf(await move('{"action":"abandon","action":"abandon"}'))).code).toBe("JSON_DUPLICATE_KEY");
    expect((await errorOf(await move({ action: "release" }))).code).toBe("INVALID_BODY");
    expect(await errorOf(await move({ action: "release", to: "edge" }))).toEqual({ code: "MOVE_REFUSED", message: "a run cannot move from edge to itself" });
    expect((await s.app.request("/runs/nope/move", post(JSON.stringify({ action: "release", to: "tab:1" }), { "content-type": "application/json" }))).status).toBe(404);
    const { events } = await tailOf(s.tabStore, runId, 14);
    expect(await errorOf(await move({ action: "accept", events }))).toEqual({
      code: "MOVE_REFUSED",
      message: "accept takes the events after this place's copy, ending with the seal (run.moved) naming edge; nothing was accepted",
    });
    // A copy in transit is not released: it is not this place's to give.
    expect((await errorOf(await move({ action: "release", to: "tab:1" }))).code).toBe("RUN_IN_TRANSIT");
    expect(await (await move({ action: "abandon" })).json()).toEqual({ runId, abandoned: true });
    expect(await (await move({ action: "abandon" })).json()).toEqual({ runId, abandoned: false });
    const big = await move({ action: "accept", events: [{ pad: "x".repeat(1024 * 1024) }] });
    expect(big.status).toBe(413);
  });

  it("mirror: a gap is 409 with where the mirror ends, another history 409 naming the first differing event, a run this place owns 409 RUN_OWNED", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    const mirror = (body: string, id = runId) => s.app.request(`/runs/${id}/mirror`, post(body, { "content-type": NDJSON }));
    expect((await mirror(await bundleText(exportRun(s.tabStore, runId)))).status).toBe(201);
    const [a] = Object.values((await s.tabDriver.state(runId)).approvals);
    await s.tabDriver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await s.tabDriver.resume(runId);
    const gap = await mirror(await bundleText(exportRun(s.tabStore, runId, { fromSeq: 16 })));
    expect(await errorOf(gap)).toEqual({ code: "JOURNAL_CONFLICT", actualSeq: 13, message: `run ${runId} is at event 13 here: a bundle from event 16 would leave a gap (export from event 14)` });
    const next = await mirror(await bundleText(exportRun(s.tabStore, runId, { fromSeq: 14 })));
    expect(await next.json()).toMatchObject({ outcome: "fast_forwarded", seq: 19, status: "completed" });
    // Another tab's history of the same run id, from event 2 on.
    const other = setup();
    await other.tabDriver.start("another task under the same id", { runId });
    const diverged = await mirror(await bundleText(exportRun(other.tabStore, runId)));
    expect(await errorOf(diverged)).toEqual({ code: "RUN_DIVERGED", seq: 1, message: `run ${runId} diverged at event 1: the bundle's event 1 differs from this store's; nothing was written` });
    // A longer journal of a run the edge owns (a copy of its first event, grown elsewhere): the edge takes no import into it.
    const own = await s.edgeDriver.create("owned at the edge");
    const elsewhere = memoryStore();
    const [first] = await s.edgeStore.read(own);
    await elsewhere.createRun(first as never);
    const l = (await elsewhere.acquireLease(own, "x", 1000))!;
    await elsewhere.append(own, [seal({ v: 2, at: 1, type: "run.resumed", owner: "x", token: l.token } as never, 2, first!.hash)], { expectedSeq: 1, lease: l }, "running");
    expect(await errorOf(await mirror(await bundleText(exportRun(elsewhere, own)), own))).toEqual({
      code: "RUN_OWNED",
      message: `run ${own} is owned here: it grows by its own appends, never by an import`,
    });
  });
});

describe("moving runs over HTTP", () => {
  it("continue in the cloud, approve there, take it offline: one owner at each step, the run completes in the tab", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    const moved = await moveRun(runId, s.tab, s.edge);
    // The edge does not trust the tab: the write the tab asked about is asked again, of the edge's operator, once the edge drives it.
    expect(moved.completed.reopened).toBe(1);
    await until("the edge to ask its operator", async () => (await s.edgeDriver.state(runId)).status === "waiting");
    const view = (await (await s.app.request(`/runs/${runId}`, { headers: auth })).json()) as {
      run: { custody: unknown; status: string; approvals: { approvalId: string; requestHash: string; status: string }[] };
    };
    expect(view.run.custody).toBeNull();
    expect(await s.tabStore.custody(runId)).toMatchObject({ role: "moved", to: "edge" });
    const a = view.run.approvals.find((x) => x.status === "pending");
    const approved = await s.app.request(
      `/runs/${runId}/approvals/${a!.approvalId}`,
      post(JSON.stringify({ decision: "approve", requestHash: a!.requestHash, by: "console" }), { "content-type": "application/json" }),
    );
    expect(approved.status).toBe(200);
    await until("the edge to finish the run", async () => (await s.edgeDriver.state(runId)).status === "completed");
    await moveRun(runId, s.edge, s.tab);
    expect(await s.tabStore.custody(runId)).toBeUndefined();
    expect(((await (await s.app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { custody: { role: string } } }).run.custody.role).toBe("moved");
    expect((await s.tabDriver.state(runId)).status).toBe("completed");
  });

  it("an edge that trusts the tab's key keeps the tab's pending ask (the same approval); the edge's export is signed with its own key", async () => {
    const tabPair = await generateBundleKey("tab-1");
    const edgePair = await generateBundleKey("edge-1");
    const s = setup({}, { edge: { signing: await signingKey(edgePair.privateJwk), trusted: await trustedKeys([tabPair.publicJwk]) }, tab: { signing: await signingKey(tabPair.privateJwk) } });
    const runId = await waitingInTab(s);
    const [asked] = Object.values((await s.tabDriver.state(runId)).approvals);
    expect((await moveRun(runId, s.tab, s.edge)).completed.reopened).toBe(0);
    const view = (await (await s.app.request(`/runs/${runId}`, { headers: auth })).json()) as { run: { status: string; approvals: { approvalId: string }[] } };
    expect([view.run.status, view.run.approvals.map((a) => a.approvalId)]).toEqual(["waiting", [asked!.approvalId]]);
    const text = await (await s.app.request(`/runs/${runId}/export`, { headers: auth })).text();
    expect((JSON.parse(text.trim().split("\n").at(-1)!) as { end: { signature?: { kid: string } } }).end.signature?.kid).toBe("edge-1");
    // The same over accept: the seal's tail as JSON, with the tab's signature as its bundle's trailer carries it.
    const other = await waitingInTab(s);
    await s.edge.receive(other, await s.tab.export(other, 1), "in_transit");
    await sealRun(s.tabStore, other, { from: "tab:1", to: "edge" });
    const signature = (
      JSON.parse((await bundleText(exportRun(s.tabStore, other, { fromSeq: 14, signing: await signingKey(tabPair.privateJwk) }))).trim().split("\n").at(-1)!) as { end: { signature: unknown } }
    ).end.signature;
    const res = await s.app.request(`/runs/${other}/move`, post(JSON.stringify({ action: "accept", ...(await tailOf(s.tabStore, other, 14)), signature }), { "content-type": "application/json" }));
    expect(await res.json()).toMatchObject({ runId: other, seq: 14, reopened: 0, custody: null });
  });

  it("accept: the tab seals, and the seal's tail posted as JSON hands the run to the edge", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    await s.edge.receive(runId, await s.tab.export(runId, 1), "in_transit");
    await sealRun(s.tabStore, runId, { from: "tab:1", to: "edge" });
    const tail = await tailOf(s.tabStore, runId, 14);
    const res = await s.app.request(`/runs/${runId}/move`, post(JSON.stringify({ action: "accept", ...tail }), { "content-type": "application/json" }));
    // Taken over with the tab's open call decided again at the edge (event 15, the edge's own): the edge trusts no key of the tab's.
    expect(await res.json()).toMatchObject({ runId, outcome: "fast_forwarded", seq: 15, written: 2, reopened: 1, custody: null });
    expect((await s.edgeStore.read(runId, 15))[0]!.type).toBe("call.reopened");
    // Driven there (onOwned), the edge's gate asks the edge's operator, saying why.
    await until("the edge to ask its operator", async () => (await s.edgeDriver.state(runId)).status === "waiting");
    const asked = Object.values((await s.edgeDriver.state(runId)).approvals).map((x) => [x.status, x.request.note]);
    expect(asked).toEqual([
      ["voided", undefined],
      ["pending", 'the run came from "tab:1", which "edge" does not trust to decide for it (no key it trusts vouched for the run up to its move here): this call is decided here again'],
    ]);
    expect(await s.edgeStore.custody!(runId)).toBeUndefined();
  });
});

describe("the move routes under races", () => {
  it("two releases at once: exactly one seals, the other is refused; the seal is the journal's last event", async () => {
    const s = setup();
    const runId = await s.edgeDriver.create("at the edge");
    const release = (to: string) => s.app.request(`/runs/${runId}/move`, post(JSON.stringify({ action: "release", to }), { "content-type": "application/json" }));
    const [x, y] = await Promise.all([release("tab:1"), release("tab:2")]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    const refusedCode = (await errorOf(x.status === 409 ? x : y)).code;
    expect(["RUN_MOVED", "MOVE_REFUSED"]).toContain(refusedCode);
    const events = await s.edgeStore.read(runId);
    expect(events.filter((e) => e.type === "run.moved")).toHaveLength(1);
    expect(events.at(-1)!.type).toBe("run.moved");
  });

  it("a release racing an operator's answer: the answer lands before the seal or is refused (RUN_MOVED), never after it", async () => {
    for (let round = 0; round < 10; round++) {
      const s = setup();
      const runId = await waitingInTab(s);
      await moveRun(runId, s.tab, s.edge);
      // The edge asks its own operator again (it does not trust the tab): the answer races the release.
      await until("the edge to ask its operator", async () => (await s.edgeDriver.state(runId)).status === "waiting");
      const a = Object.values((await s.edgeDriver.state(runId)).approvals).find((x) => x.status === "pending");
      const [answered, released] = await Promise.all([
        s.app.request(`/runs/${runId}/approvals/${a!.approvalId}`, post(JSON.stringify({ decision: "approve", requestHash: a!.requestHash, by: "ops" }), { "content-type": "application/json" })),
        s.app.request(`/runs/${runId}/move`, post(JSON.stringify({ action: "release", to: "tab:1" }), { "content-type": "application/json" })),
      ]);
      const events = await s.edgeStore.read(runId);
      const seal = events.findIndex((e) => e.type === "run.moved" && e.to === "tab:1");
      const answer = events.findIndex((e) => e.type === "approval.resolved");
      if (released.status === 200) expect(seal).toBe(events.length - 1);
      if (answered.status === 200) expect(answer).toBeGreaterThan(-1);
      if (answered.status !== 200) expect((await errorOf(answered)).code).toBe("RUN_MOVED");
      if (seal >= 0 && answer >= 0) expect(answer).toBeLessThan(seal);
      expect(released.status === 200 || answered.status === 200).toBe(true);
    }
  });

  it("the same bundle imported twice at once: one creates the run, the other changes nothing; mirror pushes of overlapping tails at once leave the mirror a prefix of the run", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    const bundle = await bundleText(exportRun(s.tabStore, runId));
    const answers = await Promise.all([1, 2, 3].map(async () => s.app.request("/runs/import", post(bundle, { "content-type": NDJSON }))));
    const outcomes = await Promise.all(answers.map(async (r) => ((await r.json()) as { outcome: string }).outcome));
    expect(outcomes.sort()).toEqual(["created", "unchanged", "unchanged"]);
    const [a] = Object.values((await s.tabDriver.state(runId)).approvals);
    await s.tabDriver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await s.tabDriver.resume(runId);
    const tails = await Promise.all([14, 15, 16, 14].map(async (from) => bundleText(exportRun(s.tabStore, runId, { fromSeq: from }))));
    const pushed = await Promise.all(tails.map(async (t) => s.app.request(`/runs/${runId}/mirror`, post(t, { "content-type": NDJSON }))));
    for (const r of pushed) expect([200, 409]).toContain(r.status);
    const mine = (await s.tabStore.read(runId)).map((e) => e.hash);
    const theirs = (await s.edgeStore.read(runId)).map((e) => e.hash);
    expect(theirs).toEqual(mine.slice(0, theirs.length));
    expect(theirs.length).toBe(19);
  });

  it("two accepts of the same seal at once: the edge owns the run once", async () => {
    const s = setup();
    const runId = await waitingInTab(s);
    await s.edge.receive(runId, await s.tab.export(runId, 1), "in_transit");
    await sealRun(s.tabStore, runId, { from: "tab:1", to: "edge" });
    const tail = await tailOf(s.tabStore, runId, 14);
    const both = await Promise.all([1, 2].map(async () => s.app.request(`/runs/${runId}/move`, post(JSON.stringify({ action: "accept", ...tail }), { "content-type": "application/json" }))));
    const outcomes = await Promise.all(both.map(async (r) => ((await r.json()) as { outcome: string }).outcome));
    expect(outcomes.sort()).toEqual(["fast_forwarded", "unchanged"]);
    expect((await s.edgeStore.read(runId)).filter((e) => e.type === "run.moved")).toHaveLength(1);
  });
});

void ({} as Store);
