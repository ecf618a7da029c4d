import { describe, expect, it } from "vitest";
import { AgentError, call, calls, createDriver, defineTool, final, isIsoagentError, scriptedAgent, strictObject, string, type ReconcileHook, type Tool } from "../../src/index.js";
import { crashAt, eventsOf, harness, worldTools } from "./helpers.js";

const LEASE = 30_000;

describe("recovery after a crash", () => {
  it("runs a read_only call again (same step, call and key) and never asks the agent again for a decided step", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const crashed = await h.driver({ faults: crashAt("after_start_append", "read_file") }).start("t");
    expect(crashed).toMatchObject({ status: "running", stopped: "crashed" });
    h.clock.advance(LEASE + 1);
    const done = await h.driver({ owner: "driver-2" }).resume(crashed.runId);
    expect(done.status).toBe("completed");
    expect(h.views.map((v) => v.step)).toEqual([1, 2]);
    expect(h.world.executions).toEqual([{ tool: "read_file", key: "run_1:1:s1c1", attempt: 2 }]);
    const events = await eventsOf(h.store, "run_1");
    expect(events.slice(4, 8)).toEqual([
      { type: "call.started", step: 1, callId: "s1c1", attempt: 1, idempotencyKey: "run_1:1:s1c1" },
      // v4: the lease it took over, never released by the driver that crashed.
      { type: "run.resumed", owner: "driver-2", token: 2, took: { holder: "driver-1", expiresAt: Date.UTC(2026, 0, 1) + LEASE } },
      { type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "run_again", by: "runtime" },
      { type: "call.started", step: 1, callId: "s1c1", attempt: 2, idempotencyKey: "run_1:1:s1c1" },
    ]);
  });

  it("without a reconcile hook, asks an operator about an interrupted side effect, and never runs it again silently", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    expect(crashed.stopped).toBe("crashed");
    expect(h.world.executions.length).toBe(1);
    h.clock.advance(LEASE + 1);
    const driver2 = h.driver({ owner: "driver-2" });
    const waiting = await driver2.resume(crashed.runId);
    expect(waiting.status).toBe("waiting");
    const [a] = waiting.approvals;
    expect(a!.request).toEqual({
      kind: "interrupted_side_effect",
      runId: "run_1",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      tool: "write_file",
      args: { path: "a.md", content: "x" },
      argsHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      sideEffect: "local_mutation",
      resources: [{ kind: "path", value: "a.md" }],
      toolShape: expect.stringMatching(/^[0-9a-f]{64}$/),
      // v2: the operator can look for the key in the outside system.
      idempotencyKey: "run_1:1:s1c1",
      // v4: how its attempt ended (attempt 1: interrupted once, below the limit).
      interrupted: { cause: "lease_expired", holder: "driver-1", expiresAt: Date.UTC(2026, 0, 1) + LEASE, startedAt: Date.UTC(2026, 0, 1) },
    });
    expect(h.world.executions.length).toBe(1);
    // The operator knows the write happened: record its result.
    await driver2.settle(crashed.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", resolution: "record_result", content: { written: 1 } });
    const done = await driver2.resume(crashed.runId);
    expect(done.status).toBe("completed");
    expect(h.world.executions.length).toBe(1);
    const events = await eventsOf(h.store, "run_1");
    expect(events.find((e) => e["type"] === "call.reconciled")).toEqual({
      type: "call.reconciled",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      resolution: "record_result",
      by: "ana",
      observation: { type: "result", content: { written: 1 } },
    });
  });

  it("follows the reconcile hook: run again, record a result, record a failure, or ask the operator", async () => {
    const answers: Record<string, ReturnType<ReconcileHook>> = {
      run_again: { action: "run_again" },
      record_result: { action: "record_result", content: "recorded" },
      record_failure: { action: "record_failure" },
      ask_operator: { action: "ask_operator" },
    };
    const seen: unknown[] = [];
    for (const [action, answer] of Object.entries(answers)) {
      const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
      const crashed = await h.driver({ faults: crashAt("after_start_append", "write_file") }).start("t");
      h.clock.advance(LEASE + 1);
      const outcome = await h
        .driver({
          owner: "driver-2",
          reconcile: (c) => {
            seen.push(c);
            return answer;
          },
        })
        .resume(crashed.runId);
      const reconciled = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reconciled");
      if (action === "run_again") {
        expect(outcome.status).toBe("completed");
        expect(h.world.executions).toEqual([{ tool: "write_file", key: "run_1:1:s1c1", attempt: 2 }]);
        expect(reconciled).toEqual([{ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "run_again", by: "hook" }]);
      } else if (action === "record_result") {
        expect(h.world.executions).toEqual([]);
        expect(reconciled).toEqual([{ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "record_result", by: "hook", observation: { type: "result", content: "recorded" } }]);
      } else if (action === "record_failure") {
        expect(h.world.executions).toEqual([]);
        expect(reconciled).toEqual([
          {
            type: "call.reconciled",
            step: 1,
            callId: "s1c1",
            attempt: 1,
            resolution: "record_failure",
            by: "hook",
            observation: {
              type: "tool_error",
              failure: "error",
              error:
                "Error: write_file was interrupted, and its owner recorded that it did not take effect.\n[Next: Call write_file again if it is still needed.]\n[Recovery: If it cannot be done, stop and say so.]",
            },
          },
        ]);
      } else {
        expect(outcome.status).toBe("waiting");
        expect(outcome.approvals[0]!.request.kind).toBe("interrupted_side_effect");
        expect(reconciled).toEqual([{ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "ask_operator", by: "hook" }]);
      }
    }
    expect(seen[0]).toEqual({
      runId: "run_1",
      step: 1,
      callId: "s1c1",
      tool: "write_file",
      sideEffect: "local_mutation",
      args: { path: "a.md", content: "x" },
      attempt: 1,
      idempotencyKey: "run_1:1:s1c1",
    });
  });

  it("refuses to resume a run whose tools changed shape", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const crashed = await h.driver({ faults: crashAt("after_start_append", "write_file") }).start("t");
    h.clock.advance(LEASE + 1);
    const w = { files: {}, executions: [] };
    const { readFile, writeFile } = worldTools(w);
    const changed = { ...writeFile, description: "Write a file (now with more words)." };
    const driver = createDriver({ store: h.store, agent: scriptedAgent([final("x")]), tools: [readFile, changed] as Tool<never, unknown>[], clock: h.clock, owner: "d3" });
    await expect(driver.resume(crashed.runId)).rejects.toThrow(`run run_1 was offered another shape of tool "write_file" (register tools conditionally; never change a tool's shape under a live run)`);
    // The refused driver let the lease go.
    expect(await h.store.acquireLease(crashed.runId, "d4", 1000)).not.toBeNull();
  });
});

describe("cancellation, signals and leases", () => {
  it("observes a call as interrupted when the driver's own signal is aborted, records it, then stops", async () => {
    const controller = new AbortController();
    const wait = defineTool({
      name: "wait",
      description: "Wait for a while.",
      inputSchema: strictObject({}),
      sideEffect: "remote_mutation",
      permission: "allow",
      timeoutMs: 10_000,
      call: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const h = harness([calls(call("wait")), final("ok")], { tools: [wait as Tool<never, unknown>] });
    const outcome = await h.driver().start("t", { signal: controller.signal });
    expect(outcome).toMatchObject({ status: "running", stopped: "signal" });
    const events = await eventsOf(h.store, "run_1");
    expect(events.at(-1)).toEqual({
      type: "call.finished",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      observation: {
        type: "interrupted",
        error:
          "Error: wait was interrupted before it reported back; whether it took effect is unknown.\n[Next: Check whether it took effect before calling wait again.]\n[Recovery: If calls keep being interrupted, stop and report it.]",
      },
    });
    // The lease was released: another driver resumes at once, and the agent sees the interruption.
    const next = await h.driver({ owner: "driver-2" }).resume(outcome.runId);
    expect(next.status).toBe("completed");
    expect(h.views.at(-1)!.transcript.at(-1)).toMatchObject({ type: "observation", observation: { type: "interrupted" } });
  });

  it("lets an operator cancel while a call is in flight: the call is not recalled, its outcome is appended late", async () => {
    let finish!: (v: unknown) => void;
    let cancelled!: Promise<unknown>;
    let called!: () => void;
    const inFlight = new Promise<void>((r) => (called = r));
    const h = harness([calls(call("deploy")), final("never")], {
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploy.",
          inputSchema: strictObject({}),
          sideEffect: "remote_mutation",
          permission: "allow",
          timeoutMs: 10_000,
          call: () => {
            cancelled = driver.cancel("run_1" as never, { by: "ana", reason: "wrong branch" });
            called();
            return new Promise((resolve) => (finish = resolve));
          },
        }) as Tool<never, unknown>,
      ],
    });
    const driver = h.driver();
    const running = driver.start("t");
    // The call is in flight (not a fixed sleep: its own signal).
    await inFlight;
    await cancelled;
    finish({ deployed: true });
    const outcome = await running;
    expect(outcome.status).toBe("cancelled");
    const events = await eventsOf(h.store, "run_1");
    expect(events.slice(-2)).toEqual([
      { type: "run.cancelled", by: "ana", reason: "wrong branch" },
      { type: "call.finished", step: 1, callId: "s1c1", attempt: 1, observation: { type: "result", content: { deployed: true } }, late: true },
    ]);
    await expect(driver.cancel("run_1" as never, { by: "ana" })).rejects.toThrow("run run_1 is cancelled");
  });

  it("stops recording at once when the lease is lost; the new owner treats the step as interrupted", async () => {
    let takeover: Promise<unknown> | undefined;
    const h = harness([calls(call("slow_write", { path: "a" })), final("ok")], {
      tools: [
        defineTool<{ path: string }>({
          name: "slow_write",
          description: "A write that stalls.",
          inputSchema: strictObject({ path: string() }),
          sideEffect: "local_mutation",
          permission: "allow",
          timeoutMs: 10_000,
          call: async () => {
            // The process stalls past its lease; another driver takes the run.
            h.clock.advance(LEASE + 1);
            takeover = h.store.acquireLease("run_1" as never, "driver-2", LEASE);
            await takeover;
            return "done late";
          },
        }) as Tool<never, unknown>,
      ],
    });
    const outcome = await h.driver().start("t");
    expect(outcome.stopped).toBe("lease_lost");
    const events = await eventsOf(h.store, "run_1");
    expect(events.map((e) => e["type"])).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started"]);
    // driver-2 held the lease; once it expires, a resume reconciles the call.
    h.clock.advance(LEASE + 1);
    const next = await h.driver({ owner: "driver-3", reconcile: () => ({ action: "record_result", content: "done late" }) }).resume(outcome.runId);
    expect(next.status).toBe("completed");
  });

  it("reports busy when another driver holds the run", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")], { policy: () => ({ permission: "allow" }) });
    const crashed = await h.driver({ faults: crashAt("after_start_append", "read_file") }).start("t");
    const busy = await h.driver({ owner: "driver-2" }).resume(crashed.runId);
    expect(busy).toMatchObject({ status: "running", stopped: "busy" });
  });
});

describe("the agent failing", () => {
  it("leaves the run to resume when the failure is retryable, and fails it otherwise", async () => {
    let offline = true;
    const h = harness([], {
      agent: {
        decide: async () => {
          if (offline) throw new AgentError("the network is down", { retryable: true });
          throw new AgentError("the model refused the request (400)");
        },
      },
    });
    const paused = await h.driver().start("t");
    expect(paused).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    offline = false;
    const failed = await h.driver().resume(paused.runId);
    expect(failed.failure).toEqual({ reason: "agent_error", detail: "the model refused the request (400)" });
  });

  it("fails the run on a decision it cannot use, and never on an exception's text", async () => {
    const h = harness([{ kind: "calls", calls: [] }]);
    expect((await h.driver().start("t")).failure).toEqual({
      reason: "agent_error",
      detail: 'the agent returned a decision the runtime cannot use: it is neither "final" nor a non-empty list of calls',
    });
    const h2 = harness([], {
      agent: {
        decide: async () => {
          throw new Error("key sk-proj-secret leaked");
        },
      },
    });
    expect((await h2.driver().start("t")).failure).toEqual({ reason: "agent_error", detail: "the agent failed (Error)" });
  });
});

describe("snapshots", () => {
  it("are written as the journal grows, and a resume starts from one", async () => {
    const script = Array.from({ length: 6 }, () => calls(call("read_file", { path: "notes.md" })));
    const h = harness([...script, final("ok")], { snapshotEvery: 4 });
    await h.driver().start("t");
    const snap = await h.store.getSnapshot("run_1" as never);
    expect(snap).not.toBeNull();
    // Every 4 events; without a context budget, the transcript is left out (the journal has it).
    expect(snap!.seq).toBeGreaterThan(20);
    expect(snap!.state.transcriptOmitted).toBe(true);
    expect(snap!.state.transcript).toEqual([]);
    const reads: number[] = [];
    const spy = { ...h.store, read: (runId: never, from?: number) => (reads.push(from ?? 1), h.store.read(runId, from)) };
    const outcome = await h
      .driver({ store: spy })
      .resume("run_1" as never)
      .catch((e: unknown) => e);
    // A resume reads from the snapshot's seq, not from the first event.
    expect(isIsoagentError(outcome)).toBe(false);
    expect(reads).toEqual([snap!.seq]);
    expect((outcome as { status: string }).status).toBe("completed");
  });
});

describe("resuming what cannot move", () => {
  it("appends nothing to a run that has ended or waits for an operator", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const done = await h.driver().start("t");
    const before = (await h.store.read(done.runId)).length;
    expect(await h.driver({ owner: "d2" }).resume(done.runId)).toMatchObject({ status: "completed", output: "ok" });
    expect((await h.store.read(done.runId)).length).toBe(before);
    const w = harness([calls(call("write_file", { path: "o", content: "x" })), final("ok")], { policy: () => ({ permission: "ask" }) });
    const waiting = await w.driver().start("t");
    const n = (await w.store.read(waiting.runId)).length;
    for (let k = 0; k < 3; k++) expect((await w.driver({ owner: `poll-${k}` }).resume(waiting.runId)).status).toBe("waiting");
    expect((await w.store.read(waiting.runId)).length).toBe(n);
  });

  it("never runs a call whose start lost the race to an operator's cancel", async () => {
    let cancel!: () => Promise<unknown>;
    const h = harness([], {
      agent: {
        decide: async () => {
          await cancel();
          return calls(call("write_file", { path: "a.md", content: "x" }));
        },
      },
    });
    const driver = h.driver();
    cancel = () => driver.cancel("run_1" as never, { by: "ana" });
    const outcome = await driver.start("t");
    expect(outcome.status).toBe("cancelled");
    expect(h.world.executions).toEqual([]);
    expect((await eventsOf(h.store, "run_1")).map((e) => e["type"])).toEqual(["run.created", "run.cancelled"]);
  });
});
