/**
 * What one call's outcome comes to for the agent: a tool's value, error,
 * abort or timeout made the observation it is shown (cleaned, redacted,
 * capped). One classification for the driver's execution (execute.ts) and
 * isoagent/mcp's server (mcp/server/call.ts).
 */
import type { JsonValue } from "../json/index.js";
import type { Observation } from "../journal/index.js";
import { isAbortRun, isPermissionDenied, type CompiledTool } from "../tools/index.js";
import { isCrash } from "./crash.js";
import { isToolError } from "./gate.js";
import type { RawOutcome } from "./invoke.js";
import {
  abortDetail,
  abortObservation,
  interruptedObservation,
  observeContent,
  policyDeniedObservation,
  timeoutObservation,
  toolErrorObservation,
  unexpectedErrorObservation,
} from "./observations.js";
import type { Projection } from "./projection.js";

/**
 * A call's outcome, classified: the observation the agent is shown, and
 * besides it a success's content (`ok`, `value`), the detail of the tool's
 * `abortRun` (cleaned and redacted), or that the call was interrupted
 * otherwise than by its timeout. Anything else (a timeout, a denial, a
 * tool's error, an unexpected failure, content that could not be shown) is
 * the observation alone.
 */
export type ClassifiedOutcome =
  | { readonly ok: true; readonly observation: Observation; readonly value: JsonValue }
  | { readonly ok?: undefined; readonly observation: Observation; readonly abort?: string; readonly interrupted?: true };

/**
 * Classifies what a call came to. A {@link isCrash | Crash} is thrown on
 * when `rethrowCrash` (the driver stops dead), else observed as an
 * unexpected error (a server has no driver to stop).
 */
export async function classifyOutcome(tool: CompiledTool<never>, raw: RawOutcome, p: Projection, rethrowCrash: boolean): Promise<ClassifiedOutcome> {
  const name = tool.name;
  if (raw.kind === "value") {
    const content = await observeContent(name, raw.value, p);
    return content.ok ? content : { observation: content.observation };
  }
  if (raw.kind === "aborted") return raw.timedOut ? { observation: timeoutObservation(tool) } : { observation: interruptedObservation(tool), interrupted: true };
  const e = raw.error;
  // Each recogniser reads the error's code: a Crash (CRASH) is none of the others.
  if (isCrash(e) && rethrowCrash) throw e;
  if (isAbortRun(e)) {
    const abort = abortDetail(e.detail, p);
    return { observation: abortObservation(name, abort), abort };
  }
  return {
    observation: isPermissionDenied(e) ? policyDeniedObservation(name, e.resources, e.reason) : isToolError(e) ? await toolErrorObservation(name, e, p) : unexpectedErrorObservation(name),
  };
}
