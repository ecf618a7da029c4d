import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, rulesPolicy, scriptedAgent, type Driver, type RunId } from "../../src/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { httpPlace, localPlace, movable, mirrorRuns, moveRun, type HttpFetch, type MirrorState } from "../../src/move/index.js";
import { SHAPES, TOOLS } from "./helpers.js";
import { until } from "../helpers/time.js";

const TOKEN = "operator-token-for-mirror-tests-01";
const agent = () =>
  scriptedAgent((view) => (view.step <= 2 ? calls(call("read_file", { path: `p${view.step}` })) : view.step === 3 ? calls(call("write_file", { path: "out.md", content: "x" })) : final("done")));
const policy = rulesPolicy([{ tool: "write_file", permission: "ask" }]);

/** A tab (memory store) mirroring to the edge (the HTTP app), through a network that can be cut, or lose answers. */
function setup() {
  const edgeStore = memoryStore();
  const edgeDriver = createDriver({ store: edgeStore, owner: "edge-host", agent: agent(), tools: TOOLS, policy });
  const app = createHttpApp({ backend: driverBackend(edgeDriver, { move: (drive) => storeMoveBackend(edgeStore, { place: "edge", tools: SHAPES, onOwned: drive }) }), tokens: () => [TOKEN] });
  const net = { offline: false, loseAnswers: 0, pushes: [] as { from: number; to: number }[] };
  const fetch: HttpFetch = async (url, init) => {
    if (net.offline) throw new TypeError("fetch failed");
    if (url.includes("/runs/import") && init.body !== undefined) {
      const text = typeof init.body === "string" ? init.body : await (init.body as Blob).text();
      const h = (JSON.parse(text.slice(0, text.indexOf("\n"))) as { bundle: { from: number; to: number } }).bundle;
      net.pushes.push({ from: h.from, to: h.to });
      init = { ...init, body: text };
    }
    const res = await app.request(url, init as RequestInit);
    if (net.loseAnswers > 0 && url.includes("/runs/import")) {
      net.loseAnswers--;
      throw new TypeError("the connection dropped before the answer");
    }
    return res as never;
  };
  const tabStore = movable(memoryStore());
  const tabDriver = createDriver({ store: tabStore, owner: "tab", agent: agent(), tools: TOOLS, policy });
  const edge = httpPlace({ url: "http://edge.test", name: "edge", token: TOKEN, fetch });
  return { app, edgeStore, edgeDriver, tabStore, tabDriver, edge, net, tab: localPlace(tabStore, { name: "tab:m", tools: SHAPES }) };
}

async function approveAndResume(d: Driver, runId: RunId): Promise<void> {
  for (const a of Object.values((await d.state(runId)).approvals).filter((x) => x.status === "pending")) await d.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
  await d.resume(runId);
}

describe("mirroring a tab's runs to the edge", () => {
  it("pushes each run's journal as it grows, verified there, read-only there, and listed as a mirror", async () => {
    const s = setup();
    const states: MirrorState[] = [];
    const mirror = mirrorRuns({ store: s.tabStore, to: s.edge, everyMs: 20, onState: (st) => states.push(st) });
    try {
      const { runId } = await s.tabDriver.start("read, then write out.md");
      await mirror.synced(runId);
      expect((await s.edgeStore.read(runId)).map((e) => e.hash)).toEqual((await s.tabStore.read(runId)).map((e) => e.hash));
      const [listed] = await s.edgeDriver.listRuns();
      expect(listed).toMatchObject({ runId, status: "waiting", custody: { role: "mirror" } });
      // Read-only at the edge: an operator there cannot answer for the tab.
      const [a] = Object.values((await s.edgeDriver.state(runId)).approvals);
      const res = await s.app.request(`/runs/${runId}/approvals/${a!.approvalId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve", requestHash: a!.requestHash }),
      });
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([409, "RUN_MIRROR"]);
      await approveAndResume(s.tabDriver, runId);
      mirror.notify();
      const done = await mirror.synced(runId);
      expect(done).toMatchObject({ runId, seq: 19, acked: 19, online: true });
      expect(typeof done.lagMs).toBe("number");
      expect((await s.edgeDriver.state(runId)).status).toBe("completed");
      // Append-only: each push was the tail after the last acknowledged seq.
      expect(s.net.pushes).toEqual([
        { from: 1, to: 13 },
        { from: 14, to: 19 },
      ]);
      expect(states.some((x) => x.acked === 13)).toBe(true);
    } finally {
      await mirror.stop();
    }
  });

  it("queues while offline (the journal is the queue) and resumes from the last acknowledged seq after reconnecting", async () => {
    const s = setup();
    const mirror = mirrorRuns({ store: s.tabStore, to: s.edge, everyMs: 20, retryMs: 10, maxRetryMs: 40 });
    try {
      const { runId } = await s.tabDriver.start("read, then write out.md");
      await mirror.synced(runId);
      s.net.offline = true;
      await approveAndResume(s.tabDriver, runId);
      mirror.notify();
      await until("the mirror to see it is offline", () => mirror.states().find((x) => x.runId === runId && !x.online));
      expect((await s.edgeStore.read(runId)).length).toBe(13);
      s.net.offline = false;
      mirror.notify();
      await mirror.synced(runId);
      expect((await s.edgeStore.read(runId)).map((e) => e.hash)).toEqual((await s.tabStore.read(runId)).map((e) => e.hash));
      expect(s.net.pushes.at(-1)).toEqual({ from: 14, to: 19 });
    } finally {
      await mirror.stop();
    }
  });

  it("a push whose answer is lost is pushed again from the old acknowledgement: the edge takes what it lacks and nothing twice", async () => {
    const s = setup();
    const mirror = mirrorRuns({ store: s.tabStore, to: s.edge, everyMs: 20, retryMs: 10 });
    try {
      s.net.loseAnswers = 1;
      const { runId } = await s.tabDriver.start("read, then write out.md");
      await mirror.synced(runId);
      expect(s.net.pushes.slice(0, 2)).toEqual([
        { from: 1, to: 13 },
        { from: 1, to: 13 },
      ]);
      expect((await s.edgeStore.read(runId)).length).toBe(13);
    } finally {
      await mirror.stop();
    }
  });

  it("a mirror is the move's head start: continuing in the cloud sends only the seal", async () => {
    const s = setup();
    const mirror = mirrorRuns({ store: s.tabStore, to: s.edge, everyMs: 20 });
    const { runId } = await s.tabDriver.start("read, then write out.md");
    await mirror.synced(runId);
    await mirror.stop();
    const before = s.net.pushes.length;
    await moveRun(runId, s.tab, s.edge);
    expect(s.net.pushes.slice(before)).toEqual([
      { from: 14, to: 13 },
      { from: 14, to: 14 },
    ]);
    expect(await s.edgeStore.custody!(runId)).toBeUndefined();
  });
});
