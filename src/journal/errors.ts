import { IsoagentError, isIsoagentError } from "../errors.js";

/** A journal that cannot be read as one: an event out of place, or a broken hash chain. */
export class JournalError extends IsoagentError {
  declare readonly code: "JOURNAL_INVALID" | "JOURNAL_HASH_MISMATCH";
  constructor(code: "JOURNAL_INVALID" | "JOURNAL_HASH_MISMATCH", message: string) {
    super(code, message);
    this.name = "JournalError";
  }
}

/** True for a {@link JournalError} from any copy of the library: `isIsoagentError` with one of its two codes. */
export function isJournalError(e: unknown): e is JournalError {
  return isIsoagentError(e, "JOURNAL_INVALID") || isIsoagentError(e, "JOURNAL_HASH_MISMATCH");
}
