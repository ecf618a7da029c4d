/**
 * The no-stranding invariant, as a check: no run may stay runnable with no
 * live lease for longer than a grace period. A runnable run is one a driver
 * could advance now: status `running` (an operator's answer to the last open
 * approval makes a waiting run running again).
 */
import type { RunId } from "../ids.js";
import { reduce, type RunStatus } from "../journal/index.js";
import type { LeaseView, Store } from "../store/index.js";

/** A run nothing drives: runnable, and without a live lease for longer than the grace period. */
export interface StrandedRun {
  readonly runId: RunId;
  /** Its status by its journal (`running`). */
  readonly status: RunStatus;
  /** What the store lists it as (an index may say `waiting` when the journal says otherwise). */
  readonly listedAs: RunStatus;
  /** Its lease as the store keeps it: expired, or null (none taken since, or released). */
  readonly lease: LeaseView | null;
  /** Since when it has been runnable with no live lease: the later of its lease's expiry and its last event (stamped by its writer's clock). */
  readonly since: number;
}

/** How `findStranded` judges a run stranded. */
export interface FindStrandedOptions {
  /**
   * How long a runnable run may go without a live lease before it counts as
   * stranded: at least the time its resumer needs to notice (a Durable
   * Object's alarm, a tab's resume loop), plus the time a busy machine adds.
   */
  readonly grace: number;
}

/**
 * Lists the runs of `store` that are stranded at `now` (by the store's
 * clock): runnable by their journal, and with no live lease since longer
 * than `grace` ms. Every run the store lists as not ended is judged by its
 * own journal, so an index that lags (lists a run as waiting that an
 * operator's answer made runnable) does not hide one. A Durable Object
 * deployment checks the alarm too: `RunIndex.stranded()`.
 *
 * @example
 * ```ts
 * expect(await findStranded(store, clock.now(), { grace: 5_000 })).toEqual([])
 * ```
 */
export async function findStranded(store: Store, now: number, options: FindStrandedOptions): Promise<StrandedRun[]> {
  if (typeof options.grace !== "number" || !(options.grace >= 0)) throw new TypeError("findStranded needs a grace period of 0 ms or more");
  const listed = await store.listRuns({ status: ["running", "waiting"] });
  const out: StrandedRun[] = [];
  for (const run of listed) {
    const state = reduce(await store.read(run.runId));
    if (state.status !== "running") continue;
    const lease = await store.lease(run.runId);
    if (lease !== null && lease.expiresAt > now) continue;
    // Runnable since its last event (an operator's answer may come after the
    // lease expired), leaseless since the lease's expiry: stranded since the later.
    const since = Math.max(lease?.expiresAt ?? Number.NEGATIVE_INFINITY, state.updatedAt);
    if (now - since > options.grace) out.push({ runId: run.runId, status: state.status, listedAs: run.status, lease, since });
  }
  return out;
}
