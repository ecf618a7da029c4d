/**
 * A write that lost the race for the journal's head (JOURNAL_CONFLICT: an
 * operator's answer, another writer's append landed first) reads the
 * journal again and tries once more, a bounded number of times. The rule
 * of the session's journal writer, the operator's appends and a move's
 * seal, written once (issue 28, item 6); each keeps its own loop, which
 * reads the journal again its own way.
 */
import { isIsoagentError } from "../errors.js";

/** How many times a write that met JOURNAL_CONFLICT is tried again (nine tries in all). */
export const CONFLICT_RETRIES = 8;

/** Whether a write that failed with `e` on its try number `attempt` (from 0) is tried again: a conflict, with tries left. */
export function triesAgain(e: unknown, attempt: number): boolean {
  return isIsoagentError(e, "JOURNAL_CONFLICT") && attempt < CONFLICT_RETRIES;
}
