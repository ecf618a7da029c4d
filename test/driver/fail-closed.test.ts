/**
 * Audit finding 3 (issue 21): the driver's fail-closed paths that no test
 * reached. Each test names the mutation of the rule it pins, and fails with
 * it. (A policy that throws is pinned by test/gate/findings.test.ts,
 * "finding 2: malformed policy answers fail closed > a throw".)
 */
import { describe, expect, it } from "vitest";
import { call, calls, defineTool, final, rulesPolicy, strictObject, string, type Store, type Tool } from "../../src/index.js";
import { crashAt, eventsOf, harness } from "./helpers.js";

const LEASE = 30_000;

/** A write tool whose resources() throws while `broken.now` is set (a TypeError, not a ToolError: a bug in the tool). */
function fragileWrite(executions: string[], broken: { now: boolean }): Tool<never, unknown> {
  return defineTool<{ path: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string() }),
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 1000,
    resources: (a) => {
      if (broken.now) throw new TypeError("cannot read properties of undefined (reading 'root')");
      return [{ kind: "path", value: a.path }];
    },
    call: (a) => {
      executions.push(a.path);
      return { ok: true };
    },
  }) as Tool<never, unknown>;
}

describe("audit finding 3: resources() that throws", () => {
  it("denies the call before policy and execution, and tells the agent (fails when the gate's catch lets the call through with no resources)", async () => {
    const executions: string[] = [];
    // A policy that would allow anything: the denial is the gate's own.
    const h = harness([calls(call("write_file", { path: "a.md" })), final("ok")], { tools: [fragileWrite(executions, { now: true })], policy: () => ({ permission: "allow" }) });
    const outcome = await h.driver().start("t");
    expect(outcome.status).toBe("completed");
    expect(executions).toEqual([]);
    expect((await eventsOf(h.store, "run_1")).slice(3, 5)).toEqual([
      { type: "call.permission", step: 1, callId: "s1c1", permission: "deny", source: "spec", reason: "resources could not be determined", sideEffect: "local_mutation" },
      {
        type: "call.rejected",
        step: 1,
        callId: "s1c1",
        observation: {
          type: "denied",
          error:
            "Error: permission denied: what write_file would touch could not be determined from these arguments.\n" +
            "[Next: Call write_file with different arguments, or use another tool.]\n" +
            "[Recovery: If the task cannot be done another way, stop and say so.]",
        },
      },
    ]);
  });

  it("is taken as touching nothing when recovery works them out again: the operator is still asked, the drive does not crash (fails when resourcesOf rethrows)", async () => {
    const executions: string[] = [];
    const broken = { now: false };
    const h = harness([calls(call("write_file", { path: "a.md" })), final("ok")], { tools: [fragileWrite(executions, broken)] });
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    expect(crashed.stopped).toBe("crashed");
    broken.now = true;
    h.clock.advance(LEASE + 1);
    const waiting = await h.driver({ owner: "driver-2" }).resume(crashed.runId);
    expect(waiting.status).toBe("waiting");
    expect(waiting.approvals[0]!.request).toMatchObject({ kind: "interrupted_side_effect", tool: "write_file", resources: [], idempotencyKey: "run_1:1:s1c1" });
    expect(executions).toEqual(["a.md"]);
  });
});

describe("audit finding 3: a reconcile hook that throws", () => {
  for (const [name, hook] of [
    [
      "throws",
      () => {
        throw new Error("connection refused: postgres://ops:s3cret@db");
      },
    ],
    ["rejects", () => Promise.reject(new Error("connection refused: postgres://ops:s3cret@db"))],
  ] as const) {
    it(`${name}: the operator is asked, with the fault (not the exception's text) as the note, and nothing runs again (fails when the catch runs the call again, or rethrows)`, async () => {
      const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
      const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
      h.clock.advance(LEASE + 1);
      const waiting = await h.driver({ owner: "driver-2", reconcile: hook }).resume(crashed.runId);
      expect(waiting.status).toBe("waiting");
      expect(waiting.approvals[0]!.request).toMatchObject({ kind: "interrupted_side_effect", note: "the reconcile hook threw", idempotencyKey: "run_1:1:s1c1" });
      const events = await eventsOf(h.store, "run_1");
      expect(events.find((e) => e["type"] === "call.reconciled")).toEqual({
        type: "call.reconciled",
        step: 1,
        callId: "s1c1",
        attempt: 1,
        resolution: "ask_operator",
        by: "hook",
        reason: "the reconcile hook threw",
      });
      expect(JSON.stringify(events)).not.toContain("s3cret");
      expect(h.world.executions.length).toBe(1);
    });
  }
});

/** A store that, the first time a session appends (with a lease), lets `first` happen before it. */
function interposed(inner: Store, first: () => Promise<unknown>): Store {
  let done = false;
  return Object.assign(Object.create(null) as object, inner, {
    async append(...args: Parameters<Store["append"]>) {
      if (!done && args[2].lease !== undefined) {
        done = true;
        await first();
      }
      return inner.append(...args);
    },
  }) as Store;
}

describe("audit finding 3: a batch dropped after an operator's answer", () => {
  it("drops the session's events that the answer made moot, keeps the journal valid, and the run goes on (fails when replayOnto rethrows the JournalError, or skips only the one event)", async () => {
    // An approval asked under policy v1. A driver under v2 reopens the call
    // and asks again; before its batch lands, an operator (who saw the v1
    // request) denies it. The reopening no longer applies to a call the
    // operator closed: the rest of the batch is dropped.
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")], { policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]) });
    const waiting = await h.driver({ policyVersion: "v1" }).start("t");
    const [a] = waiting.approvals;
    const operator = h.driver({ policyVersion: "v1", owner: "console" });
    const store = interposed(h.store, () => operator.deny(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", reason: "no" }));
    const outcome = await h.driver({ policyVersion: "v2", owner: "driver-2", store }).resume(waiting.runId);
    // The outcome is the journal's, after the batch was dropped: no approval
    // that was never journaled.
    expect(outcome).toMatchObject({ status: "running", approvals: [] });
    const events = (await eventsOf(h.store, "run_1")).slice(5);
    expect(events).toEqual([
      { type: "approval.resolved", approvalId: "apr.1.s1c1.1", requestHash: a!.requestHash, decision: "deny", by: "ana", reason: "no" },
      {
        type: "call.rejected",
        step: 1,
        callId: "s1c1",
        observation: { type: "denied", error: expect.stringMatching(/^Error: permission denied: an operator declined this call to write_file \("no"\)\./) },
      },
      { type: "run.resumed", owner: "driver-2", token: 2 },
    ]);
    // Nothing ran, and the next drive goes on from the journal.
    expect(h.world.executions).toEqual([]);
    const done = await h.driver({ policyVersion: "v2", owner: "driver-2" }).resume(waiting.runId);
    expect(done.status).toBe("completed");
  });
});
