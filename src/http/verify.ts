/**
 * The check behind GET /runs/:id/verify: the run's whole hash chain,
 * re-verified from its first event, event by event, so that the operator
 * learns the first seq where it breaks (an edited, missing, inserted or
 * reordered event breaks every hash after it).
 */
import { verifyChain, type JournalEvent } from "../journal/index.js";

/** What {@link verifyJournal} found: the chain whole (with its head, the last event's hash), or the first seq where it breaks. */
export type ChainCheck = { readonly ok: true; readonly events: number; readonly head: string } | { readonly ok: false; readonly events: number; readonly seq: number; readonly problem: string };

/** Verifies a journal's hash chain from its first event (each event at the next seq, naming the previous hash, with its own hash right). */
export function verifyJournal(events: readonly JournalEvent[]): ChainCheck {
  let seq = 0;
  let prev = "";
  for (const e of events) {
    try {
      verifyChain([e], seq, prev);
    } catch (err) {
      return { ok: false, events: events.length, seq: seq + 1, problem: err instanceof Error ? err.message : String(err) };
    }
    seq = e.seq;
    prev = e.hash;
  }
  return { ok: true, events: events.length, head: prev };
}
