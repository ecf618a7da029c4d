/**
 * Span export from run objects, in workerd (issue 20): a run object exports
 * its run's spans to a collector (a node:http server here, deduping by span
 * id, told to refuse or to hold its answers) after its appends and from its
 * alarm; its cursor, in the object's SQLite, moves only after the collector
 * accepted. The object is reset (`state.abort()`) while the collector is
 * down, and while the collector holds a batch it has taken: after the reset
 * the object's alarm exports the rest, and the collector has every span of
 * the run, with the ids journalSpans derives, and no other. The cursor
 * suite runs on a Durable Object's SQLite too.
 */
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { JournalEvent, RunId } from "../../src/index.js";
import { journalSpans, type ExportCursor } from "../../src/otel/index.js";
import { runCursorConformance } from "../../src/testkit/index.js";
import { startCollector, type Collector } from "../helpers/collector.js";
import { scaled, until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

const TOKEN = "workerd-otel-test-token-0123456789";
let mf: Miniflare;
let collector: Collector;

beforeAll(async () => {
  collector = await startCollector();
  mf = await startWorker("test/workerd/workers/otel-entry.ts", {
    durableObjects: { ...RUN_OBJECTS.durableObjects, CURSORS: { className: "CursorObject", useSQLite: true } },
    // No sweep within the test: what wakes a reset object is its own alarm.
    bindings: { ISOAGENT_TOKEN: TOKEN, ISOAGENT_INDEX_SWEEP_MS: "3600000", OTEL_ENDPOINT: collector.url },
  });
});
afterAll(async () => {
  await mf?.dispose();
  await collector?.close();
});
beforeEach(() => {
  collector.mode = "accept";
});

const api = async (path: string, init: RequestInit = {}): Promise<any> => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } } as never);
  return res.json();
};
const post = (path: string, body: unknown = {}) => api(path, { method: "POST", body: JSON.stringify(body) });
const host = async (runId: string, task: string): Promise<void> => expect(await post(`/test/otel/${runId}/host`, { task })).toEqual({ ok: true, value: runId });

/** The run's spans as journalSpans derives them from its journal (read through the runs API). */
async function derived(runId: string): Promise<{ ids: string[]; traceId: string; head: number }> {
  const events = (await api(`/runs/${runId}/events`)).events as JournalEvent[];
  return {
    ids: journalSpans(events)
      .map((s) => s.spanId)
      .sort(),
    traceId: events[0]!.hash.slice(0, 32),
    head: events.at(-1)!.seq,
  };
}

const ended = async (runId: string): Promise<boolean> => (await api(`/runs/${runId}`)).run?.status === "completed";
const only = (runId: string, ids: string[]): string[] => ids.filter((id) => ownerOf.get(id) === runId);
/** Which run each span id belongs to (the collector sees every run's spans). */
const ownerOf = new Map<string, string>();

describe("a run object exports its run's spans", () => {
  it("after its appends, while it lives: an approval's wait sends the spans ended so far, with the API key, under the run's trace id", async () => {
    const runId = "otel_live";
    await host(runId, "ask");
    const waiting = await until("the run to wait on its first approval", async () => {
      const run = (await api(`/runs/${runId}`)).run;
      return run?.status === "waiting" ? run : undefined;
    });
    const so = await derived(runId);
    for (const id of so.ids) ownerOf.set(id, runId);
    expect(so.ids.length).toBeGreaterThan(0);
    await until("the spans ended so far to reach the collector", () => so.ids.every((id) => collector.seen.has(id)));
    expect(collector.lastHeaders?.["authorization"]).toBe("Bearer otel-test-key");
    expect(collector.traceIds).toContain(waiting.traceId);
    expect(waiting.traceId).toBe(so.traceId);
  });

  it("from its alarm after a reset while the collector was down: the collector gets every span, each id as journalSpans gives it, and no other", async () => {
    const runId = "otel_reset_down";
    await host(runId, "ask");
    const first = await until("the run to wait on its first approval", async () => {
      const run = (await api(`/runs/${runId}`)).run;
      return run?.status === "waiting" ? run.approvals[0] : undefined;
    });
    const early = await derived(runId);
    await until("the spans before the approval to reach the collector", () => early.ids.every((id) => collector.seen.has(id)));
    // The collector goes down; the run goes on and ends, its exports refused.
    collector.mode = "fail";
    const refused = collector.answered.refused;
    await post(`/runs/${runId}/approvals/${first.approvalId}`, { decision: "approve", requestHash: first.requestHash, by: "test-operator" });
    const second = await until("the run to wait on its second approval", async () => {
      const run = (await api(`/runs/${runId}`)).run;
      return run?.status === "waiting" && run.approvals[0]?.approvalId !== first.approvalId ? run.approvals[0] : undefined;
    });
    await post(`/runs/${runId}/approvals/${second.approvalId}`, { decision: "approve", requestHash: second.requestHash, by: "test-operator" });
    await until(`${runId} to complete`, () => ended(runId));
    const all = await derived(runId);
    for (const id of all.ids) ownerOf.set(id, runId);
    // Tried again with backoff, never in a hot loop: each wait at least the one before doubled (100, 200, 400 ms, then 400).
    const refusals = () => collector.refusals.filter((r) => r.traceIds.includes(all.traceId)).map((r) => r.at);
    await until("four exports of the run to be refused", () => refusals().length >= 4);
    const gaps = refusals()
      .slice(1)
      .map((at, k) => at - refusals()[k]!);
    // (workerd's clock moves only at I/O, so a wait may look a few ms short.)
    gaps.forEach((gap, k) => expect([k, gap]).toEqual([k, expect.toSatisfy((g: number) => g >= Math.min(100 * 2 ** k, 400) - 25)]));
    expect(collector.answered.refused).toBeGreaterThan(refused);
    expect(all.ids.filter((id) => !collector.seen.has(id)).length).toBeGreaterThan(0);
    // The object is reset; nothing calls it again. The collector comes back.
    await post(`/test/otel/${runId}/reset`);
    collector.mode = "accept";
    await until(
      () => `every span of ${runId} at the collector (missing: ${all.ids.filter((id) => !collector.seen.has(id)).length})`,
      () => all.ids.every((id) => collector.seen.has(id)),
      { timeoutMs: 30_000 },
    );
    expect(only(runId, collector.ids())).toEqual(all.ids);
    expect(collector.ids().filter((id) => !ownerOf.has(id))).toEqual([]);
    // The cursor reaches the run's head (once the collector's answer is in), in a table of its own beside the journal's.
    const { tables } = await until("the cursor to reach the run's head", async () => {
      const r = await api(`/test/otel/${runId}/cursor`);
      return r.cursor === all.head ? r : undefined;
    });
    expect(tables).toEqual(expect.arrayContaining(["isoagent_otel_cursor", "events", "meta"]));
  });

  it("again after a reset between the collector's acceptance and the cursor's commit: the same ids are sent again, and a collector deduping by id has each once", async () => {
    const runId = "otel_reset_held";
    // The collector takes the first request's spans and holds its answer; the object is reset meanwhile.
    collector.mode = "hold";
    await host(runId, "go");
    await until("a request to be held by the collector", () => collector.held() > 0);
    const taken = collector.ids().filter((id) => !ownerOf.has(id));
    for (const id of taken) ownerOf.set(id, runId);
    expect(taken.length).toBeGreaterThan(0);
    await post(`/test/otel/${runId}/reset`);
    // (Its answer is held until the end: the reset incarnation is never told its spans were taken.)
    collector.mode = "accept";
    // Nothing calls the object: its alarm sends what it had sent again, with the same ids.
    await until("the spans the collector had taken to come again", () => taken.every((id) => collector.seen.get(id)! >= 2), { timeoutMs: 30_000 });
    collector.release();
    await until(`${runId} to complete after the reset`, () => ended(runId), { timeoutMs: 30_000 });
    const all = await derived(runId);
    for (const id of all.ids) ownerOf.set(id, runId);
    await until(
      () => `every span of ${runId} at the collector (missing: ${all.ids.filter((id) => !collector.seen.has(id)).length})`,
      () => all.ids.every((id) => collector.seen.has(id)),
      { timeoutMs: 30_000 },
    );
    expect(only(runId, collector.ids())).toEqual(all.ids);
    expect(collector.ids().filter((id) => !ownerOf.has(id))).toEqual([]);
    await until("the cursor to reach the run's head", async () => (await api(`/test/otel/${runId}/cursor`)).cursor === all.head);
  });
});

describe("the export cursor in a Durable Object's SQLite (sqlCursor)", () => {
  let n = 0;
  const remote = (name: string): ExportCursor => {
    const call = async (method: string, args: unknown[]): Promise<any> =>
      ((await (await mf.dispatchFetch(`http://localhost/test/cursor/${name}/${method}`, { method: "POST", body: JSON.stringify(args) } as never)).json()) as { value: unknown }).value;
    return { get: (runId: RunId) => call("get", [runId]), set: async (runId: RunId, seq: number) => void (await call("set", [runId, seq])) };
  };
  runCursorConformance({
    name: "durable object (sqlCursor)",
    test: (name, fn) => it(name, fn, scaled(30_000)),
    create: () => {
      const name = `cursor-${++n}`;
      const cursor = remote(name);
      return {
        cursor,
        // Opened again: the object reset, its next call served by a new incarnation.
        reopen: async () => {
          await mf.dispatchFetch(`http://localhost/test/cursor/${name}/reset`, { method: "POST", body: "[]" } as never);
          return cursor;
        },
      };
    },
  });
});
