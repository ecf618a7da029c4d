/** Sealing events for the conformance suites: a chain that follows a head. */
import { seal, type JournalEvent, type UnsealedEvent } from "../journal/index.js";

/** Seals `events` one after another, the first after `head`. */
export function sealAfter(head: { seq: number; hash: string }, events: UnsealedEvent[]): JournalEvent[] {
  const out: JournalEvent[] = [];
  let prev = head;
  for (const e of events) {
    const s = seal(e, prev.seq + 1, prev.hash);
    out.push(s);
    prev = s;
  }
  return out;
}
