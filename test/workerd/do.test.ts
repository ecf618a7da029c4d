import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent, Store } from "../../src/index.js";
import { SIDE_EFFECTS } from "../../src/tools/index.js";
import { seal, type RunCreated } from "../../src/journal/index.js";
import { baselineOf, CRASH_POINTS, judge, listScenario, runStoreConformance, type CrashResult, type Execution, type RunRecord } from "../../src/testkit/index.js";
import { formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";
import { decode, encode, remoteStore as remoteStoreOf } from "../helpers/remote-store.js";
import { sseReader } from "../helpers/sse.js";
import { scaled, until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";
import { workspaceToolCases } from "../toolkit/cases.js";
import type { Workspace } from "../../src/toolkit/index.js";

const TOKEN = "workerd-test-token-0123456789";
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("test/workerd/workers/do-entry.ts", {
    durableObjects: {
      ...RUN_OBJECTS.durableObjects,
      WORLD: { className: "World", useSQLite: true },
      WORKSPACES: { className: "WorkspaceObject", useSQLite: true },
      SQL_PROBE: { className: "SqlProbe", useSQLite: true },
      SQL_PROBE_V2: { className: "SqlProbeV2", useSQLite: true },
      INDEX_PROBE: { className: "IndexProbe", useSQLite: true },
    },
    // Keep-alive pings every 50 ms: the push test counts reads across several of them.
    bindings: { ISOAGENT_TOKEN: TOKEN, ISOAGENT_KEEPALIVE_MS: "50" },
  });
});
afterAll(async () => {
  await mf?.dispose();
});

/** Moves the run objects' store clock on (leases are judged by it): no real wait a busy machine could stretch past a lease's expiry. */
const advanceClock = async (ms: number): Promise<void> => {
  await mf.dispatchFetch("http://localhost/test/clock/advance", { method: "POST", body: JSON.stringify({ ms }) });
};
const api = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  } as never);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
};
const post = (path: string, body: unknown) => api(path, { method: "POST", body: JSON.stringify(body) });

// ---- the run store's upgrade path ------------------------------------------------------

describe("a run object's storage written by version 1 of the store", () => {
  it("opens: its one-event rows read as they are, its head from the meta row; an append after the upgrade is one row the next incarnation reads its head from", async () => {
    const r = (await (await mf.dispatchFetch("http://localhost/test/sql-from-v1")).json()) as any;
    expect(r.before.summary).toEqual({ runId: "v1_run", status: "cancelled", createdAt: 5, updatedAt: 6, seq: 2, indexedSeq: 0 });
    expect(r.before.hashes).toEqual(r.expected.hashes);
    expect(r.head).toEqual({ seq: 3, hash: r.expected.third });
    expect(r.after.summary).toEqual({ runId: "v1_run", status: "failed", createdAt: 5, updatedAt: 7, seq: 3, indexedSeq: 0 });
    expect(r.after.seqs).toEqual([2, 3]);
    expect(r.after.rows).toBe(3);
  });
});

describe("a run object's storage written by version 2 of the store", () => {
  it("opens at v3: its rows of whole events read back exactly; an append after the upgrade is one lean row (no seq or prev in its events) that reads back exactly, from its start or its middle", async () => {
    const r = (await (await mf.dispatchFetch("http://localhost/test/sql-from-v2")).json()) as any;
    expect(r.version).toBe(3);
    expect(r.before.summary).toEqual({ runId: "v2_run", status: "running", createdAt: 5, updatedAt: 7, seq: 3, indexedSeq: 0 });
    expect(r.before.events).toEqual(r.expected.events);
    expect(r.before.task).toEqual({ from: "v2" });
    expect(r.head).toEqual({ seq: 5, hash: r.expected.hashes[1] });
    expect(r.after.summary).toEqual({ runId: "v2_run", status: "running", createdAt: 5, updatedAt: 8, seq: 5, indexedSeq: 0 });
    expect(r.after.events).toEqual([...r.expected.events, ...r.expected.appended]);
    expect(r.after.fromMiddle).toEqual([5]);
    expect(r.after.fromOld).toEqual([3, 4, 5]);
    expect(r.row.p).toBe(r.expected.prev);
    expect(r.row.h).toEqual(r.expected.hashes);
    for (const e of r.row.e) for (const f of ["seq", "prev", "hash"]) expect(e).not.toHaveProperty(f);
  });
});

describe("an index made before runs had titles", () => {
  it("gains the column when opened: old rows list without a title until their run reports one, which then stays", async () => {
    const r = (await (await mf.dispatchFetch("http://localhost/test/index-from-before-titles")).json()) as any;
    expect(r.before).toEqual([{ runId: "old_run", status: "waiting", createdAt: 1, updatedAt: 2, seq: 3 }]);
    expect(r.after).toEqual([{ runId: "old_run", status: "completed", createdAt: 1, updatedAt: 4, seq: 5, title: "Summarise notes" }]);
  });
});

// ---- the Store, over RPC, from this process -------------------------------------------

const postRaw = (path: string, body: string) => mf.dispatchFetch(`http://localhost${path}`, { method: "POST", body } as never);
const remoteStore = (route: "store" | "local" = "store"): Store => remoteStoreOf(postRaw, route);

describe("the Durable Object store over RPC, in workerd", () => {
  runStoreConformance({
    name: "durable object (RPC)",
    test: (name, fn) => it(name, fn, scaled(30_000)),
    create: () => ({ store: remoteStore(), advance: (ms) => advanceClock(ms) }),
  });
});

describe("the store a run object's own host drives its run on (localStore), in workerd", () => {
  runStoreConformance({
    name: "durable object (host's local store)",
    test: (name, fn) => it(name, fn, scaled(30_000)),
    create: () => ({ store: remoteStore("local"), advance: (ms) => advanceClock(ms) }),
  });
});

/** A Workspace whose every call reaches a Durable Object's sqlWorkspace over RPC. */
function remoteWorkspace(name: string): Workspace {
  const call =
    (method: string) =>
    async (...args: unknown[]) => {
      const res = await mf.dispatchFetch(`http://localhost/test/workspace/${name}/${method}`, { method: "POST", body: JSON.stringify(encode(args)) });
      const v = decode(((await res.json()) as { value: unknown }).value);
      return v === null ? undefined : v;
    };
  return { read: call("read"), list: call("list"), commit: call("commit"), receipt: call("receipt") } as unknown as Workspace;
}

let workspaces = 0;
describe("workspace tools on a Durable Object's SQLite storage, in workerd", () => {
  workspaceToolCases({ name: "durable object", make: async () => remoteWorkspace(`ws-${++workspaces}`) }, (name, fn) => it(name, fn, scaled(30_000)));
});

describe("a driver in the Worker, its run's store in the run's object", () => {
  it("drives a run to completion over RPC, and the index lists it", async () => {
    const res = (await (await mf.dispatchFetch("http://localhost/test/remote-drive?runId=remote_1")).json()) as any;
    expect(res).toEqual({
      status: "completed",
      world: { items: ["a", "b"] },
      types: [
        "run.created",
        "run.resumed",
        "step.decided",
        "call.permission",
        "call.started",
        "call.finished",
        "step.decided",
        "call.permission",
        "call.started",
        "call.finished",
        "step.decided",
        "run.completed",
      ],
      owners: ["worker-driver"],
    });
    const listed = (await api("/runs?status=completed")).body.runs as { runId: string }[];
    expect(listed.map((r) => r.runId)).toContain("remote_1");
  });
});

describe("the Worker in plain miniflare", () => {
  it("refuses code generation from strings, and runs isoagent anyway", async () => {
    const res = await mf.dispatchFetch("http://localhost/test/codegen");
    expect(await res.text()).toBe("refused: Code generation from strings disallowed for this context");
    expect((await api("/health")).body).toEqual({ ok: true });
  });
});

describe("runs hosted by their Durable Objects, over the HTTP API", () => {
  it("refuses every route but the health check without the token, or with a wrong one", async () => {
    const routes: [string, string][] = [
      ["POST", "/runs"],
      ["GET", "/runs"],
      ["GET", "/runs/r1"],
      ["GET", "/runs/r1/events"],
      ["GET", "/runs/r1/approvals"],
      ["POST", "/runs/r1/approvals/apr.1.s1c1.1"],
      ["POST", "/runs/r1/cancel"],
      ["POST", "/runs/r1/reconcile"],
    ];
    for (const [method, path] of routes) {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }, { authorization: TOKEN }] as Record<string, string>[]) {
        const res = await mf.dispatchFetch(`http://localhost${path}`, { method, headers: { ...headers, "content-type": "application/json" }, ...(method === "POST" ? { body: "{}" } : {}) });
        expect([method, path, res.status]).toEqual([method, path, 401]);
        expect(await res.json()).toEqual({ error: { code: "UNAUTHORIZED", message: "a valid bearer token is required" } });
      }
    }
    expect((await mf.dispatchFetch("http://localhost/health")).status).toBe(200);
  });

  it("resumes a hosted run by its alarm alone, after the object was reset mid-run", async () => {
    const runId = "alarm_remote_mutation";
    await post(`/test/run/${runId}/plan`, { point: "before_started" });
    await post(`/test/run/${runId}/host`, { task: "t" });
    // Nobody drives the run now (reading its state does not): only its alarm can bring it home.
    await until(`run ${runId} to complete by its alarm`, async () => (await api(`/runs/${runId}`)).body.run.status === "completed");
    const { world, crashed } = (await api(`/test/run/${runId}/world`)).body;
    expect(crashed).toBe(true);
    expect(world).toEqual({ items: ["a", "b"] });
  });

  it("creates a run, refuses an approval quoting the wrong hash, approves with the right one, and lists the run", async () => {
    const created = await post("/runs", { task: "ask local_mutation" });
    expect(created.status).toBe(201);
    const runId = created.body.runId as string;
    const runUntil = (ok: (run: any) => boolean) =>
      until(`run ${runId} to get there`, async () => {
        const run = (await api(`/runs/${runId}`)).body.run;
        return ok(run) ? run : undefined;
      });
    for (const item of ["a", "b"]) {
      const run = await runUntil((r) => r.status === "waiting" && r.approvals.some((a: any) => a.request.args?.item === item));
      const pending = run.approvals.find((a: any) => a.request.args?.item === item);
      expect(pending.request).toMatchObject({ kind: "call", tool: "add_item", sideEffect: "local_mutation" });
      const wrong = await post(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: "0".repeat(64) });
      expect(wrong.status).toBe(409);
      expect(wrong.body.error.code).toBe("APPROVAL_HASH_MISMATCH");
      const right = await post(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash, by: "test-operator" });
      expect(right.status).toBe(200);
    }
    const run = await runUntil((r) => r.status === "completed");
    expect(run.output).toBe("added");
    expect((await api(`/test/run/${runId}/world`)).body.world).toEqual({ items: ["a", "b"] });
    // The status change reaches the index before the caller is answered; the
    // seq of later progress, by the alarm.
    expect((await api("/runs?status=completed")).body.runs.map((r: { runId: string }) => r.runId)).toContain(runId);
    await until(
      `the index to list run ${runId} at seq ${run.seq}`,
      async () => ((await api("/runs?status=completed")).body.runs as { runId: string; seq: number }[]).find((r) => r.runId === runId)?.seq === run.seq,
    );
    const late = await post(`/runs/${runId}/approvals/apr.1.s1c1.1`, { decision: "approve", requestHash: "0".repeat(64) });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("RUN_NOT_ACTIVE");
  });

  it("holds a 3-turn conversation in the run's object: a tool call and its approval in turn 2, each message taken once, idle between turns (issue 29)", async () => {
    const created = await post("/runs", { task: "ask chat local_mutation", conversation: true });
    expect(created.status).toBe(201);
    const runId = created.body.runId as string;
    const runUntil = (what: string, ok: (run: any) => boolean) => viewUntil(runId, what, ok);
    await runUntil("idle before its first message", (r) => r.status === "idle");
    const say = async (id: string, text: string): Promise<void> => {
      expect((await post(`/runs/${runId}/messages`, { id, text })).status).toBe(202);
      // A retried POST of the same message appends nothing.
      const again = await post(`/runs/${runId}/messages`, { id, text });
      expect([again.status, again.body.duplicate]).toEqual([200, true]);
    };
    await say("m1", "hello");
    expect((await runUntil("answered turn 1", (r) => r.status === "idle" && r.output === "you said: hello")).output).toBe("you said: hello");
    await say("m2", "add a");
    const waiting = await runUntil("waiting in turn 2", (r) => r.status === "waiting");
    expect((await post(`/runs/${runId}/messages`, { id: "m3", text: "too soon" })).body.error.code).toBe("TURN_IN_PROGRESS");
    const [pending] = waiting.approvals;
    expect((await post(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash, by: "test-operator" })).status).toBe(200);
    await runUntil("answered turn 2", (r) => r.status === "idle" && r.output === "added");
    expect((await api(`/test/run/${runId}/world`)).body.world).toEqual({ items: ["a"] });
    await say("m3", "bye");
    await runUntil("answered turn 3", (r) => r.status === "idle" && r.output === "you said: bye");
    expect((await api("/runs?status=idle")).body.runs.map((r: { runId: string }) => r.runId)).toContain(runId);
    expect((await post(`/runs/${runId}/close`, { by: "ana" })).status).toBe(200);
    await runUntil("closed", (r) => r.status === "completed");
    const events = (await api(`/runs/${runId}/events`)).body.events as JournalEvent[];
    expect(events.filter((e) => e.type === "user.message").map((e) => (e as Extract<JournalEvent, { type: "user.message" }>).messageId)).toEqual(["m1", "m2", "m3"]);
    expect(events.filter((e) => e.type === "turn.ended").map((e) => (e as Extract<JournalEvent, { type: "turn.ended" }>).reason)).toEqual(["answered", "answered", "answered"]);
  });

  /** The run's view over the API once `ok` holds of it. */
  const viewUntil = (runId: string, what: string, ok: (run: any) => boolean) =>
    until(`run ${runId}: ${what}`, async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return ok(run) ? run : undefined;
    });

  it("stops a conversation's turn in the run's object while its tool waits for an approval, and the conversation goes on (issue 29)", async () => {
    const runId = (await post("/runs", { task: "ask chat local_mutation", conversation: true })).body.runId as string;
    const runUntil = (what: string, ok: (run: any) => boolean) => viewUntil(runId, what, ok);
    await runUntil("idle", (r) => r.status === "idle");
    expect((await post(`/runs/${runId}/messages`, { id: "m1", text: "add z" })).status).toBe(202);
    await runUntil("waiting", (r) => r.status === "waiting");
    expect((await post(`/runs/${runId}/stop`, { by: "ana" })).body).toEqual({ status: "idle" });
    expect((await api(`/test/run/${runId}/world`)).body.world).toEqual({ items: [] });
    expect((await post(`/runs/${runId}/messages`, { id: "m2", text: "hi" })).status).toBe(202);
    await runUntil("answered", (r) => r.status === "idle" && r.output === "you said: hi");
  });

  it("checks a conversation's answers against its output schema in the run's object: refused past the limit ends the turn, a message's own schema holds its turn (issue 29)", async () => {
    expect((await post("/runs", { task: "ask chat local_mutation", conversation: true, outputSchema: { type: "nope" } })).status).toBe(400);
    const schema = { type: "string", pattern: "^you said: [a-z]+$" };
    const runId = (await post("/runs", { task: "ask chat local_mutation", conversation: true, outputSchema: schema })).body.runId as string;
    const runUntil = (what: string, ok: (run: any) => boolean) => viewUntil(runId, what, ok);
    await runUntil("idle", (r) => r.status === "idle");
    expect((await post(`/runs/${runId}/messages`, { id: "m1", text: "hi" })).status).toBe(202);
    await runUntil("answered", (r) => r.status === "idle" && r.output === "you said: hi");
    // The agent's answer to this one never matches: refused at each try, the turn ends at the failure limit.
    expect((await post(`/runs/${runId}/messages`, { id: "m2", text: "HI!" })).status).toBe(202);
    await runUntil("the turn ended", (r) => r.status === "idle" && r.conversation?.ended?.reason === "consecutive_failures");
    expect((await post(`/runs/${runId}/messages`, { id: "m3", text: "HI!", outputSchema: { type: "string" } })).status).toBe(202);
    await runUntil("answered under its own schema", (r) => r.status === "idle" && r.output === "you said: HI!");
    const types = ((await api(`/runs/${runId}/events`)).body.events as { type: string }[]).map((e) => e.type);
    // The limit is the default 3 failures in a row: three refusals in turn 2, none in turns 1 and 3.
    expect(types.filter((t) => t === "output.rejected")).toHaveLength(3);
  });

  it("streams a run's journal over SSE, resumed after Last-Event-ID", async () => {
    const runId = (await post("/runs", { task: "plain_read_only" })).body.runId as string;
    await until(`run ${runId} to complete`, async () => (await api(`/runs/${runId}`)).body.run.status === "completed");
    const res = await mf.dispatchFetch(`http://localhost/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream", "last-event-id": "2" } });
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(3);
    expect(text).toContain("event: end");
  });

  it("with an Idempotency-Key: concurrent and retried creates return the one run its object made, listed once; the key with another task is 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const key = `do-${crypto.randomUUID()}`;
    const create = (task: unknown) => api("/runs", { method: "POST", headers: { "idempotency-key": key }, body: JSON.stringify({ task }) });
    const raced = await Promise.all(Array.from({ length: 4 }, () => create("plain_read_only")));
    expect(raced.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const runId = raced[0]!.body.runId as string;
    expect(new Set(raced.map((r) => r.body.runId))).toEqual(new Set([runId]));
    await until(`run ${runId} to complete`, async () => (await api(`/runs/${runId}`)).body.run.status === "completed");
    const retried = await create("plain_read_only");
    expect(retried).toEqual({ status: 201, body: { runId } });
    const reused = await create("plain_local_mutation");
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // One run: its events are one run.created, and the index lists it once.
    const events = (await api(`/runs/${runId}/events`)).body.events as JournalEvent[];
    expect(events.filter((e) => e.type === "run.created").length).toBe(1);
    await until(`the index to list run ${runId}`, async () => ((await api("/runs?limit=500")).body.runs as { runId: string }[]).some((r) => r.runId === runId));
    expect(((await api("/runs?limit=500")).body.runs as { runId: string }[]).filter((r) => r.runId === runId).length).toBe(1);
  });

  it("pushes a run's journal from its object: every event in order, each once, no read while the run waits, and a stream that goes away is let go", async () => {
    // Issue 15, finding 7: the object holds the stream and tells it when it appends.
    const runId = (await post("/runs", { task: "ask local_mutation" })).body.runId as string;
    const stats = async (): Promise<{ open: number; appends: number; reads: number }> => (await api(`/test/run/${runId}/streams`)).body.value;
    const res = await mf.dispatchFetch(`http://localhost/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const s = sseReader(res.body as unknown as ReadableStream<Uint8Array>);
    const typeOf = (m: { data: string }) => (JSON.parse(m.data) as { type: string }).type;
    for (let k = 1; k <= 2; k++) {
      await s.until((m) => m.filter((x) => x.event === "journal" && typeOf(x) === "approval.requested").length >= k);
      // The run waits for its operator: pings go by, and the object reads nothing for the stream.
      const before = await stats();
      const pings = s.messages.filter((x) => x.event === "ping").length;
      await s.until((m) => m.filter((x) => x.event === "ping").length >= pings + 3);
      expect((await stats()).reads).toBe(before.reads);
      const pending = (await api(`/runs/${runId}`)).body.run.approvals[0];
      expect((await post(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash })).status).toBe(200);
    }
    const all = await s.until((m) => m.some((x) => x.event === "end"));
    const events = (await api(`/runs/${runId}/events`)).body.events as { seq: number; hash: string }[];
    const journal = all.filter((x) => x.event === "journal");
    expect(journal.map((x) => x.id)).toEqual(events.map((e) => e.seq));
    expect(journal.map((x) => (JSON.parse(x.data) as { hash: string }).hash)).toEqual(events.map((e) => e.hash));
    expect(JSON.parse(all.at(-1)!.data)).toEqual({ status: "completed" });
    const after = await stats();
    expect(after.reads).toBeLessThanOrEqual(after.appends + 1);
    expect(after.open).toBe(0);

    // A reader that goes away: the object lets its stream go.
    const other = (await post("/runs", { task: "ask local_mutation" })).body.runId as string;
    const gone = await mf.dispatchFetch(`http://localhost/runs/${other}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    const g = sseReader(gone.body as unknown as ReadableStream<Uint8Array>);
    await g.until((m) => m.some((x) => x.event === "journal"));
    expect((await api(`/test/run/${other}/streams`)).body.value.open).toBe(1);
    await g.cancel();
    await until(`run ${other}'s object to let its stream go`, async () => (await api(`/test/run/${other}/streams`)).body.value.open === 0);
  });

  it("pushes to many streams on one run's object, one resumed after Last-Event-ID, each getting every event once, and lets them all go", async () => {
    const runId = (await post("/runs", { task: "ask local_mutation" })).body.runId as string;
    const open = (headers: Record<string, string> = {}) =>
      mf.dispatchFetch(`http://localhost/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream", ...headers } });
    const typeOf = (m: { data: string }) => (JSON.parse(m.data) as { type: string }).type;
    const streams = await Promise.all(Array.from({ length: 6 }, async () => sseReader((await open()).body as unknown as ReadableStream<Uint8Array>)));
    await Promise.all(streams.map((s) => s.until((m) => m.some((x) => x.event === "journal" && typeOf(x) === "approval.requested"))));
    expect((await api(`/test/run/${runId}/streams`)).body.value.open).toBe(6);
    // One leaves, and comes back after the last event it saw.
    const left = streams.pop()!;
    const last = left.messages.filter((x) => x.event === "journal").at(-1)!.id!;
    await left.cancel();
    const pending = (await api(`/runs/${runId}`)).body.run.approvals[0];
    expect((await post(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash })).status).toBe(200);
    const back = sseReader((await open({ "last-event-id": String(last) })).body as unknown as ReadableStream<Uint8Array>);
    streams.push(back);
    for (let k = 2; k <= 3; k++) {
      await Promise.all(
        streams.map((s) => s.until((m) => m.some((x) => x.event === "end") || m.filter((x) => x.event === "journal" && typeOf(x) === "approval.requested").length >= (s === back ? k - 1 : k))),
      );
      const next = (await api(`/runs/${runId}`)).body.run.approvals[0];
      if (next === undefined) break;
      expect((await post(`/runs/${runId}/approvals/${next.approvalId}`, { decision: "approve", requestHash: next.requestHash })).status).toBe(200);
    }
    const ends = await Promise.all(streams.map((s) => s.until((m) => m.some((x) => x.event === "end"))));
    const events = ((await api(`/runs/${runId}/events`)).body.events as { seq: number }[]).map((e) => e.seq);
    for (const m of ends.slice(0, -1)) expect(m.filter((x) => x.event === "journal").map((x) => x.id)).toEqual(events);
    expect([...left.messages, ...back.messages].filter((x) => x.event === "journal").map((x) => x.id)).toEqual(events);
    await until(`run ${runId}'s object to let its streams go`, async () => (await api(`/test/run/${runId}/streams`)).body.value.open === 0);
  });

  it("lists runs by page with their titles from the index, and refuses a malformed cursor", async () => {
    // Issue 15, finding 5: the console's list pages through the index.
    const made: string[] = [];
    for (const task of ["ask read_only\nsecond line", "ask read_only again", "ask read_only third"]) made.push((await post("/runs", { task })).body.runId as string);
    // Paged once the index holds each where it stays (a run updated between two pages moves to the first).
    for (const runId of made) {
      const run = await until(`run ${runId} to wait`, async () => ((r) => (r.status === "waiting" ? r : undefined))((await api(`/runs/${runId}`)).body.run));
      await until(
        `the index to list run ${runId} at seq ${run.seq}`,
        async () => ((await api("/runs?status=waiting")).body.runs as { runId: string; seq: number }[]).find((r) => r.runId === runId)?.seq === run.seq,
      );
    }
    const seen: { runId: string; title?: string }[] = [];
    let path = "/runs?status=waiting,running&limit=2";
    for (let k = 0; k < 100; k++) {
      const page = (await api(path)).body as { runs: { runId: string; title?: string }[]; next?: string };
      seen.push(...page.runs);
      if (page.next === undefined) break;
      path = `/runs?status=waiting,running&limit=2&before=${encodeURIComponent(page.next)}`;
    }
    expect(new Set(seen.map((r) => r.runId)).size).toBe(seen.length);
    expect(Object.fromEntries(seen.filter((r) => made.includes(r.runId)).map((r) => [r.runId, r.title]))).toEqual({
      [made[0]!]: "ask read_only",
      [made[1]!]: "ask read_only again",
      [made[2]!]: "ask read_only third",
    });
    for (const q of ["before=x", "before=1:", "before=1:a%20b", "limit=0"]) {
      const r = await api(`/runs?${q}`);
      expect([q, r.status, r.body.error.code]).toEqual([q, 400, "INVALID_QUERY"]);
    }
  });

  it("re-verifies a run's chain, and serves an artifact only through a run whose journal names it", async () => {
    // A run written through the store (over RPC): one call whose output was cut, kept whole as an artifact.
    const store = remoteStore();
    const runId = "artifacts_via_store" as never;
    const first = seal({ v: 2, at: 1, type: "run.created", runId, task: "artifacts", tools: [], limits: { maxSteps: 5, maxConsecutiveFailures: 3, runTimeoutMs: 0 } }, 1, "") as RunCreated;
    await store.createRun(first);
    const kept = await store.putArtifact(new TextEncoder().encode("the whole output"));
    const elsewhere = await store.putArtifact(new TextEncoder().encode("another run's output"));
    const lease = (await store.acquireLease(runId, "test", 60_000))!;
    const finished = seal(
      {
        v: 2,
        at: 2,
        type: "call.finished",
        step: 1,
        callId: "s1c1",
        attempt: 1,
        observation: { type: "result", content: "the", truncated: { strategy: "head", totalBytes: 16, shownBytes: 3, artifact: kept.sha256 } },
      } as never,
      2,
      first.hash,
    );
    await store.append(runId, [finished], { expectedSeq: 1, lease }, "running");
    const ok = await mf.dispatchFetch(`http://localhost/runs/${runId}/artifacts/${kept.sha256}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await ok.text()).toBe("the whole output");
    // The other artifact is in the same shared store, but this run's journal does not name it.
    expect((await api(`/runs/${runId}/artifacts/${elsewhere.sha256}`)).body.error.code).toBe("ARTIFACT_NOT_FOUND");
    expect((await api(`/runs/${runId}/verify`)).body).toEqual({ ok: true, events: 2, head: finished.hash });
  });

  it("refuses malformed, oversized and repeated-key bodies", async () => {
    const raw = (body: string) => mf.dispatchFetch("http://localhost/runs", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body });
    expect(await (await raw('{"task": 1,}')).json()).toEqual({ error: { code: "JSON_SYNTAX", message: "the body is not valid JSON: trailing comma at line 1, column 12" } });
    expect(await (await raw('{"task": 1, "task": 2}')).json()).toEqual({ error: { code: "JSON_DUPLICATE_KEY", message: 'the body is not valid JSON: duplicate key "task" at line 1, column 13' } });
    const big = await raw(JSON.stringify({ task: "x".repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });
});

/** Hosts a run that crashes (its object reset) at `point`, and waits for its alarm to bring it home, answering as the operator. */
async function crashRun(runId: string, point: string | null): Promise<{ crashed: boolean; record: RunRecord }> {
  if (point !== null) await post(`/test/run/${runId}/plan`, { point });
  const hosted = await post(`/test/run/${runId}/host`, { task: { goal: runId } });
  expect(hosted.body, JSON.stringify(hosted)).toMatchObject({ ok: true });
  const run = await until(`run ${runId} to end`, async () => {
    const r = (await api(`/runs/${runId}`)).body.run;
    if (r.status === "completed" || r.status === "failed") return r;
    for (const a of r.approvals ?? []) {
      if (a.request.kind === "interrupted_side_effect") await post(`/runs/${runId}/reconcile`, { approvalId: a.approvalId, requestHash: a.requestHash, resolution: "run_again", by: "test-operator" });
    }
    return undefined;
  });
  const events = (await api(`/runs/${runId}/events`)).body.events as JournalEvent[];
  // Whether it crashed is the harness's record: a crash before anything was
  // confirmed leaves no trace in the journal, which is the point.
  const { world, log, crashed } = (await api(`/test/run/${runId}/world`)).body as { world: RunRecord["world"]; log: Execution[]; crashed: boolean };
  return { crashed, record: { status: run.status, output: run.output, events, log, world } };
}

async function matrix(prefix: string): Promise<CrashResult[]> {
  const rows: CrashResult[] = [];
  for (const sideEffect of SIDE_EFFECTS) {
    const base = await crashRun(`${prefix}plain_${sideEffect}`, null);
    const baseline = baselineOf(base.record);
    for (const point of CRASH_POINTS) {
      const { crashed, record } = await crashRun(`${prefix}crash_${sideEffect}_${point}`, point);
      rows.push(judge(listScenario(sideEffect), point, crashed, baseline, record));
    }
  }
  console.log(formatMatrix(rows));
  if (prefix === "unsafe_") return rows;
  expect(matrixProblems(rows)).toEqual([]);
  // The index heals from each object's alarm, resets or not.
  const want = new Map<string, number>();
  for (const sideEffect of SIDE_EFFECTS) {
    for (const point of CRASH_POINTS) {
      const runId = `${prefix}crash_${sideEffect}_${point}`;
      want.set(runId, ((await api(`/runs/${runId}/events`)).body.events as JournalEvent[]).length);
    }
  }
  let listed: Map<string, { status: string; seq: number }> = new Map();
  await until(
    () => `the index to list every run completed at its last event (${JSON.stringify([...want].filter(([id, seq]) => listed.get(id)?.seq !== seq || listed.get(id)?.status !== "completed"))})`,
    async () => {
      listed = new Map(((await api("/runs?limit=500")).body.runs as { runId: string; status: string; seq: number }[]).map((r) => [r.runId, r]));
      return [...want].every(([id, seq]) => listed.get(id)?.status === "completed" && listed.get(id)?.seq === seq);
    },
  );
  return rows;
}

describe("the crash matrix, where a crash is the object's reset", () => {
  it("durability sync, the world in memory: 4 side-effect classes x 5 points; the alarm resumes every run; no lost step, no unreconciled re-execution", () => matrix(""), scaled(120_000));
  it("durability output-gate, the world another object over RPC: the same", () => matrix("gate_"), scaled(120_000));
  it(
    "sees the harm when the output gate is trusted with an effect it does not hold back",
    async () => {
      const rows = await matrix("unsafe_");
      const effectful = SIDE_EFFECTS.filter((s) => s !== "read_only");
      expect(matrixProblems(rows)).toEqual(effectful.flatMap((s) => ["during_effect", "after_effect", "after_finished"].map((p) => `${s} at ${p}: 1 unreconciled re-execution(s)`)));
    },
    scaled(120_000),
  );
});
