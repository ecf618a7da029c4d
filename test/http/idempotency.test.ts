/**
 * POST /runs with an Idempotency-Key: a retried create returns the run the
 * first try made; the key with another task is refused with a typed error;
 * keys are each token's own (console sessions share one key space), and
 * the run's id never depends on a token's value. On the
 * in-memory store behind the driver backend here; on Durable Objects in
 * test/workerd/do.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createDriver, final, isIsoagentError, memoryStore, scriptedAgent, type RunId } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, createIdempotent, driverBackend, idempotentRunId } from "../../src/http/index.js";

const OPERATOR = "operator-token-0123456789abcdef";
const OTHER = "another-operator-token-0123456789";
const RUN = "run-token-0123456789abcdef-agent";

function setup() {
  const store = memoryStore();
  const driver = createDriver({ store, ids: sequentialIds(), agent: scriptedAgent([final("done")]), tools: [] });
  const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [OPERATOR, OTHER], runTokens: () => [RUN], corsOrigins: ["https://ops.example"] });
  const create = (task: unknown, key: string | undefined, token = OPERATOR) =>
    app.request("/runs", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
      body: JSON.stringify({ task }),
    });
  const runs = async () => (await store.listRuns({ limit: 100 })).map((r) => r.runId);
  return { app, driver, create, runs };
}

describe("POST /runs with an Idempotency-Key", () => {
  it("a retried create returns the same run, marked replayed, and makes no second run; the task is compared as JSON, not as text", async () => {
    const { create, runs } = setup();
    const first = await create({ goal: "g", n: 1 }, "key-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const { runId } = (await first.json()) as { runId: string };
    expect(runId).toBe(idempotentRunId("bearer\noperator\n0", "key-1"));
    expect(runId).toMatch(/^run_[0-9a-f]{40}$/);
    for (const task of [
      { goal: "g", n: 1 },
      { n: 1, goal: "g" },
    ]) {
      const again = await create(task, "key-1");
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await again.json()).toEqual({ runId });
    }
    expect(await runs()).toEqual([runId]);
    // Without a key, every create is a new run.
    await create({ goal: "g", n: 1 }, undefined);
    await create({ goal: "g", n: 1 }, undefined);
    expect((await runs()).length).toBe(3);
  });

  it("refuses the same key with another task: 409 IDEMPOTENCY_KEY_REUSED, and no run made", async () => {
    const { create, runs } = setup();
    await create("write a.md", "k");
    const reused = await create("write b.md", "k");
    expect(reused.status).toBe(409);
    expect(await reused.json()).toEqual({ error: { code: "IDEMPOTENCY_KEY_REUSED", message: "this idempotency key already created a run with another task; use a new key for a new run" } });
    expect((await runs()).length).toBe(1);
  });

  it("keeps each caller's keys apart: another token, a run token, and a console session each get their own run for one key", async () => {
    const { app, create, runs } = setup();
    const ids = new Set<string>();
    for (const token of [OPERATOR, OTHER, RUN]) {
      const res = await create("t", "shared-key", token);
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      ids.add(((await res.json()) as { runId: string }).runId);
    }
    const login = await app.request("/login", { method: "POST", headers: { origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ token: OPERATOR }) });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const bySession = () =>
      app.request("http://localhost/runs", {
        method: "POST",
        headers: { cookie, origin: "http://localhost", "content-type": "application/json", "idempotency-key": "shared-key" },
        body: JSON.stringify({ task: "t" }),
      });
    const s1 = await bySession();
    const s2 = await bySession();
    expect([s1.status, s2.status, s2.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"]);
    const sessionRun = ((await s1.json()) as { runId: string }).runId;
    expect(((await s2.json()) as { runId: string }).runId).toBe(sessionRun);
    ids.add(sessionRun);
    expect(ids.size).toBe(4);
    expect((await runs()).sort()).toEqual([...ids].sort());
  });

  it("of concurrent creates with one key, exactly one makes the run; every one answers with it", async () => {
    const { create, runs } = setup();
    const answers = await Promise.all(Array.from({ length: 8 }, async () => create({ goal: "race" }, "race-key")));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(answers.filter((r) => r.headers.get("idempotent-replayed") === null).length).toBe(1);
    const ids = new Set(await Promise.all(answers.map(async (r) => ((await r.json()) as { runId: string }).runId)));
    expect(ids.size).toBe(1);
    expect(await runs()).toEqual([...ids]);
  });

  it("refuses a key that is empty, too long, or not visible ASCII with 400 IDEMPOTENCY_KEY_INVALID, making nothing", async () => {
    const { create, runs } = setup();
    for (const key of ["", " ", "a b", "x".repeat(256), "é"]) {
      const res = await create("t", key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("IDEMPOTENCY_KEY_INVALID");
    }
    expect((await create("t", "x".repeat(255))).status).toBe(201);
    expect((await runs()).length).toBe(1);
  });

  it("lets a configured origin send the header and read whether the answer was replayed", async () => {
    const { app } = setup();
    const pre = await app.request("/runs", {
      method: "OPTIONS",
      headers: { origin: "https://ops.example", "access-control-request-method": "POST", "access-control-request-headers": "idempotency-key" },
    });
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("idempotency-key");
    const res = await app.request("/runs", {
      method: "POST",
      headers: { origin: "https://ops.example", authorization: `Bearer ${OPERATOR}`, "content-type": "application/json", "idempotency-key": "k" },
      body: JSON.stringify({ task: "t" }),
    });
    expect(res.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("idempotent-replayed");
  });
});

describe("createIdempotent", () => {
  it("refuses a backend that creates another run than the one it is given", async () => {
    const runId = idempotentRunId("c", "k");
    const e = await createIdempotent(
      runId,
      "t",
      async () => "run_other" as RunId,
      async () => "t",
    ).catch((e: unknown) => e);
    expect(isIsoagentError(e, "DRIVER_INVALID")).toBe(true);
  });

  it("derives the run from which token the caller holds, never from its value: a run id tells nothing of a secret", async () => {
    // Two deployments whose operator tokens differ: the same key names the same run.
    const made = [];
    for (const token of ["a-first-operator-token-0123456789", "a-second-operator-token-987654321"]) {
      const store = memoryStore();
      const driver = createDriver({ store, ids: sequentialIds(), agent: scriptedAgent([final("done")]), tools: [] });
      const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [token] });
      const res = await app.request("/runs", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "k-1" },
        body: JSON.stringify({ task: "t" }),
      });
      made.push(((await res.json()) as { runId: string }).runId);
    }
    expect(made[0]).toBe(made[1]);
  });

  it("names the same run for a key retried from a new console session (after logging in again)", async () => {
    const { app } = setup();
    const startBy = async () => {
      const login = await app.request("/login", { method: "POST", headers: { origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ token: OPERATOR }) });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const res = await app.request("http://localhost/runs", {
        method: "POST",
        headers: { cookie, origin: "http://localhost", "content-type": "application/json", "idempotency-key": "console-key" },
        body: JSON.stringify({ task: "t" }),
      });
      return [res.headers.get("idempotent-replayed"), ((await res.json()) as { runId: string }).runId] as const;
    };
    const [first, second] = [await startBy(), await startBy()];
    expect([first[0], second[0]]).toEqual([null, "true"]);
    expect(second[1]).toBe(first[1]);
  });

  it("names a run per caller and key, and refuses an invalid key", () => {
    expect(idempotentRunId("a", "k")).toBe(idempotentRunId("a", "k"));
    expect(idempotentRunId("a", "k")).not.toBe(idempotentRunId("b", "k"));
    expect(idempotentRunId("a", "k")).not.toBe(idempotentRunId("a", "k2"));
    expect(() => idempotentRunId("a", "")).toThrow(expect.objectContaining({ code: "IDEMPOTENCY_KEY_INVALID" }));
  });
});
