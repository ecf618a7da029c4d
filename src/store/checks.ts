/**
 * The checks every store makes of an append, shared so that stores refuse
 * the same things with the same errors.
 */
import type { RunId } from "../ids.js";
import { OPERATOR_EVENT_TYPES, type JournalEvent } from "../journal/index.js";
import { StoreError, type AppendGuard, type Lease } from "./port.js";

/** The lease check: `current` is the run's lease record, `now` the store's clock. */
export function checkLease(runId: RunId, guard: AppendGuard, current: Lease | undefined, now: number): void {
  if (guard.lease === undefined) return;
  const held = current !== undefined && current.token === guard.lease.token && current.expiresAt > now;
  if (!held) {
    throw new StoreError("LEASE_NOT_HELD", `the lease on run ${runId} with token ${guard.lease.token} is not held (stale or expired)`);
  }
}

/** The sequence check, then the shape of the batch: a chain following the head, operator-only without a lease. */
export function checkBatch(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, head: { seq: number; hash: string }): void {
  if (guard.expectedSeq !== head.seq) {
    throw new StoreError("JOURNAL_CONFLICT", `run ${runId} is at event ${head.seq}, not ${guard.expectedSeq}`, { actualSeq: head.seq });
  }
  if (events.length === 0) throw new StoreError("STORE_INVALID_APPEND", `an append to run ${runId} has no events`);
  let seq = head.seq;
  let prev = head.hash;
  for (const e of events) {
    if (e.seq !== seq + 1 || e.prev !== prev || typeof e.hash !== "string") {
      throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} of an append to run ${runId} does not follow event ${seq}`);
    }
    if (e.type === "run.created") throw new StoreError("STORE_INVALID_APPEND", `an append to run ${runId} creates it again`);
    if (guard.lease === undefined && !OPERATOR_EVENT_TYPES.has(e.type)) {
      throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} (${e.type}) of run ${runId} needs the run's lease`);
    }
    seq = e.seq;
    prev = e.hash;
  }
}

/** Checks a first event. */
export function checkFirst(first: JournalEvent): void {
  if (first.type !== "run.created" || first.seq !== 1 || first.prev !== "") {
    throw new StoreError("STORE_INVALID_APPEND", "a run is created with run.created at seq 1");
  }
}
