/**
 * How a session stopped before its loop could end: one state, where there
 * were a flag for a lease lost, one for a crash and a store's failure
 * beside them, so that no two of them can be told at once. Its kind is
 * what the drive's outcome says (`RunOutcome.stopped`), and each reports
 * the run as the store holds it.
 *
 * - `lease_lost`: a renewal was refused or failed, or an append found the
 *   lease held by another. The session writes nothing more, and does not
 *   release what is no longer its lease. It replaces a store's failure:
 *   a store's failure met after it leaves it as it is.
 * - `crashed`: the testkit's `Crash`, thrown anywhere. Nothing more is
 *   written or released, as after a real crash. It replaces a lease lost.
 * - `store_error`: the store cannot take writes (quota, a closed
 *   database). Its error is the outcome's; the release is tried, and may
 *   fail too.
 *
 * A run that ended under the session (an operator cancelled it) is no stop
 * of the session: the run's status says it, and the loop stops there.
 */
import { IsoagentError } from "../errors.js";

/** How a session stopped, when it did. */
export type Stop = { readonly kind: "lease_lost" | "crashed"; readonly error?: undefined } | { readonly kind: "store_error"; readonly error: { readonly code: string; readonly message: string } };

/** Thrown inside a session when its lease is gone: it must stop writing at once. */
export const leaseLost = (): IsoagentError => new IsoagentError("LEASE_LOST", "");
/** Thrown inside a session when the driver's own signal is aborted. */
export const signalled = (): IsoagentError => new IsoagentError("RUN_INTERRUPTED", "");
