/**
 * What a destination does with the decisions a run brings when a move
 * hands it over (see docs/moves.md, "Trust"). Unless a key it trusts
 * vouched for the whole history up to the seal, the destination takes none
 * of them: every call of the current step that is not pending and not yet
 * observed (let through, approved, waiting for an approval, started,
 * settled to run again, waiting for its reconciliation) is reopened by an
 * event the destination writes in the same import as the seal, so its own
 * gate decides it (its policy, its operator) and, for a call that had
 * started, its own recovery decides whether it runs again.
 */
import type { Clock } from "../clock.js";
import { apply, JOURNAL_VERSION, sealAll, type JournalEvent, type RunMoved, type RunState, type UnsealedEvent } from "../journal/index.js";

const label = (name: string): string => JSON.stringify(name.length > 128 ? `${name.slice(0, 128)}…` : name);

/**
 * The events the destination `here` writes after the seal `moved` of a run
 * nobody it trusts vouched for: one `call.reopened` per call to decide
 * again, sealed after `state`'s head and applied to it (so `state` is the
 * run as the import leaves it). None when nothing is left to decide.
 */
export function decideAgain(state: RunState, moved: RunMoved, here: string, clock: Clock): JournalEvent[] {
  const current = state.current;
  if (current === null || current.done) return [];
  const reason = `the run came from ${label(moved.from)}, which ${label(here)} does not trust to decide for it (no key it trusts vouched for the run up to its move here): this call is decided here again`;
  const events: UnsealedEvent[] = current.calls
    .filter((c) => c.status !== "pending" && c.status !== "done")
    .map((c) => ({ v: JOURNAL_VERSION, at: clock.now(), type: "call.reopened", step: current.step, callId: c.callId, reason }));
  const sealed = sealAll(events, state.seq, state.hash);
  for (const e of sealed) apply(state, e);
  return sealed;
}
