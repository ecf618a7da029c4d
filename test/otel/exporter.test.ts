/**
 * The exporter in Node (issue 20): `flush` (an interval's and a shutdown's
 * call) exports what is new of every run and never overlaps itself;
 * `exportAll` reads no run it has sent up to its head, and stops at the
 * first run a collector that is down could not take; a run never waits for
 * the exporter nor fails by it; and a long-lived exporter keeps nothing of
 * the runs it exported.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, calls, createDriver, type Clock, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Store, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { journalSpans, memoryCursor, otlpEnv, otlpExporter, type ListingStore } from "../../src/otel/index.js";
import { startCollector, type Collector } from "../helpers/collector.js";
import { until } from "../helpers/time.js";

let collector: Collector;
beforeAll(async () => {
  collector = await startCollector();
});
afterAll(() => collector.close());
beforeEach(() => {
  collector.mode = "accept";
  collector.seen.clear();
});

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

let made = 0;
let last = 0;
/**
 * The runs' clock (their events' times, and so their place in a listing):
 * the wall clock, but never the same millisecond twice, so that runs made
 * one after another are listed newest first by their time alone (two runs
 * ending in one millisecond are listed by id, and run9 sorts after run10).
 */
const ticking: Clock = { now: () => (last = Math.max(Date.now(), last + 1)) };
/** A store with `runs` completed runs of `steps` calls each (run ids unique in the file). */
async function storeWithRuns(runs: number, steps = 2, store: Store = memoryStore({ clock: ticking })): Promise<{ store: Store; runIds: RunId[] }> {
  const runIds: RunId[] = [];
  for (let k = 0; k < runs; k++) {
    const driver = createDriver({
      store,
      agent: scriptedAgent([...Array.from({ length: steps }, () => calls(call("noop"))), final("done")]),
      tools: [noop],
      clock: ticking,
      ids: sequentialIds(`run${++made}_`),
    });
    runIds.push((await driver.start("t")).runId);
  }
  return { store, runIds };
}

/** The store, counting its reads by run. */
function counting(store: Store): ListingStore & { reads: RunId[] } {
  const reads: RunId[] = [];
  return { reads, read: (runId, from) => (reads.push(runId), store.read(runId, from)), listRuns: (f) => store.listRuns(f) };
}

const idsOf = async (store: Store, runIds: RunId[]): Promise<string[]> => (await Promise.all(runIds.map(async (r) => journalSpans(await store.read(r)).map((s) => s.spanId)))).flat().sort();

describe("flush", () => {
  it("exports every run's spans, each once, and reads a run again only when it has new events", async () => {
    const { store, runIds } = await storeWithRuns(3);
    const watched = counting(store);
    const cursor = memoryCursor();
    const exporter = otlpExporter({ endpoint: collector.url, cursor });
    const results = await exporter.flush(watched);
    expect(results.map((r) => [r.runId, r.error])).toEqual(runIds.toReversed().map((r) => [r, undefined]));
    expect(collector.ids()).toEqual(await idsOf(store, runIds));
    expect([...collector.seen.values()].every((n) => n === 1)).toBe(true);
    // Each cursor is at its run's head: the next flush reads nothing.
    for (const r of runIds) expect(await cursor.get(r)).toBe((await store.read(r)).at(-1)!.seq);
    watched.reads.length = 0;
    expect(await exporter.flush(watched)).toEqual([]);
    expect(watched.reads).toEqual([]);
    // A new run: only it is read and sent.
    const { runIds: more } = await storeWithRuns(1, 1, store);
    const next = await exporter.flush(watched);
    expect(next.map((r) => r.runId)).toEqual(more);
    expect(watched.reads).toEqual(more);
    expect(collector.ids()).toEqual(await idsOf(store, [...runIds, ...more]));
  });

  it("never overlaps itself: a call while one is under way waits for it and goes round once more, shared by the calls that came meanwhile", async () => {
    const { store } = await storeWithRuns(1);
    const watched = counting(store);
    const exporter = otlpExporter({ endpoint: collector.url, cursor: memoryCursor() });
    collector.mode = "hold";
    const first = exporter.flush(watched);
    await until("the first round's request to reach the collector", () => collector.held() === 1);
    // A run ends while the first round waits on the collector.
    const { runIds: later } = await storeWithRuns(1, 1, store);
    const second = exporter.flush(watched);
    const third = exporter.flush(watched);
    expect(third).toBe(second);
    expect(watched.reads).toHaveLength(1);
    collector.mode = "accept";
    collector.release();
    await first;
    const after = await second;
    // The second round sent the run that ended while the first was under way.
    expect(after.map((r) => r.runId)).toEqual(later);
    expect(watched.reads).toHaveLength(2);
  });
});

describe("a collector that is down", () => {
  it("stops exportAll at the first run it could not take, moves no cursor, and the next flush sends everything", async () => {
    const { store, runIds } = await storeWithRuns(3);
    const cursor = memoryCursor();
    const exporter = otlpExporter({ endpoint: collector.url, cursor, maxRetries: 2, sleep: async () => {} });
    collector.mode = "fail";
    const refused = collector.answered.refused;
    const results = await exporter.flush(store);
    expect(results).toEqual([{ runId: runIds[2], exported: 0, cursor: 0, error: "the collector answered 503; the next export tries again from event 1", retry: true }]);
    // One run's three tries, not every run's.
    expect(collector.answered.refused - refused).toBe(3);
    for (const r of runIds) expect(await cursor.get(r)).toBe(0);
    collector.mode = "accept";
    expect((await exporter.flush(store)).map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(collector.ids()).toEqual(await idsOf(store, runIds));
  });

  it("never holds a run back nor fails it: a run completes while the collector holds every answer, and while it refuses", async () => {
    const store = memoryStore();
    const exporter = otlpExporter({ endpoint: collector.url, cursor: memoryCursor(), maxRetries: 0 });
    collector.mode = "hold";
    const { runIds } = await storeWithRuns(1, 1, store);
    const flushing = exporter.flush(store);
    await until("the export to wait on the collector", () => collector.held() === 1);
    // The exporter waits on the collector; a driver on the same store does not.
    const { runIds: second } = await storeWithRuns(1, 3, store);
    expect((await store.listRuns()).map((r) => r.status)).toEqual(["completed", "completed"]);
    collector.mode = "fail";
    const { runIds: third } = await storeWithRuns(1, 1, store);
    expect((await store.listRuns()).find((r) => r.runId === third[0])!.status).toBe("completed");
    collector.release();
    await flushing;
    collector.mode = "accept";
    await exporter.flush(store);
    expect(collector.ids()).toEqual(await idsOf(store, [...runIds, ...second, ...third]));
  });
});

describe("memory", () => {
  it("a long-lived exporter keeps nothing of a run once its export is done: the journals it read and the stores it was given are collected", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const exporter = otlpExporter({ endpoint: collector.url, cursor: memoryCursor() });
    const kept: WeakRef<object>[] = [];
    // In a function of its own, so that nothing of a run stays in the test's frame.
    const exportOne = async (): Promise<void> => {
      const { store } = await storeWithRuns(1, 3);
      const watched: ListingStore = {
        read: async (runId, from) => {
          const events: JournalEvent[] = await store.read(runId, from);
          kept.push(new WeakRef(events));
          return events;
        },
        listRuns: (f) => store.listRuns(f),
      };
      kept.push(new WeakRef(watched));
      await exporter.flush(watched);
    };
    for (let k = 0; k < 20; k++) await exportOne();
    expect(kept).toHaveLength(40);
    // WeakRefs are cleared after the job that made them, then by a collection.
    await new Promise((r) => setImmediate(r));
    gc();
    await new Promise((r) => setImmediate(r));
    gc();
    expect(kept.flatMap((w, k) => (w.deref() !== undefined ? [k] : []))).toEqual([]);
  });
});

describe("otlpEnv", () => {
  it("reads OpenTelemetry's own variables: the traces endpoint as it is, or the base with /v1/traces; headers percent-decoded; the service name", () => {
    expect(otlpEnv({})).toBeUndefined();
    expect(otlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://api.honeycomb.io/", OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=abc123, x-extra = a%20b ,broken" })).toEqual({
      endpoint: "https://api.honeycomb.io/v1/traces",
      headers: { "x-honeycomb-team": "abc123", "x-extra": "a b" },
      resource: {},
    });
    expect(
      otlpEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "authorization=Bearer%20k",
        OTEL_EXPORTER_OTLP_HEADERS: "x=1",
        OTEL_SERVICE_NAME: "notes",
      }),
    ).toEqual({ endpoint: "http://collector:4318/custom", headers: { authorization: "Bearer k" }, resource: { serviceName: "notes" } });
    // A Worker's env holds bindings too: only strings are read. OTEL_SDK_DISABLED turns it off.
    expect(otlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: { binding: true } })).toBeUndefined();
    expect(otlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a", OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
  });
});
