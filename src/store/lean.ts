/**
 * The lean form of a batch of events, as the persistent stores keep one
 * append: the events without what the chain makes redundant (each event's
 * `seq`, given by the record's key, the seq of its first event; its `prev`,
 * the hash before it, kept once for the record), their hashes beside them.
 * The hashed form of an event never changes: a lean record decodes to the
 * same events, key order included, that were appended. (Used by the
 * IndexedDB store and the Durable Object's SQLite; not by the memory store.)
 */
import type { JournalEvent } from "../journal/index.js";

/** An event as a lean record keeps it: without `seq`, `prev` and `hash`. */
export type EventBody = Omit<JournalEvent, "seq" | "prev" | "hash">;

/** A batch of events, lean. */
export interface LeanEvents {
  /** The first event's `prev`. */
  readonly p: string;
  /** The events' hashes, in order. */
  readonly h: readonly string[];
  /** The events, without `seq`, `prev` and `hash`. */
  readonly e: readonly EventBody[];
}

/** The lean form of `events` (at least one). */
export function encodeLean(events: readonly JournalEvent[]): LeanEvents {
  const h: string[] = [];
  const e: EventBody[] = [];
  for (const event of events) {
    const { seq: _seq, prev: _prev, hash, ...body } = event;
    h.push(hash);
    e.push(body);
  }
  return { p: events[0]!.prev, h, e };
}

/**
 * The events of a lean record keyed by `first`, from `from` on, pushed to
 * `out`: each body (a fresh object, just decoded from storage: it is changed
 * in place) gets back `seq`, `prev` and `hash`, in the order sealing gave them.
 */
export function decodeLean(record: LeanEvents, first: number, from: number, out: JournalEvent[]): void {
  const { e, h } = record;
  for (let k = Math.max(0, from - first); k < e.length; k++) {
    const event = e[k] as EventBody & { seq?: number; prev?: string; hash?: string };
    event.seq = first + k;
    event.prev = k === 0 ? record.p : h[k - 1]!;
    event.hash = h[k]!;
    out.push(event as JournalEvent);
  }
}
