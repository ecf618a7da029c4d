/**
 * Issue 15, finding 7: the live event stream is pushed, not polled. The
 * driver says when it appended (Driver.watch); the stream reads the journal
 * only then. The backend's reads are counted: while the run is idle, pings
 * go by and nothing is read; a slow reader costs no read at all until it
 * reads, then one; a reader that goes away stops listening. With the
 * keep-alive set to an hour, events still arrive as they are appended, with
 * no ping between, to one subscriber or forty.
 */
import { describe, expect, it } from "vitest";
import { calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Driver, type RunId, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { sseReader, type Message } from "../helpers/sse.js";
import { until } from "../helpers/time.js";

const TOKEN = "push-test-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * A run of `steps` steps, each one read-only call that waits for the test to
 * let it go; the driver's `events` (what the stream reads) and `watch`
 * (who listens) are counted.
 */
function setup(steps: number, keepAliveMs: number) {
  const gates: (() => void)[] = [];
  const step = defineTool({
    name: "step",
    description: "Wait for the test.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 60_000,
    call: () => new Promise<string>((r) => gates.push(() => r("ok"))),
  }) as Tool<never, unknown>;
  const driver = createDriver({
    store: memoryStore(),
    ids: sequentialIds(),
    agent: scriptedAgent((view) => (view.step <= steps ? calls({ name: "step", args: "{}" }) : final("done"))),
    tools: [step],
    limits: { maxSteps: 0 },
  });
  const counts = { reads: 0, listening: 0 };
  const counted: Driver = {
    ...driver,
    events: (runId, from) => {
      counts.reads++;
      return driver.events(runId, from);
    },
    watch: (runId, listener) => {
      counts.listening++;
      const stop = driver.watch(runId, listener);
      return () => {
        counts.listening--;
        stop();
      };
    },
  };
  const app = createHttpApp({ backend: driverBackend(counted), tokens: () => [TOKEN], keepAliveMs });
  /** Lets the call waiting now go (waiting for one to wait, if none does yet). */
  const release = async (): Promise<void> => {
    await until("a call waiting for the test", () => gates.length > 0);
    gates.shift()!();
  };
  const stream = async (runId: string, headers: Record<string, string> = {}) => {
    const res = await app.request(`/runs/${runId}/events`, { headers: { ...auth, accept: "text/event-stream", ...headers } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    return sseReader(res.body!);
  };
  const create = async (): Promise<RunId> =>
    ((await (await app.request("/runs", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ task: "push" }) })).json()) as { runId: RunId }).runId;
  return { app, driver, counts, release, stream, create, gates };
}

const journal = (m: readonly Message[]) => m.filter((x) => x.event === "journal");
const seqs = (m: readonly Message[]) => journal(m).map((x) => x.id!);

describe("the live event stream is pushed", () => {
  it("delivers every event in order, each once, reading the journal only when the driver appended, never while the run is idle", async () => {
    const steps = 4;
    const { driver, counts, release, stream, create } = setup(steps, 25);
    const appends: number[] = [];
    const runId = await create();
    driver.watch(runId, (what) => {
      if (what === "append") appends.push(1);
    });
    const s = await stream(runId);
    for (let k = 0; k < steps; k++) {
      // The run waits on the test's call: a few keep-alive pings go by, and the stream reads nothing meanwhile.
      await s.until((m) => journal(m).some((x) => JSON.parse(x.data).type === "call.started" && JSON.parse(x.data).step === k + 1));
      const before = counts.reads;
      const pings = s.messages.filter((x) => x.event === "ping").length;
      await s.until((m) => m.filter((x) => x.event === "ping").length >= pings + 3);
      expect(counts.reads).toBe(before);
      await release();
    }
    const all = await s.until((m) => m.some((x) => x.event === "end"));
    const events = await driver.events(runId);
    expect(seqs(all)).toEqual(events.map((e) => e.seq));
    expect(journal(all).map((x) => JSON.parse(x.data).hash)).toEqual(events.map((e) => e.hash));
    expect(JSON.parse(all.find((x) => x.event === "end")!.data)).toEqual({ status: "completed" });
    expect(s.messages.at(-1)!.event).toBe("end");
    await s.until(() => false);
    expect(s.done).toBe(true);
    // One read to start, then at most one per append the driver made (appends heard while a read is under way share the next).
    expect(counts.reads).toBeLessThanOrEqual(appends.length + 1);
    expect(counts.listening).toBe(0);
  });

  it("delivers an append at once, not after an interval: with the keep-alive at an hour, far beyond the test's deadline, every event arrives and no ping is sent", async () => {
    // Each event is awaited as it comes (no fixed sleep): were the stream still
    // to wait for a timer, the hour's keep-alive would outlast vitest's deadline.
    const steps = 3;
    const { driver, release, stream, create } = setup(steps, 3_600_000);
    const runId = await create();
    const s = await stream(runId);
    for (let k = 1; k <= steps; k++) {
      await s.until((m) => journal(m).some((x) => JSON.parse(x.data).type === "call.started" && JSON.parse(x.data).step === k));
      const appended = new Promise<void>((resolve) => {
        const stop = driver.watch(runId, (what) => {
          if (what === "append") (stop(), resolve());
        });
      });
      await release();
      await appended;
      // The call's result was appended: the stream shows it next, with nothing between.
      const shown = seqs(s.messages).length;
      const m = await s.until((x) => journal(x).length > shown);
      expect(JSON.parse(journal(m)[shown]!.data).type).toBe("call.finished");
    }
    const all = await s.until((m) => m.some((x) => x.event === "end"));
    expect(all.filter((x) => x.event === "ping")).toEqual([]);
    expect(seqs(all)).toEqual((await driver.events(runId)).map((e) => e.seq));
  });

  it("serves many subscribers at once, each every event once and in order, and lets every one that leaves go, midway or at the end", async () => {
    const steps = 3;
    const subscribers = 40;
    const { driver, counts, release, stream, create } = setup(steps, 3_600_000);
    const runId = await create();
    const streams = await Promise.all(Array.from({ length: subscribers }, () => stream(runId)));
    expect(counts.listening).toBe(subscribers);
    await Promise.all(streams.map((s) => s.until((m) => journal(m).some((x) => JSON.parse(x.data).type === "call.started"))));
    // A quarter leave after the first step; the rest stay to the end.
    const leaving = streams.filter((_, k) => k % 4 === 0);
    for (const s of leaving) await s.cancel();
    expect(counts.listening).toBe(subscribers - leaving.length);
    for (let k = 0; k < steps; k++) await release();
    const staying = streams.filter((_, k) => k % 4 !== 0);
    const ends = await Promise.all(staying.map((s) => s.until((m) => m.some((x) => x.event === "end"))));
    const events = (await driver.events(runId)).map((e) => e.seq);
    for (const m of ends) {
      expect(seqs(m)).toEqual(events);
      expect(m.filter((x) => x.event === "ping")).toEqual([]);
    }
    for (const s of leaving) expect(s.messages.every((x) => x.event === "journal")).toBe(true);
    expect(counts.listening).toBe(0);
  });

  it("resumes after Last-Event-ID while the run is live, without repeating an event", async () => {
    const { release, stream, create, driver } = setup(2, 15_000);
    const runId = await create();
    const first = await stream(runId);
    await first.until((m) => journal(m).some((x) => JSON.parse(x.data).type === "call.started"));
    const last = seqs(first.messages).at(-1)!;
    await first.cancel();
    await release();
    const again = await stream(runId, { "last-event-id": String(last) });
    await release();
    const rest = await again.until((m) => m.some((x) => x.event === "end"));
    const events = await driver.events(runId);
    expect([...seqs(first.messages), ...seqs(rest)]).toEqual(events.map((e) => e.seq));
  });

  it("costs a slow reader no read and no buffer while events pile up; it gets them all, in order, once it reads", async () => {
    const steps = 30;
    const { release, stream, create, counts, driver } = setup(steps, 15_000);
    const runId = await create();
    const s = await stream(runId);
    // Nothing read from the stream: it pulls nothing, so nothing is read for it.
    for (let k = 0; k < steps; k++) await release();
    await until("the run to complete", async () => (await driver.state(runId)).status === "completed");
    expect(counts.reads).toBe(0);
    expect(counts.listening).toBe(1);
    const all = await s.until((m) => m.some((x) => x.event === "end"));
    const events = await driver.events(runId);
    expect(events.length).toBeGreaterThan(4 * steps);
    expect(seqs(all)).toEqual(events.map((e) => e.seq));
    // Everything appended while it did not read came in one read.
    expect(counts.reads).toBe(1);
    expect(counts.listening).toBe(0);
  });

  it("stops listening when the reader goes away", async () => {
    const { release, stream, create, counts } = setup(1, 15_000);
    const runId = await create();
    const s = await stream(runId);
    await s.until((m) => journal(m).length > 0);
    expect(counts.listening).toBe(1);
    await s.cancel();
    expect(counts.listening).toBe(0);
    // One that goes away while it waits for the next event (its stream waiting on a change, its keep-alive timer set).
    const t = await stream(runId);
    const shown = (await t.until((m) => journal(m).some((x) => JSON.parse(x.data).type === "call.started"))).length;
    const waiting = t.until((m) => m.length > shown);
    await t.cancel();
    await waiting;
    expect(t.done).toBe(true);
    expect(counts.listening).toBe(0);
    await release();
  });

  it("answers 404 for an unknown run before streaming, and an ended run's stream ends at once", async () => {
    const { app, stream, create, driver } = setup(0, 15_000);
    expect((await app.request("/runs/run_404/events", { headers: { ...auth, accept: "text/event-stream" } })).status).toBe(404);
    const runId = await create();
    await until("the run to complete", async () => (await driver.state(runId)).status === "completed");
    const events = await driver.events(runId);
    const s = await stream(runId, { "last-event-id": String(events.length) });
    expect(await s.until(() => false)).toEqual([{ event: "end", data: '{"status":"completed"}' }]);
  });
});

describe("appends by another driver sharing the store", () => {
  it("reach the stream at once when the store tells them (memoryStore's watch): the driver serving the stream never appends", async () => {
    const store = memoryStore();
    const gates: (() => void)[] = [];
    const step = defineTool({
      name: "step",
      description: "Wait for the test.",
      inputSchema: strictObject({}),
      sideEffect: "read_only",
      timeoutMs: 60_000,
      call: () => new Promise<string>((r) => gates.push(() => r("ok"))),
    }) as Tool<never, unknown>;
    const agent = scriptedAgent((view) => (view.step <= 2 ? calls({ name: "step", args: "{}" }) : final("done")));
    const serving = createDriver({ store, agent, tools: [step] });
    const working = createDriver({ store, agent, tools: [step] });
    const app = createHttpApp({ backend: driverBackend(serving), tokens: () => [TOKEN], keepAliveMs: 3_600_000 });
    const runId = await working.create("elsewhere");
    const res = await app.request(`/runs/${runId}/events`, { headers: { ...auth, accept: "text/event-stream" } });
    const s = sseReader(res.body!);
    await s.until((m) => journal(m).length === 1);
    const done = working.resume(runId);
    for (let k = 1; k <= 2; k++) {
      await s.until((m) => journal(m).filter((x) => JSON.parse(x.data).type === "call.started").length === k);
      await until("the call to wait", () => gates.length > 0);
      gates.shift()!();
    }
    const all = await s.until((m) => m.some((x) => x.event === "end"));
    expect((await done).status).toBe("completed");
    expect(seqs(all)).toEqual((await store.read(runId)).map((e) => e.seq));
    expect(all.filter((x) => x.event === "ping")).toEqual([]);
  });
});

describe("createHttpApp's keepAliveMs", () => {
  it("must be a positive number", () => {
    const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([final("x")]), tools: [] });
    expect(() => createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN], keepAliveMs: 0 })).toThrow("keepAliveMs must be a number above 0, not 0");
  });
});
