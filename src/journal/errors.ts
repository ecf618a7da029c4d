import { IsoagentError } from "../errors.js";

/** A journal that cannot be read as one: an event out of place, or a broken hash chain. */
export class JournalError extends IsoagentError {
  declare readonly code: "JOURNAL_INVALID" | "JOURNAL_HASH_MISMATCH";
  constructor(code: "JOURNAL_INVALID" | "JOURNAL_HASH_MISMATCH", message: string) {
    super(code, message);
    this.name = "JournalError";
  }
}
