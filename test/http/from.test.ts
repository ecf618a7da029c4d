/**
 * Issue 26, finding 5 (Node): where a route reads a journal from `?from=`
 * (the events, as JSON or live, and the export), a `from` that is not a
 * whole number, or is below 1, or past the end of the journal (above the
 * last seq + 1) is a 4xx with a code; the last seq + 1 is an empty tail.
 * Before: `events?from=1.5`, `-1` and `abc` answered 200 with the whole
 * journal (and 500 on the Worker), `from=99999` an empty page as if the run
 * were that long.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { SHAPES, driverOn } from "../move/helpers.js";
import { manualClock } from "../../src/testkit/index.js";

const TOKEN = "from-query-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const SSE = { ...auth, accept: "text/event-stream" };

async function setup() {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const driver = driverOn(store, clock);
  const app = createHttpApp({ backend: driverBackend(driver, { move: (drive) => storeMoveBackend(store, { place: "edge", tools: SHAPES, onOwned: drive }) }), tokens: () => [TOKEN] });
  const { runId } = await driver.start("read a and b, write out.md");
  const { seq } = await driver.state(runId);
  return { app, runId, seq };
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** Malformed `from`s: not whole numbers, signs, exponents, spaces, too long, empty. */
const MALFORMED = ["1.5", "-1", "abc", "1e3", "+2", " 2", "2 ", "0x10", "", "１", "9".repeat(16), "Infinity", "NaN", "0"];

describe("?from= on the events and the export", () => {
  it("refuses a from that is not a whole number from 1 (400 INVALID_QUERY), on the events as JSON or live and on the export", async () => {
    const { app, runId } = await setup();
    for (const from of MALFORMED) {
      const q = `from=${encodeURIComponent(from)}`;
      for (const [path, headers] of [
        [`/runs/${runId}/events?${q}`, auth],
        [`/runs/${runId}/events?${q}`, SSE],
        [`/runs/${runId}/export?${q}`, auth],
      ] as const) {
        const res = await app.request(path, { headers });
        expect([path, headers === SSE, res.status]).toEqual([path, headers === SSE, 400]);
        expect(await errorOf(res)).toEqual({ code: "INVALID_QUERY", message: "from must be a whole number from 1 (a seq of the run's journal)" });
      }
    }
  });

  it("answers an empty tail for the last seq + 1, and refuses any from past it with a code naming the journal's end", async () => {
    const { app, runId, seq } = await setup();
    const tail = await app.request(`/runs/${runId}/events?from=${seq + 1}`, { headers: auth });
    expect([tail.status, await tail.json()]).toEqual([200, { events: [] }]);
    const last = await app.request(`/runs/${runId}/events?from=${seq}`, { headers: auth });
    expect(((await last.json()) as { events: { seq: number }[] }).events.map((e) => e.seq)).toEqual([seq]);
    const exported = await app.request(`/runs/${runId}/export?from=${seq + 1}`, { headers: auth });
    expect(exported.status).toBe(200);
    for (const from of [seq + 2, seq + 100, 99_999_999, 999_999_999_999_999]) {
      for (const headers of [auth, SSE]) {
        const res = await app.request(`/runs/${runId}/events?from=${from}`, { headers });
        expect([from, headers === SSE, res.status]).toEqual([from, headers === SSE, 400]);
        expect(await errorOf(res)).toEqual({ code: "FROM_PAST_END", message: `from ${from} is past the end of run ${runId}'s journal: its last event is ${seq}, so from may be at most ${seq + 1}` });
      }
      const res = await app.request(`/runs/${runId}/export?from=${from}`, { headers: auth });
      expect([from, res.status]).toEqual([from, 400]);
      expect(await errorOf(res)).toEqual({ code: "FROM_PAST_END", message: `from ${from} is past the end of run ${runId}'s journal: its last event is ${seq}, so from may be at most ${seq + 1}` });
    }
  });

  it("reads Last-Event-ID (a seq the stream sent) by the same rules: a whole number from 0, not past the end", async () => {
    const { app, runId, seq } = await setup();
    for (const id of ["1.5", "-1", "abc", " "]) {
      const res = await app.request(`/runs/${runId}/events`, { headers: { ...SSE, "last-event-id": id } });
      expect([id, res.status]).toEqual([id, 400]);
      expect(await errorOf(res)).toEqual({ code: "INVALID_QUERY", message: "Last-Event-ID must be a whole number (the seq of the last event the stream sent)" });
    }
    const past = await app.request(`/runs/${runId}/events`, { headers: { ...SSE, "last-event-id": String(seq + 1) } });
    expect([past.status, (await errorOf(past)).code]).toEqual([400, "FROM_PAST_END"]);
    // The last event seen: the stream goes on from the next (nothing yet), and is live.
    const ok = await app.request(`/runs/${runId}/events`, { headers: { ...auth, "last-event-id": String(seq) } });
    expect([ok.status, await ok.json()]).toEqual([200, { events: [] }]);
  });

  it("still answers 404 for an unknown run, whatever its from", async () => {
    const { app } = await setup();
    for (const path of ["/runs/run_nope/events?from=5", "/runs/run_nope/export?from=5", "/runs/run_nope/events"]) {
      const res = await app.request(path, { headers: auth });
      expect([path, res.status, (await errorOf(res)).code]).toEqual([path, 404, "RUN_NOT_FOUND"]);
    }
  });
});
