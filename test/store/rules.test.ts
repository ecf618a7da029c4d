/**
 * The store's pure rules, each on its own (issue 28: found through the store
 * area's surviving mutants once the rules moved into store/): the conflict
 * rule, the store-error guard, an append's batch check without a lease, and
 * the custody an import leaves.
 */
import { describe, expect, it } from "vitest";
import { JournalError } from "../../src/journal/index.js";
import type { JournalEvent, RunId } from "../../src/index.js";
import { custodyAfterImport } from "../../src/move/index.js";
import { checkBatch } from "../../src/store/checks.js";
import { CONFLICT_RETRIES, triesAgain } from "../../src/store/conflict.js";
import { isStoreError, StoreError } from "../../src/store/errors.js";

const runId = "run_1" as RunId;
/** An event as far as these rules read it. */
const ev = (seq: number, type: string, more: Record<string, unknown> = {}): JournalEvent => ({ v: 1, seq, at: 0, prev: `h${seq - 1}`, hash: `h${seq}`, type, ...more }) as unknown as JournalEvent;

describe("triesAgain (a write that met JOURNAL_CONFLICT)", () => {
  it("tries a conflict again 8 times, and never anything else", () => {
    const conflict = new StoreError("JOURNAL_CONFLICT", "lost the race", { actualSeq: 3 });
    expect(CONFLICT_RETRIES).toBe(8);
    expect(Array.from({ length: 12 }, (_, attempt) => triesAgain(conflict, attempt))).toEqual([true, true, true, true, true, true, true, true, false, false, false, false]);
    for (const other of [new StoreError("LEASE_NOT_HELD", "lost"), new JournalError("JOURNAL_HASH_MISMATCH", "forged"), new Error("JOURNAL_CONFLICT"), { code: "JOURNAL_CONFLICT" }, undefined]) {
      expect(triesAgain(other, 0)).toBe(false);
    }
  });
});

describe("isStoreError", () => {
  it("is true for a store's refusal only: not another isoagent error, nor a look-alike", () => {
    expect(isStoreError(new StoreError("RUN_NOT_FOUND", "none"))).toBe(true);
    expect(isStoreError(new JournalError("JOURNAL_HASH_MISMATCH", "forged"))).toBe(false);
    expect(isStoreError({ name: "StoreError", code: "RUN_NOT_FOUND", message: "none" })).toBe(false);
    expect(isStoreError(null)).toBe(false);
  });
});

describe("checkBatch", () => {
  const head = { seq: 1, hash: "h1" };
  it("takes any event under the lease, and only an operator's without it", () => {
    const lease = { token: 1, owner: "a" } as never;
    expect(() => checkBatch(runId, [ev(2, "step.decided")], { expectedSeq: 1, lease }, head)).not.toThrow();
    expect(() => checkBatch(runId, [ev(2, "run.cancelled")], { expectedSeq: 1 }, head)).not.toThrow();
    expect(() => checkBatch(runId, [ev(2, "step.decided")], { expectedSeq: 1 }, head)).toThrow(
      expect.objectContaining({ code: "STORE_INVALID_APPEND", message: "event 2 (step.decided) of run run_1 needs the run's lease" }),
    );
  });
});

describe("custodyAfterImport", () => {
  const guard = { expectedSeq: 0, status: "running" as const, role: "mirror" as const, here: "b" };
  const sealedToB = [ev(1, "run.created"), ev(2, "run.moved", { to: "b", epoch: 7 })];

  it("makes this store the owner when the events end with the seal naming it, its own events after it", () => {
    expect(custodyAfterImport(undefined, sealedToB, guard, 5)).toBeUndefined();
    expect(custodyAfterImport(undefined, [...sealedToB, ev(3, "call.rejected"), ev(4, "call.permission")], { ...guard, own: 2 }, 5)).toBeUndefined();
  });

  it("refuses own events that do not follow the seal naming this place, or that seal or create the run", () => {
    const refused = (events: JournalEvent[], g: Parameters<typeof custodyAfterImport>[2]) =>
      expect(() => custodyAfterImport(undefined, events, g, 5)).toThrow(expect.objectContaining({ code: "STORE_INVALID_APPEND" }));
    refused([...sealedToB, ev(3, "call.rejected")], { ...guard, own: 2 });
    refused([ev(1, "run.created"), ev(2, "run.moved", { to: "c", epoch: 7 }), ev(3, "call.rejected")], { ...guard, own: 1 });
    refused([...sealedToB, ev(3, "call.rejected"), ev(4, "run.moved", { to: "b", epoch: 8 })], { ...guard, own: 2 });
    refused([...sealedToB, ev(3, "run.created"), ev(4, "call.rejected")], { ...guard, own: 2 });
    // A store with no place name can take no run over.
    expect(() => custodyAfterImport(undefined, [...sealedToB, ev(3, "call.rejected")], { ...guard, here: undefined, own: 1 }, 5)).toThrow(
      "the events a store writes as it takes a run over must follow the seal naming it (no place), and neither seal nor create the run",
    );
  });

  it("keeps how far the copy is vouched for only when it is (no vouched field otherwise), and a seal to elsewhere makes it moved", () => {
    expect(custodyAfterImport(undefined, [ev(1, "run.created")], guard, 5)).toStrictEqual({ role: "mirror", received: 5 });
    expect(custodyAfterImport(undefined, [ev(1, "run.created")], { ...guard, vouched: 1 }, 5)).toStrictEqual({ role: "mirror", received: 5, vouched: 1 });
    expect(custodyAfterImport(undefined, [ev(1, "run.created"), ev(2, "run.moved", { to: "c", epoch: 7 })], guard, 5)).toStrictEqual({ role: "moved", to: "c", epoch: 7, seq: 2 });
  });

  it("reads an import of no events as a copy of its role (nothing to hand the run over)", () => {
    expect(custodyAfterImport(undefined, [], guard, 5)).toStrictEqual({ role: "mirror", received: 5 });
    expect(custodyAfterImport({ role: "in_transit", received: 1 } as never, [], guard, 5)).toStrictEqual({ role: "in_transit", received: 5 });
  });
});
