/**
 * A store's refusals: the codes and the error. A module of its own, below
 * the port and the custody rules, which both use it.
 *
 * @module
 */
import { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "../errors.js";

/** The codes a store refuses with. */
export const STORE_ERROR_CODES = [
  "JOURNAL_CONFLICT",
  "LEASE_NOT_HELD",
  "RUN_EXISTS",
  "RUN_NOT_FOUND",
  "STORE_INVALID_APPEND",
  "STORE_UNAVAILABLE",
  "STORE_QUOTA_EXCEEDED",
  "STORE_BLOCKED",
  "STORE_CLOSED",
  "RUN_MOVED",
  "RUN_IN_TRANSIT",
  "RUN_MIRROR",
  "RUN_OWNED",
] as const satisfies readonly IsoagentErrorCode[];

/** A code a store refuses with (a {@link StoreError}'s `code`): one of {@link STORE_ERROR_CODES}. */
export type StoreErrorCode = (typeof STORE_ERROR_CODES)[number];

/**
 * Store errors after which a driver must stop (the store cannot take writes
 * now), as opposed to the refusals it handles (a conflict, a lost lease).
 */
export const STORE_FAILURE_CODES: ReadonlySet<StoreErrorCode> = new Set(["STORE_UNAVAILABLE", "STORE_QUOTA_EXCEEDED", "STORE_BLOCKED", "STORE_CLOSED"]);

/** A store's refusal. For JOURNAL_CONFLICT, `actualSeq` is where the journal is. */
export class StoreError extends IsoagentError {
  declare readonly code: StoreErrorCode;
  readonly actualSeq: number | undefined;
  constructor(code: StoreErrorCode, message: string, details: { actualSeq?: number; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "StoreError";
    this.actualSeq = details.actualSeq;
  }
}

const STORE_CODES: ReadonlySet<string> = new Set(STORE_ERROR_CODES);

/** True for a {@link StoreError} from any copy of the library: `isIsoagentError` with one of {@link STORE_ERROR_CODES}. */
export function isStoreError(e: unknown): e is StoreError {
  return isIsoagentError(e) && STORE_CODES.has(e.code);
}
