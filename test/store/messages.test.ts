/**
 * What each store refusal says, pinned by exact text on the memory store
 * (the checks in src/store/checks.ts are shared by every store, so they all
 * say this). The conformance suite holds every store to the codes; an
 * operator reads the message, so a change to one is a visible change.
 */
import { describe, expect, it } from "vitest";
import { isIsoagentError, memoryStore, parseRunId, type JournalEvent } from "../../src/index.js";
import { seal, type RunCreated, type UnsealedEvent } from "../../src/journal/index.js";
import { StoreError } from "../../src/store/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { sealAfter } from "../../src/testkit/chain.js";
import { taskTitle } from "../../src/store/checks.js";

const runId = parseRunId("msg_run");
const created = (id = runId): RunCreated =>
  seal({ v: 1, at: 1000, type: "run.created", runId: id, task: "t", tools: [], limits: { maxSteps: 5, maxConsecutiveFailures: 3, runTimeoutMs: 0 } }, 1, "") as RunCreated;
const resumed = (token: number): UnsealedEvent => ({ v: 1, at: 1001, type: "run.resumed", owner: "o", token });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (!isIsoagentError(e)) throw e;
    expect(e.name).toBe("StoreError");
    return `${e.code}: ${e.message}`;
  }
  throw new Error("it succeeded");
}

describe("store refusals, by exact message", () => {
  it("says which run, which event and which rule", async () => {
    const clock = manualClock();
    const store = memoryStore({ clock });
    const first = created();
    expect(await refusal(store.read(runId))).toBe("RUN_NOT_FOUND: no run msg_run");
    await store.createRun(first);
    expect(await refusal(store.createRun(first))).toBe("RUN_EXISTS: run msg_run already exists");
    expect(await refusal(store.createRun(seal({ ...(first as UnsealedEvent), runId: parseRunId("msg_two") } as UnsealedEvent, 2, first.hash) as RunCreated))).toBe(
      "STORE_INVALID_APPEND: a run is created with run.created at seq 1",
    );
    const lease = (await store.acquireLease(runId, "a", 1_000))!;
    const next = sealAfter(first, [resumed(lease.token)]);
    expect(await refusal(store.append(runId, next, { expectedSeq: 3, lease }, "running"))).toBe("JOURNAL_CONFLICT: run msg_run is at event 1, not 3");
    expect(await refusal(store.append(runId, [], { expectedSeq: 1, lease }, "running"))).toBe("STORE_INVALID_APPEND: an append to run msg_run has no events");
    expect(await refusal(store.append(runId, sealAfter({ seq: 1, hash: "0".repeat(64) }, [resumed(lease.token)]), { expectedSeq: 1, lease }, "running"))).toBe(
      "STORE_INVALID_APPEND: event 2 of an append to run msg_run does not follow event 1",
    );
    expect(await refusal(store.append(runId, sealAfter(first, [{ ...(first as UnsealedEvent) }]), { expectedSeq: 1, lease }, "running"))).toBe(
      "STORE_INVALID_APPEND: an append to run msg_run creates it again",
    );
    expect(await refusal(store.append(runId, next, { expectedSeq: 1 }, "running"))).toBe("STORE_INVALID_APPEND: event 2 (run.resumed) of run msg_run needs the run's lease");
    const { hash: _, ...hashless } = next[0]!;
    expect(await refusal(store.append(runId, [hashless as unknown as JournalEvent], { expectedSeq: 1, lease }, "running"))).toBe(
      "STORE_INVALID_APPEND: event 2 of an append to run msg_run does not follow event 1",
    );
    clock.advance(1_000);
    expect(await refusal(store.append(runId, next, { expectedSeq: 1, lease }, "running"))).toBe(`LEASE_NOT_HELD: the lease on run msg_run with token ${lease.token} is not held (stale or expired)`);
  });

  it("a released lease is refused like an expired one, and releasing a lease of a run the store does not have is a no-op", async () => {
    const store = memoryStore({ clock: manualClock() });
    const first = created();
    await store.createRun(first);
    const lease = (await store.acquireLease(runId, "a", 1_000))!;
    await store.releaseLease(lease);
    expect(await store.lease(runId)).toBeNull();
    expect(await refusal(store.append(runId, sealAfter(first, [resumed(lease.token)]), { expectedSeq: 1, lease }, "running"))).toBe(
      `LEASE_NOT_HELD: the lease on run msg_run with token ${lease.token} is not held (stale or expired)`,
    );
    expect(await store.renewLease(lease, 1_000)).toBeNull();
    await expect(store.releaseLease({ ...lease, runId: parseRunId("msg_none") })).resolves.toBeUndefined();
  });

  it("a StoreError keeps the cause it is given, and has none otherwise", () => {
    const cause = new Error("the database closed");
    const withCause = new StoreError("STORE_UNAVAILABLE", "m", { cause });
    expect(withCause.cause).toBe(cause);
    expect(withCause.name).toBe("StoreError");
    expect("cause" in new StoreError("STORE_UNAVAILABLE", "m")).toBe(false);
  });

  it("a run without a task (never journaled so) is titled with nothing", () => {
    expect(taskTitle(undefined)).toBe("");
  });
});
