/**
 * Results over Durable Object RPC: errors travel as data (code, message), so
 * a caller gets the same typed error it would get in process. (An Error's
 * own properties do not survive RPC.)
 */
import { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "../../src/index.js";
import { STORE_ERROR_CODES, StoreError, type StoreErrorCode } from "../../src/store/index.js";

/** A value or an isoagent error as data, as it crosses an RPC call between objects (an error's class does not survive the crossing; its code does). */
export type Wire<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string; readonly actualSeq?: number } };

const STORE_CODES = new Set<string>(STORE_ERROR_CODES);

/** Runs `f`, returning its value or its isoagent error as data (anything else is a bug: it throws). */
export async function wire<T>(f: () => T | Promise<T>): Promise<Wire<T>> {
  try {
    return { ok: true, value: await f() };
  } catch (e) {
    if (!isIsoagentError(e) || isIsoagentError(e, "CRASH")) throw e;
    const actualSeq = (e as { actualSeq?: unknown }).actualSeq;
    return { ok: false, error: { code: e.code, message: e.message, ...(typeof actualSeq === "number" ? { actualSeq } : {}) } };
  }
}

/** The value, or the typed error rebuilt on this side. */
export function unwire<T>(r: Wire<T>): T {
  if (r.ok) return r.value;
  const { code, message, actualSeq } = r.error;
  if (STORE_CODES.has(code)) throw new StoreError(code as StoreErrorCode, message, actualSeq === undefined ? {} : { actualSeq });
  throw new IsoagentError(code as IsoagentErrorCode, message);
}

/** An error as the logs say it: its message, or the thrown value as text. */
export const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
