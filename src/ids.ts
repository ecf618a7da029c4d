/**
 * Branded ids, so that a run id is never passed where a call id belongs, and
 * the id source port that mints run ids.
 *
 * @module
 */
import { randomUuid } from "./web.js";

declare const runIdBrand: unique symbol;
declare const callIdBrand: unique symbol;
declare const approvalIdBrand: unique symbol;

/** The id of a run. Minted by an {@link IdSource} or {@link parseRunId}. */
export type RunId = string & { readonly [runIdBrand]: true };
/** The id of a call within a run (the model's, or `s<step>c<index>`). */
export type CallId = string & { readonly [callIdBrand]: true };
/** The id of an approval request within a run. */
export type ApprovalId = string & { readonly [approvalIdBrand]: true };

/**
 * The one rule for every id isoagent keeps (runs, calls, approvals, bundle
 * keys): 1 to 128 of letters, digits, "_", ".", ":" or "-". As a pattern's
 * source, for JSON Schemas that say it.
 */
export const ID_PATTERN_SOURCE = "^[A-Za-z0-9_.:-]{1,128}$";
/** {@link ID_PATTERN_SOURCE} as a RegExp (a literal, so that a bundle leaves it out where it is not used; test/ids.test.ts holds the two to each other). */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Each character an id may not hold (global): `text.replace(NOT_ID_CHARS, "_")` makes one out of any text. */
export const NOT_ID_CHARS = /[^A-Za-z0-9_.:-]/g;

/** Whether a value is an id by {@link ID_PATTERN}. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}

function parseId<T extends string>(kind: string, value: unknown): T {
  if (!isId(value)) {
    throw new TypeError(`${kind} must be 1 to 128 of letters, digits, "_", ".", ":" or "-", not ${JSON.stringify(value) ?? String(value)}`);
  }
  return value as T;
}

/** Checks a string as a run id. */
export const parseRunId = (value: unknown): RunId => parseId<RunId>("a run id", value);
/** Checks a string as a call id. */
export const parseCallId = (value: unknown): CallId => parseId<CallId>("a call id", value);
/** Checks a string as an approval id. */
export const parseApprovalId = (value: unknown): ApprovalId => parseId<ApprovalId>("an approval id", value);

/** Where new run ids come from. Inject a deterministic one in tests. */
export interface IdSource {
  runId(): RunId;
}

/** Run ids from `crypto.randomUUID` (the default). */
export function randomIds(): IdSource {
  return { runId: () => `run_${randomUuid()}` as RunId };
}

/** Run ids `run_1`, `run_2`, ... (deterministic, for tests and demos). */
export function sequentialIds(prefix = "run_"): IdSource {
  let n = 0;
  return { runId: () => parseRunId(`${prefix}${++n}`) };
}
