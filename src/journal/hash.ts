/**
 * The hash chain: each event's hash is the SHA-256 of its canonical JSON
 * (without `hash`), which includes `prev`, the previous event's hash. Any
 * edit, insertion, removal or reordering breaks every hash after it.
 */
import { hashJsonSync } from "../json/index.js";
import { JournalError } from "./errors.js";
import type { JournalEvent, UnsealedEvent } from "./events.js";

/** The hash an event must carry. */
export function eventHash(e: Omit<JournalEvent, "hash">): string {
  return hashJsonSync(e);
}

/** Seals an event at `seq` after an event whose hash is `prev`. */
export function seal(e: UnsealedEvent, seq: number, prev: string): JournalEvent {
  const sealed = { ...e, seq, prev } as Omit<JournalEvent, "hash"> & { hash?: string };
  // Hashed before the hash is added (one copy of the event, not two).
  sealed.hash = eventHash(sealed);
  return sealed as JournalEvent;
}

/** Seals events to follow an event (`seq`, `hash`): the batch an append writes. */
export function sealAll(events: readonly UnsealedEvent[], afterSeq: number, afterHash: string): JournalEvent[] {
  const out: JournalEvent[] = [];
  let prev = afterHash;
  for (let k = 0; k < events.length; k++) {
    const sealed = seal(events[k]!, afterSeq + k + 1, prev);
    out.push(sealed);
    prev = sealed.hash;
  }
  return out;
}

/**
 * Checks that events form a chain (each at the next seq, naming the previous
 * hash, with its own hash right), following an event (`afterSeq`,
 * `afterHash`); throws {@link JournalError} at the first break.
 */
export function verifyChain(events: readonly JournalEvent[], afterSeq = 0, afterHash = ""): void {
  let seq = afterSeq;
  let prev = afterHash;
  for (const e of events) {
    if (e.seq !== seq + 1) throw new JournalError("JOURNAL_HASH_MISMATCH", `event ${e.seq} is out of sequence after ${seq}`);
    if (e.prev !== prev) throw new JournalError("JOURNAL_HASH_MISMATCH", `event ${e.seq} does not follow the hash of event ${seq}`);
    const { hash, ...rest } = e;
    if (eventHash(rest) !== hash) throw new JournalError("JOURNAL_HASH_MISMATCH", `event ${e.seq} does not match its hash`);
    seq = e.seq;
    prev = hash;
  }
}
