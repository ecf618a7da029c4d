/**
 * Custody: whether a store owns a run, and the one rule every store applies
 * to it (isoagent/move). A store owns a run it created, or one a verified
 * import handed it (events ending with a `run.moved` naming its place); it
 * stops owning it by appending `run.moved` (the seal of a move). A run it
 * does not own is a copy: a read-only mirror, a run in transit (imported
 * for a move whose seal has not arrived), or a run that moved away. Only an
 * owner takes appends and hands out leases, so two stores can own a run
 * only if both saw a seal naming them, and a run is sealed once per owner.
 * (Kept small: it is in every store, the memory store's included.)
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { StoreError } from "./errors.js";

/**
 * A run's custody in one store when the store does not own it (a store owns
 * the runs it keeps no custody for). `received` is the store's clock at the
 * last import into the copy (a mirror's lag is that, less its last event's
 * time). `vouched`: the copy's events up to this seq are vouched for by
 * this store's place or one it trusts (isoagent/move: what its exports sign,
 * and what a move that hands the run here keeps the decisions of).
 */
export type Custody =
  | { readonly role: "mirror" | "in_transit"; readonly received: number; readonly vouched?: number }
  | { readonly role: "moved"; readonly to: string; readonly epoch: number; readonly seq: number; readonly vouched?: number };

/** Refuses a run this store does not own: RUN_MOVED (naming where it went), RUN_IN_TRANSIT or RUN_MIRROR. */
export function checkOwned(runId: RunId, c: Custody | undefined): void {
  if (c === undefined) return;
  throw c.role === "moved"
    ? new StoreError("RUN_MOVED", `run ${runId} moved to ${c.to} at event ${c.seq} (epoch ${c.epoch}): it is continued there`)
    : c.role === "in_transit"
      ? new StoreError("RUN_IN_TRANSIT", `run ${runId} is in transit here: it is driven here once its source seals the move`)
      : new StoreError("RUN_MIRROR", `run ${runId} is a read-only mirror here: it is owned elsewhere`);
}

/**
 * Checks a batch's seal, if it has one: `run.moved` only as the batch's
 * last event, naming a place, with an epoch above every token this store
 * handed out (`tokens`). Returns the custody after the batch (undefined:
 * still owned).
 */
export function checkSeal(runId: RunId, events: readonly JournalEvent[], tokens: number): Custody | undefined {
  const last = events[events.length - 1];
  for (const e of events) {
    if (e.type === "run.moved" && (e !== last || !e.to || !(Number.isSafeInteger(e.epoch) && e.epoch > tokens))) {
      throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} of run ${runId}: a seal ends its append, names a place, and has an epoch above ${tokens}`);
    }
  }
  // The owner wrote every event it seals: all of them are its own word.
  return last?.type === "run.moved" ? { role: "moved", to: last.to, epoch: last.epoch, seq: last.seq, vouched: last.seq } : undefined;
}
