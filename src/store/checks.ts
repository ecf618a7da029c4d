/**
 * The checks every store makes of an append, and the lease rule (acquire,
 * renew, release), shared so that stores refuse the same things with the
 * same errors and hand out leases by one rule. Each is a pure function of
 * the run's record as the store holds it and the store's clock; the store
 * only reads the record and writes back what the rule returns, in one
 * transaction.
 */
import type { RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import { OPERATOR_EVENT_TYPES, type JournalEvent } from "../journal/index.js";
import { StoreError, type AppendGuard, type Lease, type LeaseView, type RunFilter } from "./port.js";

/** A run's title in lists: its task's first non-empty line (a task that is not a string, as JSON), at most 120 characters. */
export function taskTitle(task: JsonValue | undefined): string {
  const text = (typeof task === "string" ? task.trim().split("\n")[0]! : (JSON.stringify(task) ?? "")).trim();
  // Cut, never inside a surrogate pair.
  return text.length > 120 ? `${text.slice(0, 119).replace(/[\ud800-\udbff]$/, "")}…` : text;
}

/** Whether a run comes after `before` in a listing (most recently updated first, then by run id). */
export function listedAfter(r: { readonly updatedAt: number; readonly runId: string }, before: RunFilter["before"]): boolean {
  return before === undefined || r.updatedAt < before.updatedAt || (r.updatedAt === before.updatedAt && r.runId > before.runId);
}

/** Whether `current` (the run's lease record) is the lease with `token`, unexpired at `now` (the store's clock). */
export function leaseHeld(current: Lease | undefined, token: number, now: number): boolean {
  return current !== undefined && current.token === token && current.expiresAt > now;
}

/**
 * The lease rule's acquire: a new lease for `owner` when nobody holds the
 * run's lease unexpired, or `owner` itself does, or its holder is known dead
 * (`dead`, e.g. an earlier incarnation of a Durable Object's own host); null
 * otherwise. The new token is `tokens + 1` (`tokens`: the last one handed
 * out for the run), so tokens strictly increase. A lease that replaces one
 * never released says so (`took`: who held it, until when).
 */
export function leaseAcquire(
  current: Lease | undefined,
  tokens: number,
  request: { readonly runId: RunId; readonly owner: string; readonly ttlMs: number; readonly now: number; readonly dead?: ((holder: string) => boolean) | undefined },
): Lease | null {
  const { runId, owner, ttlMs, now } = request;
  if (current !== undefined && current.expiresAt > now && current.owner !== owner && request.dead?.(current.owner) !== true) return null;
  // A lease still recorded was never released: its holder stopped without letting go.
  return Object.freeze({ runId, owner, token: tokens + 1, expiresAt: now + ttlMs, ...(current === undefined ? {} : { took: { holder: current.owner, expiresAt: current.expiresAt } }) });
}

/** The lease rule's renew: the lease extended to `now + ttlMs` while it is still held (same token, unexpired); null once it is lost. */
export function leaseRenew(current: Lease | undefined, lease: Lease, ttlMs: number, now: number): Lease | null {
  if (current === undefined || !leaseHeld(current, lease.token, now)) return null;
  return Object.freeze({ ...current, expiresAt: now + ttlMs });
}

/** The lease rule's release: true when `lease` is the run's current lease (the store then drops it); a stale lease releases nothing. */
export function leaseRelease(current: Lease | undefined, lease: Lease): boolean {
  return current !== undefined && current.token === lease.token;
}

/**
 * A run's lease as the store shows it: who holds it and until when (by the
 * store's clock), or null when none was taken or it was released. An expired
 * lease is shown with its expiry in the past: the run has had no live lease
 * since then.
 */
export function leaseView(current: Lease | undefined): LeaseView | null {
  return current === undefined ? null : { holder: current.owner, expiresAt: current.expiresAt };
}

/** The lease check: `current` is the run's lease record, `now` the store's clock. */
export function checkLease(runId: RunId, guard: AppendGuard, current: Lease | undefined, now: number): void {
  if (guard.lease === undefined) return;
  const held = leaseHeld(current, guard.lease.token, now);
  if (!held) {
    throw new StoreError("LEASE_NOT_HELD", `the lease on run ${runId} with token ${guard.lease.token} is not held (stale or expired)`);
  }
}

/** The sequence check, then the shape of the batch: a chain following the head, operator-only without a lease. */
export function checkBatch(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, head: { seq: number; hash: string }): void {
  checkChain(runId, events, guard.expectedSeq, head, guard.lease !== undefined);
}

/**
 * {@link checkBatch}'s rule, with `leased` saying whether the batch may hold
 * any event (an append under the run's lease, or an import into a copy: its
 * owner wrote it under its own leases) or operator events only.
 */
export function checkChain(runId: RunId, events: readonly JournalEvent[], expectedSeq: number, head: { readonly seq: number; readonly hash: string }, leased: boolean): void {
  if (expectedSeq !== head.seq) {
    throw new StoreError("JOURNAL_CONFLICT", `run ${runId} is at event ${head.seq}, not ${expectedSeq}`, { actualSeq: head.seq });
  }
  if (events.length === 0) throw new StoreError("STORE_INVALID_APPEND", `an append to run ${runId} has no events`);
  let seq = head.seq;
  let prev = head.hash;
  for (const e of events) {
    if (e.seq !== seq + 1 || e.prev !== prev || typeof e.hash !== "string") {
      throw new StoreError("STORE_INVALID_APPEND", `event ${e.seq} of an append to run ${runId} does not follow event ${seq}`);
    }
    if (e.type === "run.created") throw new StoreError("STORE_INVALID_APPEND", `an append to run ${runId} creates it again`);
    if (!leased && !OPERATOR_EVENT_TYPES.has(e.type)) {
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
