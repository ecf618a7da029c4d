/**
 * The rules of copies, shared by every store that takes part in moves: what
 * an import may write into a copy of a run, what the copy is after it, and
 * what abandoning a move leaves.
 * Not part of the core's index (only moves need it): isoagent/move exports
 * it, and the adapters import it from here.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { checkChain, checkFirst } from "./checks.js";
import type { Custody } from "./custody.js";
import { StoreError, type ImportGuard } from "./port.js";

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
export function checkImport(
  runId: RunId,
  run: { readonly custody: Custody | undefined; readonly seq: number; readonly hash: string } | undefined,
  events: readonly JournalEvent[],
  expectedSeq: number,
): void {
  const first = events[0];
  if (run === undefined) {
    if (expectedSeq !== 0) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
    if (first === undefined || first.type !== "run.created" || first.runId !== runId) throw new StoreError("STORE_INVALID_APPEND", `an import creates run ${runId} with its run.created`);
    checkFirst(first);
    if (events.length > 1) checkChain(runId, events.slice(1), 1, first, true);
    return;
  }
  if (expectedSeq === 0) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
  if (run.custody === undefined) throw new StoreError("RUN_OWNED", `run ${runId} is owned here: it grows by its own appends, never by an import`);
  // (A copy takes any event: the lease it was written under is the owner's, not this store's.)
  checkChain(runId, events, expectedSeq, run, true);
}

/**
 * A copy's custody after an import: owned (undefined) when the events end
 * with a seal naming this store's place (followed only by the `guard.own`
 * events this store writes as it takes the run over); moved when they end
 * with a seal naming another; otherwise what was asked for, except that a
 * mirror's push leaves a run in transit in transit. A copy keeps the
 * highest seq vouched for (its own, or `guard.vouched`). STORE_INVALID_APPEND
 * for own events that do not follow a seal naming this place, or that seal
 * or create the run themselves.
 */
export function custodyAfterImport(current: Custody | undefined, events: readonly JournalEvent[], guard: ImportGuard, now: number): Custody | undefined {
  const own = guard.own ?? 0;
  const last = events[events.length - 1 - own];
  if (own > 0 && (last?.type !== "run.moved" || last.to !== guard.here || events.slice(-own).some((e) => e.type === "run.moved" || e.type === "run.created"))) {
    throw new StoreError("STORE_INVALID_APPEND", `the events a store writes as it takes a run over must follow the seal naming it (${guard.here ?? "no place"}), and neither seal nor create the run`);
  }
  if (last?.type === "run.moved" && last.to === guard.here) return undefined;
  const vouched = Math.max(current?.vouched ?? 0, guard.vouched ?? 0);
  const kept = vouched > 0 ? { vouched } : {};
  return last?.type === "run.moved"
    ? { role: "moved", to: last.to, epoch: last.epoch, seq: last.seq, ...kept }
    : { role: current?.role === "in_transit" ? current.role : guard.role, received: now, ...kept };
}

/**
 * The import sequence (the Store port's importEvents): the import must be
 * one a copy takes ({@link checkImport}; `run` is the store's record of the
 * run, undefined when it has none), and its own events must follow a seal
 * naming this place ({@link custodyAfterImport}). Throws the refusal;
 * otherwise returns what to write with the events, in one transaction: the
 * copy's custody after them (undefined: this store now owns the run) and its
 * fencing counter (`tokens`, never below a token or epoch they name).
 */
export function planImport(
  runId: RunId,
  run: { readonly custody?: Custody | undefined; readonly head: { readonly seq: number; readonly hash: string }; readonly tokens: number } | undefined,
  events: readonly JournalEvent[],
  guard: ImportGuard,
  now: number,
): { readonly custody: Custody | undefined; readonly tokens: number } {
  checkImport(runId, run && { custody: run.custody, ...run.head }, events, guard.expectedSeq);
  return { custody: custodyAfterImport(run?.custody, events, guard, now), tokens: tokensAfter(run?.tokens ?? 0, events) };
}

/**
 * The custody abandoning a move leaves (the Store port's abandonTransit): a
 * run in transit becomes a mirror, keeping what it was vouched for;
 * undefined for any other copy, or an owned run (nothing to abandon).
 */
export function abandoned(current: Custody | undefined): Custody | undefined {
  return current?.role === "in_transit" ? { ...current, role: "mirror" } : undefined;
}
