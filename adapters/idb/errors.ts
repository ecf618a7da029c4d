/**
 * IndexedDB's failures as the store's typed errors, at the adapter's
 * boundary: nothing was written when one is thrown (a transaction that
 * fails is rolled back whole).
 */
import { StoreError } from "../../src/store/index.js";
import { isStoreError } from "../../src/store/errors.js";

/** The DOMException's name, when `e` has one. */
export function errorName(e: unknown): string | undefined {
  const name = typeof e === "object" && e !== null ? (e as { name?: unknown }).name : undefined;
  return typeof name === "string" ? name : undefined;
}

/** Throws `e` as a {@link StoreError} (a StoreError as it is). */
export function translate(e: unknown, what: string): never {
  throw typed(e, what);
}

/** `e` as a {@link StoreError}. */
export function typed(e: unknown, what: string): StoreError {
  if (isStoreError(e)) return e;
  const name = errorName(e);
  if (name === "QuotaExceededError") return new StoreError("STORE_QUOTA_EXCEEDED", `${what}: the browser's storage quota is exhausted; nothing was written`, { cause: e });
  if (name === "InvalidStateError" || name === "TransactionInactiveError") {
    return new StoreError("STORE_CLOSED", `${what}: the database connection is closed (another tab upgraded or deleted it); reload the page`, { cause: e });
  }
  return new StoreError("STORE_UNAVAILABLE", `${what}: IndexedDB failed (${name ?? "unknown error"}); nothing was written`, { cause: e });
}
