/**
 * Issue 26, finding 5 on the Worker: a bad `?from=` on a run's events or
 * export is a 4xx with a code. Before: `export?from=99999999` was 500
 * INTERNAL (the run object's export refused inside the stream it returned,
 * and the refusal lost its type on the way out), and `events?from=1.5` was
 * 500 (it reached the object's SQL as it was).
 */
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

const TOKEN = "from-worker-token-0123456789";
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("examples/worker/index.ts", { ...RUN_OBJECTS, bindings: { ISOAGENT_TOKEN: TOKEN } });
});
afterAll(async () => {
  await mf?.dispose();
});

const request = async (path: string, headers: Record<string, string> = {}) => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
  const text = await res.text();
  return { status: res.status, text, error: text.startsWith('{"error"') ? (JSON.parse(text) as { error: { code: string } }).error : undefined };
};

describe("?from= on the Worker", () => {
  it("answers 4xx with a code for a from that is malformed or past the journal's end, and an empty tail for the last seq + 1", async () => {
    const created = await mf.dispatchFetch("http://localhost/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ task: "Summarise notes/todo.md into notes/summary.md" }),
    });
    const { runId } = (await created.json()) as { runId: string };
    // The demo waits for its write's approval: its journal stands still.
    await until(`run ${runId} to wait`, async () => JSON.parse((await request(`/runs/${runId}`)).text).run.status === "waiting");
    const seq = (JSON.parse((await request(`/runs/${runId}`)).text) as { run: { seq: number } }).run.seq;
    for (const from of ["1.5", "-1", "abc", "0", "1e3", String(seq + 2), "99999999"]) {
      for (const [path, headers] of [
        [`/runs/${runId}/events?from=${from}`, {}],
        [`/runs/${runId}/events?from=${from}`, { accept: "text/event-stream" }],
        [`/runs/${runId}/export?from=${from}`, {}],
      ] as const) {
        const r = await request(path, headers);
        expect([path, "accept" in headers, r.status]).toEqual([path, "accept" in headers, 400]);
        expect(["INVALID_QUERY", "FROM_PAST_END"]).toContain(r.error?.code);
      }
    }
    const tail = await request(`/runs/${runId}/events?from=${seq + 1}`);
    expect([tail.status, tail.text]).toEqual([200, '{"events":[]}']);
    const exported = await request(`/runs/${runId}/export?from=${seq + 1}`);
    expect(exported.status).toBe(200);
    expect(JSON.parse(exported.text.split("\n")[0]!).bundle).toMatchObject({ runId, from: seq + 1, to: seq });
  });
});
