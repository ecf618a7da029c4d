/**
 * Issue 12's finding 9 on the Worker (Durable Objects on persisted storage,
 * as npm start runs them): unknown run ids must not create storage, and the
 * run index's status filter must not grow past SQLite's bound parameters.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

const TOKEN = "security-worker-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "isoagent-do-"));
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("examples/worker/index.ts", { ...RUN_OBJECTS, durableObjectsPersist: dir, bindings: { ISOAGENT_TOKEN: TOKEN } });
});
afterAll(async () => {
  await mf?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Every file under the persisted storage. */
function files(at = dir): string[] {
  return readdirSync(at).flatMap((name) => {
    const p = join(at, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const request = (path: string, init: RequestInit = {}) =>
  mf.dispatchFetch(`http://localhost${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) } } as never);

describe("the Worker on persisted Durable Objects", () => {
  it("answers 404 for 20 unknown run ids on every run route without creating any storage", async () => {
    // Before: each lookup instantiated the run's object, and 20 unknown ids
    // left 60 files of storage behind.
    const created = (await (await request("/runs", { method: "POST", body: JSON.stringify({ task: "t" }) })).json()) as { runId: string };
    expect((await request(`/runs/${created.runId}`)).status).toBe(200);
    const before = files().length;
    for (let k = 0; k < 20; k++) {
      const id = `run_unknown_${k}`;
      for (const [method, path, body] of [
        ["GET", `/runs/${id}`],
        ["GET", `/runs/${id}/events`],
        ["GET", `/runs/${id}/approvals`],
        ["POST", `/runs/${id}/approvals/apr.1.s1c1.1`, { decision: "approve", requestHash: "0".repeat(64) }],
        ["POST", `/runs/${id}/cancel`, {}],
        ["POST", `/runs/${id}/reconcile`, { approvalId: "apr.1.s1c1.1", requestHash: "0".repeat(64), resolution: "mark_unknown" }],
      ] as [string, string, unknown?][]) {
        const res = await request(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RUN_NOT_FOUND");
      }
    }
    expect(files().length).toBe(before);
  });

  it("takes a status filter of 150 values (de-duplicated) and refuses an unknown status, never 500", async () => {
    // Before: 100 or more values built IN (?, ...) past SQLite's limit of bound parameters: 500.
    const many = await request(`/runs?status=${Array.from({ length: 150 }, (_, k) => (k % 2 === 0 ? "running" : "waiting")).join(",")}`);
    expect(many.status).toBe(200);
    const unknown = await request(`/runs?status=${Array.from({ length: 150 }, (_, k) => `x${k}`).join(",")}`);
    expect(unknown.status).toBe(400);
  });
});
