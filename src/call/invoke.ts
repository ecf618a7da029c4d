/**
 * One call of a tool under its timeout: what it came to (its value, its
 * error, or an abort) and whether the timeout caused the abort. Used by the
 * driver's execution and by isoagent/mcp's server, which runs a call through
 * the same pieces.
 */
import { after, type AbortControllerLike } from "../web.js";

/** What a call came to; an abort says whether the timeout caused it. */
export type RawOutcome = { kind: "value"; value: unknown } | { kind: "error"; error: unknown } | { kind: "aborted"; timedOut: boolean };

/**
 * Calls `invoke` unless `controller` is already aborted, then waits for what
 * it returned, aborting `controller` after `timeoutMs`. A tool that answers
 * synchronously cannot be interrupted: no timer. A call that throws is an
 * error, as a rejected promise is.
 */
export async function invokeTool(invoke: () => unknown, controller: AbortControllerLike, timeoutMs: number): Promise<RawOutcome> {
  let returned: unknown;
  try {
    returned = controller.signal.aborted ? undefined : invoke();
  } catch (error) {
    returned = Promise.reject(error);
  }
  if (controller.signal.aborted) return { kind: "aborted", timedOut: false };
  if (typeof (returned as { then?: unknown } | null)?.then !== "function") return { kind: "value", value: returned };
  let timedOut = false;
  const cancelTimer = after(timeoutMs, () => {
    timedOut = true;
    controller.abort(new Error("timeout"));
  });
  try {
    return await new Promise<RawOutcome>((resolve) => {
      const aborted = (): void => resolve({ kind: "aborted", timedOut });
      controller.signal.addEventListener("abort", aborted, { once: true });
      if (controller.signal.aborted) aborted();
      (returned as Promise<unknown>).then(
        (value) => resolve({ kind: "value", value }),
        (error: unknown) => resolve({ kind: "error", error }),
      );
    });
  } finally {
    cancelTimer();
  }
}
