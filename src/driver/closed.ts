/**
 * What a turn that ends before its step does closes (v5): the calls of the
 * step not yet observed, each with what the agent is shown of it. The
 * session writes them when it stops a turn or a limit ends one; a stop
 * made without the lease writes them too (turns.ts).
 */
import type { ClosedCall, RunState } from "../journal/index.js";
import { interruptedObservation, stoppedObservation } from "../call/observations.js";
import type { DriverContext } from "./context.js";

/**
 * The calls a stopped turn closes, each with what the agent is shown: one
 * that never started did not run; one that started and never reported (its
 * driver is gone, or elsewhere and still running it) is interrupted, told
 * by its side effect as any interruption is.
 */
export function closedCalls(ctx: DriverContext, state: RunState): ClosedCall[] {
  const current = state.current;
  if (current === null || current.done) return [];
  return current.calls
    .filter((c) => c.status !== "done")
    .map((c) => {
      const entry = ctx.tools.get(c.name);
      const started = c.status === "started" || c.status === "awaiting_reconciliation";
      return { callId: c.callId, observation: started && entry !== undefined ? interruptedObservation(entry.compiled) : stoppedObservation(c.name) };
    });
}
