/**
 * The store engine: the rules of a store's writes, once, as pure functions
 * of what the store read in its transaction and its clock. A store does the
 * I/O: it reads the run's record, calls the rule, and writes back what the
 * rule returns (or aborts on the refusal the rule throws), in one
 * transaction. The rules themselves are in checks.ts and custody.ts; the
 * rules of copies (imports, abandoning a transit) are in copies.ts, which
 * only moves need.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { checkChain, checkLease, listedAfter } from "./checks.js";
import { checkOwned, checkSeal, type Custody } from "./custody.js";
import type { AppendGuard, Lease, RunFilter, RunSummary } from "./port.js";

/** A run's record as an append's rules read it. */
export interface AppendTarget {
  /** The run's custody here: undefined while the store owns it. */
  readonly custody?: Custody | undefined;
  /** The run's lease record, as kept (possibly expired). */
  readonly lease?: Lease | undefined;
  /** The last fencing token the store handed out for the run. */
  readonly tokens: number;
  /**
   * The run's head: the one read in the store's transaction, or one the
   * store proved still is (the IndexedDB store's trusted appends: the head it
   * remembers, which the journal record's key proves).
   */
  readonly head: { readonly seq: number; readonly hash: string };
}

/**
 * The append sequence: the run must be owned here, its lease held (when the
 * guard names one, by `now`, the store's clock), the batch a chain following
 * the head, a seal only at its end. Throws the refusal (a StoreError).
 * Otherwise the store writes the events, the run's head after them (their
 * last event's seq, hash and time) and the status, in one transaction, and
 * with them what this returns: the custody a seal (run.moved) leaves, when
 * the batch ends with one; the store then drops the run's lease in the same
 * transaction (the seal ends the run's ownership here). Undefined: the run
 * is still owned here.
 */
export function planAppend(runId: RunId, run: AppendTarget, events: readonly JournalEvent[], guard: AppendGuard, now: number): Custody | undefined {
  checkOwned(runId, run.custody);
  checkLease(runId, guard, run.lease, now);
  checkChain(runId, events, guard.expectedSeq, run.head, guard.lease !== undefined);
  return checkSeal(runId, events, run.tokens);
}

/** A listing of runs: those `filter` keeps (status, after `before`), most recently updated first, then by run id, at most `limit`. */
export function listing(runs: readonly RunSummary[], filter: RunFilter): RunSummary[] {
  return (
    runs
      .filter((r) => (filter.status === undefined || filter.status.includes(r.status)) && listedAfter(r, filter.before))
      .sort((a, b) => b.updatedAt - a.updatedAt || (a.runId < b.runId ? -1 : 1))
      // (slice(0, undefined) keeps them all.)
      .slice(0, filter.limit)
  );
}
