/**
 * Audit finding 5 (issue 21): an operator's deny over HTTP, and the
 * in-process backend's settle, were never sent by a test. Each test names
 * the mutation it fails with.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Driver, type RunState, type Tool } from "../../src/index.js";
import { Crash, manualClock, sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";

const TOKEN = "t0k3n-for-tests-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
/** Above until()'s deadline, so a run that never gets there fails with what it is. */
const SLOW = 30_000;
const json = (body: unknown): RequestInit => ({ method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });

/** Waits for the run to reach a state (the backend drives in the background); a deadline for a machine that is very busy, not a sleep. */
async function until(driver: Driver, runId: string, ok: (s: RunState) => boolean, deadlineMs = 20_000): Promise<RunState> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const s = await driver.state(runId as never);
    if (ok(s)) return s;
    if (Date.now() > end) throw new Error(`run ${runId} never reached the state waited for (it is ${s.status} at seq ${s.seq})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function world() {
  const writes: string[] = [];
  const write = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string(), content: string() }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: (a) => {
      writes.push(a.path);
      return { ok: true };
    },
  }) as Tool<never, unknown>;
  return { writes, write };
}

describe("audit finding 5: an operator's deny over HTTP", () => {
  it(
    "POST /runs/:id/approvals/:approvalId with decision deny: nothing runs, the agent is told, the run is driven on to its end (fails when the route, or driverBackend.deny, approves)",
    async () => {
      const { writes, write } = world();
      const driver = createDriver({
        store: memoryStore(),
        ids: sequentialIds(),
        agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("done")]),
        tools: [write],
        policy: rulesPolicy([]),
      });
      const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
      const { runId } = (await (await app.request("/runs", json({ task: "write a.md" }))).json()) as { runId: string };
      const waiting = await until(driver, runId, (s) => s.status === "waiting");
      const [a] = Object.values(waiting.approvals);
      const res = await app.request(`/runs/${runId}/approvals/${a!.approvalId}`, json({ decision: "deny", requestHash: a!.requestHash, by: "ana", reason: "not this file" }));
      expect([res.status, await res.json()]).toEqual([200, { ok: true }]);
      const done = await until(driver, runId, (s) => s.status === "completed");
      expect(done.output).toBe("done");
      expect(writes).toEqual([]);
      const events = await driver.events(runId as never);
      expect(events.find((e) => e.type === "approval.resolved")).toMatchObject({ decision: "deny", by: "ana", reason: "not this file" });
      expect(events.find((e) => e.type === "call.rejected")).toMatchObject({
        observation: { type: "denied", error: expect.stringMatching(/^Error: permission denied: an operator declined this call to write_file \("not this file"\)\./) },
      });
    },
    SLOW,
  );
});

describe("audit finding 5: the in-process backend's settle (POST /runs/:id/reconcile)", () => {
  it(
    "records what the operator says an interrupted write did, and drives the run on without running it again (fails when driverBackend.settle does not settle, or does not drive)",
    async () => {
      const { writes, write } = world();
      const clock = manualClock();
      const store = memoryStore({ clock });
      const ids = sequentialIds();
      const agent = scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("done")]);
      const options = { store, ids, agent, clock, tools: [write], policy: rulesPolicy([]) };
      // The first driver dies right after the write took effect.
      let crashed = false;
      const first = createDriver({
        ...options,
        owner: "driver-1",
        faults: {
          at: (p) => {
            if (p === "after_effect" && !crashed) {
              crashed = true;
              throw new Crash();
            }
          },
        },
      });
      const runId = await first.create("write a.md");
      const asked = await first.resume(runId);
      await first.approve(runId, asked.approvals[0]!.approvalId, { requestHash: asked.approvals[0]!.requestHash, by: "ana" });
      expect((await first.resume(runId)).stopped).toBe("crashed");
      expect(writes).toEqual(["a.md"]);
      // The next driver finds the write interrupted and asks an operator.
      clock.advance(60_000);
      const driver = createDriver({ ...options, owner: "driver-2" });
      const waiting = await driver.resume(runId);
      const [a] = waiting.approvals;
      expect(a!.request.kind).toBe("interrupted_side_effect");
      const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
      const res = await app.request(`/runs/${runId}/reconcile`, json({ approvalId: a!.approvalId, requestHash: a!.requestHash, resolution: "record_result", content: { ok: true }, by: "ana" }));
      expect([res.status, await res.json()]).toEqual([200, { ok: true }]);
      const done = await until(driver, runId, (s) => s.status === "completed");
      expect(done.output).toBe("done");
      expect(writes).toEqual(["a.md"]);
      const events = await driver.events(runId);
      expect(events.find((e) => e.type === "call.reconciled" && e.by === "ana")).toMatchObject({ resolution: "record_result", observation: { type: "result", content: { ok: true } } });
    },
    SLOW,
  );
});
