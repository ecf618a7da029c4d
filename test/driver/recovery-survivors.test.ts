/**
 * Recovery of an interrupted call (src/driver/recovery.ts, and the gate's
 * re-check of a started call's arguments) where the driver area's mutation
 * run left survivors: what a restarted driver takes from the journal (the
 * call's idempotency key, its arguments), a crash or a lost lease while the
 * reconcile hook runs, and a record_result without content.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, calls, final, type ReconcileHook, type Reconciliation, type Store, type Tool } from "../../src/index.js";
import { seal, type UnsealedEvent } from "../../src/journal/index.js";
import { Crash } from "../../src/testkit/index.js";
import { crashAt, eventsOf, harness, worldTools } from "./helpers.js";

const LEASE = 30_000;
const types = (events: Record<string, unknown>[]): unknown[] => events.map((e) => e["type"]);

/**
 * A store that writes every batch with `rewrite` applied to each event and
 * the batch sealed again: a journal as another writer of it might have left
 * it. (Only the batches before a crash go through it.)
 */
function rewritingStore(inner: Store, rewrite: (e: UnsealedEvent) => UnsealedEvent): Store {
  return Object.assign(Object.create(null) as object, inner, {
    async append(...args: Parameters<Store["append"]>) {
      const [runId, events, opts, status] = args;
      let prev = { seq: events[0]!.seq - 1, hash: events[0]!.prev };
      const resealed = events.map(({ seq: _s, prev: _p, hash: _h, ...rest }) => (prev = seal(rewrite(rest as UnsealedEvent), prev.seq + 1, prev.hash)));
      return inner.append(runId, resealed, opts, status);
    },
  }) as Store;
}

/** A run of write_file crashed after its effect, with its journal rewritten by `rewrite` on the way to the store. */
async function crashedWith(rewrite: (e: UnsealedEvent) => UnsealedEvent) {
  const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
  const crashed = await h.driver({ store: rewritingStore(h.store, rewrite), faults: crashAt("after_effect", "write_file") }).start("t");
  expect(crashed.stopped).toBe("crashed");
  h.clock.advance(LEASE + 1);
  return h;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("what a restarted driver takes from the journal", () => {
  // mutation: recovery.ts recover, `call.idempotencyKey ?? idempotencyKey(...)` -> `call.idempotencyKey && idempotencyKey(...)`
  it("the interrupted call's idempotency key is the one its start recorded: the hook and the operator are given that one", async () => {
    const h = await crashedWith((e) => (e.type === "call.started" ? { ...e, idempotencyKey: "legacy-key-7" } : e));
    const asked: unknown[] = [];
    const reconcile: ReconcileHook = (c) => (asked.push(c.idempotencyKey), { action: "ask_operator" });
    const waiting = await h.driver({ owner: "driver-2", reconcile }).resume("run_1" as never);
    expect(asked).toEqual(["legacy-key-7"]);
    expect(waiting.status).toBe("waiting");
    expect(waiting.approvals.map((a) => a.request.idempotencyKey)).toEqual(["legacy-key-7"]);
  });

  // mutation: gate.ts argsOf, `if (!r.valid) throw new JournalError(...)` -> `if (false) ...` (and its code and message)
  it("a started call whose arguments its tool refuses makes the journal invalid: the resume fails saying which call", async () => {
    const h = await crashedWith((e) =>
      e.type === "step.decided" && e.decision.kind === "calls" ? { ...e, decision: { ...e.decision, calls: e.decision.calls.map((c) => ({ ...c, args: '{"path":3}' })) } } : e,
    );
    const asked: unknown[] = [];
    const resumed = h.driver({ owner: "driver-2", reconcile: (c) => (asked.push(c.args), { action: "ask_operator" }) }).resume("run_1" as never);
    await expect(resumed).rejects.toMatchObject({ name: "JournalError", code: "JOURNAL_INVALID", message: "call s1c1 was started with arguments its tool refuses" });
    expect(asked).toEqual([]);
    expect((await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reconciled" || e["type"] === "approval.requested")).toEqual([]);
  });
});

describe("while the reconcile hook runs", () => {
  // mutation: recovery.ts recover, `if (isCrash(e)) throw e;` -> false
  it("a crash thrown by the hook stops the drive as crashed: it is not taken as a faulty answer, nobody is asked", async () => {
    const h = await crashedWith((e) => e);
    const reconcile: ReconcileHook = () => {
      throw new Crash("died reconciling");
    };
    const seen = (await eventsOf(h.store, "run_1")).length;
    const out = await h.driver({ owner: "driver-2", reconcile }).resume("run_1" as never);
    expect(out).toMatchObject({ status: "running", stopped: "crashed", approvals: [] });
    // Only the takeover, written before anything is recovered (issue 26): nothing of the hook.
    expect(types((await eventsOf(h.store, "run_1")).slice(seen))).toEqual(["run.resumed"]);
  });

  // mutation: recovery.ts recover, `host.checkLease();` removed; session.ts recoverCall's
  // checkLease: its body emptied, its `if (this.lost)` -> `if (false)`, its throw removed.
  // (The journal and the outcome cannot tell them apart: nothing is written under a lost
  // lease, and a lease_lost outcome is read from the store. What tells is the tool's own
  // code, run for nothing: its resources worked out for an approval never written.)
  it("a lease lost meanwhile stops the drive as lease_lost: the hook's answer is not acted on, and none of the tool's code runs after it", async () => {
    vi.useFakeTimers();
    const h = await crashedWith((e) => e);
    const { readFile, writeFile } = worldTools(h.world);
    let resources = 0;
    const counted = { ...writeFile, resources: (a: { path: string; content: string }) => (resources++, writeFile.resources!(a)) };
    let called!: () => void;
    const hookCalled = new Promise<void>((r) => (called = r));
    let answer!: (r: Reconciliation) => void;
    const reconcile: ReconcileHook = () => (called(), new Promise<Reconciliation>((r) => (answer = r)));
    const seen = (await eventsOf(h.store, "run_1")).length;
    const resumed = h.driver({ owner: "driver-2", reconcile, tools: [readFile, counted] as Tool<never, unknown>[] }).resume("run_1" as never);
    await hookCalled;
    const before = resources;
    // The lease runs out and another driver takes it; the next renewal finds it gone.
    h.clock.advance(LEASE + 1);
    expect(await h.store.acquireLease("run_1" as never, "driver-3", LEASE)).not.toBeNull();
    await vi.advanceTimersByTimeAsync(LEASE / 3);
    answer({ action: "ask_operator" });
    const out = await resumed;
    expect(out).toMatchObject({ status: "running", stopped: "lease_lost", approvals: [] });
    // Only the takeover, written before anything is recovered (issue 26): nothing of the hook.
    expect(types((await eventsOf(h.store, "run_1")).slice(seen))).toEqual(["run.resumed"]);
    expect(resources - before).toBe(0);
  });
});

describe("a hook's record_result", () => {
  // mutation: recovery.ts recover, `observed.ok && answer.content !== undefined` -> `observed.ok && true`
  it("without content is not a result: the operator is asked, told why", async () => {
    const h = await crashedWith((e) => e);
    const waiting = await h.driver({ owner: "driver-2", reconcile: () => ({ action: "record_result" }) as Reconciliation }).resume("run_1" as never);
    expect(waiting.status).toBe("waiting");
    const reason = "the reconcile hook returned record_result without JSON content";
    const events = await eventsOf(h.store, "run_1");
    expect(events.filter((e) => e["type"] === "call.reconciled")).toEqual([{ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "ask_operator", by: "hook", reason }]);
    expect(waiting.approvals.map((a) => [a.request.kind, a.request.note])).toEqual([["interrupted_side_effect", reason]]);
    expect(types(events).slice(-3)).toEqual(["run.resumed", "call.reconciled", "approval.requested"]);
  });
});
