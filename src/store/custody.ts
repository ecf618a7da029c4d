/**
 * Custody: whether a store owns a run, and the one rule every store applies
 * to it (isoagent/move). A store owns a run it created, or one a verified
 * import handed it (events ending with a `run.moved` naming its place); it
 * stops owning it by appending `run.moved` (the seal of a move). A run it
 * does not own is a copy: a read-only mirror, a run in transit (imported
 * for a move whose seal has not arrived), or a run that moved away. Only an
 * owner takes appends and hands out leases, so two stores can own a run
 * only if both saw a seal naming them, and a run is sealed once per owner.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { StoreError } from "./port.js";

/**
 * A run's custody in one store when the store does not own it (a store owns
 * the runs it keeps no custody for). `received` is the store's clock at the
 * last import into the copy (a mirror's lag is that, less its last event's
 * time).
 */
export type Custody =
  | { readonly role: "mirror" | "in_transit"; readonly received: number }
  | { readonly role: "moved"; readonly to: string; readonly epoch: number; readonly seq: number };

/** Refuses a run this store does not own: RUN_MOVED (naming where it went), RUN_IN_TRANSIT or RUN_MIRROR. */
export function checkOwned(runId: RunId, custody: Custody | undefined): void {
  if (custody === undefined) return;
  if (custody.role === "moved") {
    throw new StoreError("RUN_MOVED", `run ${runId} moved to ${custody.to} at event ${custody.seq} (epoch ${custody.epoch}): it is continued there, and this store takes nothing more for it`);
  }
  if (custody.role === "in_transit") {
    throw new StoreError("RUN_IN_TRANSIT", `run ${runId} is in transit to this store: it is not driven here until its source seals the move (run.moved)`);
  }
  throw new StoreError("RUN_MIRROR", `run ${runId} is a read-only mirror here: it is owned elsewhere, and driven here only once a move hands it over`);
}

/**
 * Checks a batch's seal, if it has one: `run.moved` only as the batch's
 * last event, naming a place, with an epoch above every token this store
 * handed out (`tokens`). Returns the custody after the batch (undefined:
 * still owned).
 */
export function checkSeal(runId: RunId, events: readonly JournalEvent[], tokens: number): Custody | undefined {
  for (let k = 0; k < events.length; k++) {
    const e = events[k]!;
    if (e.type !== "run.moved") continue;
    if (k !== events.length - 1) throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} (run.moved) of run ${runId} is not the last of its append: nothing follows a seal`);
    if (typeof e.to !== "string" || e.to === "" || !Number.isSafeInteger(e.epoch) || e.epoch <= tokens) {
      throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} (run.moved) of run ${runId} must name a place and an epoch above ${tokens}, the last lease token this store handed out`);
    }
    return { role: "moved", to: e.to, epoch: e.epoch, seq: e.seq };
  }
  return undefined;
}

/** The largest lease token or move epoch `events` name, or `tokens` when larger: a store's fencing counter after importing them. */
export function tokensAfter(tokens: number, events: readonly JournalEvent[]): number {
  let max = tokens;
  for (const e of events) {
    const t = e.type === "run.resumed" ? e.token : e.type === "run.moved" ? e.epoch : 0;
    if (Number.isSafeInteger(t) && t > max) max = t;
  }
  return max;
}

/**
 * Whether a store may import `events` into a run: never into a run it owns
 * (`run` is the store's record of it: custody and head, or undefined when
 * it has none). The events must follow `expectedSeq`, which must be the
 * copy's head (0 creates the run: then they start with its `run.created`),
 * each linking to the one before; the caller verified their hashes.
 */
export function checkImport(runId: RunId, run: { readonly custody: Custody | undefined; readonly seq: number; readonly hash: string } | undefined, events: readonly JournalEvent[], expectedSeq: number): void {
  if (run === undefined) {
    if (expectedSeq !== 0) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
  } else {
    if (expectedSeq === 0) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
    if (run.custody === undefined) throw new StoreError("RUN_OWNED", `run ${runId} is owned by this store: its journal grows by its own appends only, never by an import`);
    if (expectedSeq !== run.seq) throw new StoreError("JOURNAL_CONFLICT", `run ${runId} is at event ${run.seq}, not ${expectedSeq}`, { actualSeq: run.seq });
  }
  if (events.length === 0) throw new StoreError("STORE_INVALID_APPEND", `an import into run ${runId} has no events`);
  let seq = run?.seq ?? 0;
  let prev = run?.hash ?? "";
  for (const e of events) {
    const first = seq === 0;
    if (e.seq !== seq + 1 || e.prev !== prev || typeof e.hash !== "string" || (e.type === "run.created") !== first || (e.type === "run.created" && e.runId !== runId)) {
      throw new StoreError("STORE_INVALID_APPEND", first ? `an import creates run ${runId} with its run.created at seq 1` : `event ${e.seq} of an import into run ${runId} does not follow event ${seq}`);
    }
    seq = e.seq;
    prev = e.hash;
  }
}

/**
 * A copy's custody after an import: owned (undefined) when the events end
 * with a seal naming this store's place; moved when they end with a seal
 * naming another; otherwise what was asked for, except that a mirror's push
 * leaves a run in transit in transit.
 */
export function custodyAfterImport(current: Custody | undefined, events: readonly JournalEvent[], role: "mirror" | "in_transit", here: string | undefined, now: number): Custody | undefined {
  const last = events[events.length - 1];
  if (last?.type === "run.moved") {
    if (here !== undefined && last.to === here) return undefined;
    return { role: "moved", to: last.to, epoch: last.epoch, seq: last.seq };
  }
  return { role: current?.role === "in_transit" && role === "mirror" ? "in_transit" : role, received: now };
}
