import type { CallId, RunId } from "../ids.js";

/** The idempotency key of a call: the same for every attempt of one call (run, step, call). */
export function idempotencyKey(runId: RunId, step: number, callId: CallId): string {
  return `${runId}:${step}:${callId}`;
}
