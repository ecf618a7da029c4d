/**
 * The rules of copies, shared by every store that takes part in moves: what
 * an import may write into a copy of a run, and what the copy is after it.
 * Not part of the core's index (only moves need it): isoagent/move exports
 * it, and the adapters import it from here.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { checkBatch, checkFirst } from "./checks.js";
import type { Custody } from "./custody.js";
import { StoreError } from "./port.js";

/** The largest lease token or move epoch `events` name, or `tokens` when larger: a store's fencing counter after importing them. */
export function tokensAfter(tokens: number, events: readonly JournalEvent[]): number {
  for (const e of events) tokens = Math.max(tokens, e.type === "run.resumed" ? e.token : e.type === "run.moved" ? e.epoch : 0);
  return tokens;
}

/**
 * Whether a store may import `events` into a run: never into a run it owns
 * (`run` is the store's record of it: custody and head, or undefined when
 * it has none). The events must follow `expectedSeq`, the copy's head (0
 * creates the run: they start with its `run.created`), each linking to the
 * one before; the caller verified their hashes.
 */
export function checkImport(runId: RunId, run: { readonly custody: Custody | undefined; readonly seq: number; readonly hash: string } | undefined, events: readonly JournalEvent[], expectedSeq: number): void {
  const first = events[0];
  if (run === undefined) {
    if (expectedSeq !== 0) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
    if (first === undefined || first.type !== "run.created" || first.runId !== runId) throw new StoreError("STORE_INVALID_APPEND", `an import creates run ${runId} with its run.created`);
    checkFirst(first);
    if (events.length > 1) checkBatch(runId, events.slice(1), { expectedSeq: 1, lease: first as never }, first);
    return;
  }
  if (expectedSeq === 0) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
  if (run.custody === undefined) throw new StoreError("RUN_OWNED", `run ${runId} is owned here: it grows by its own appends, never by an import`);
  // (A copy takes any event: the lease it was written under is the owner's, not this store's.)
  checkBatch(runId, events, { expectedSeq, lease: first as never }, run);
}

/**
 * A copy's custody after an import: owned (undefined) when the events end
 * with a seal naming this store's place; moved when they end with a seal
 * naming another; otherwise what was asked for, except that a mirror's push
 * leaves a run in transit in transit.
 */
export function custodyAfterImport(current: Custody | undefined, events: readonly JournalEvent[], role: "mirror" | "in_transit", here: string | undefined, now: number): Custody | undefined {
  const last = events[events.length - 1]!;
  return last.type === "run.moved"
    ? last.to === here
      ? undefined
      : { role: "moved", to: last.to, epoch: last.epoch, seq: last.seq }
    : { role: current?.role === "in_transit" ? current.role : role, received: now };
}
