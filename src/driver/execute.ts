/**
 * Running one call: the tool under its timeout, with the driver's signal,
 * its `permit` for what it discovers, and its outcome turned into the
 * observation the agent is shown (cleaned, redacted, capped).
 */
import type { JsonValue } from "../json/index.js";
import { journalNames, type CallState, type Observation } from "../journal/index.js";
import type { Lease } from "../store/index.js";
import { isAbortRun, isPermissionDenied } from "../tools/index.js";
import { newAbortController, type AbortSignalLike } from "../web.js";
import { invokeTool, type RawOutcome } from "./invoke.js";
import { artifactsFor, progressFor } from "./call-context.js";
import type { DriverContext, ToolEntry } from "./context.js";
import { isToolError, type Gate } from "./gate.js";
import { clean } from "./hygiene.js";
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
import { isCrash } from "./types.js";

/** What one call's execution produced. */
export interface CallOutcome {
  readonly observation: Observation;
  /** The tool's line for a person, for a success. */
  readonly activity?: string;
  /** The run ends with this output (a terminal tool's success). */
  readonly complete?: JsonValue;
  /** The run fails with reason tool_abort and this detail. */
  readonly abort?: string;
  readonly interrupted?: boolean;
}

export interface Execution {
  readonly ctx: DriverContext;
  readonly gate: Gate;
  readonly runId: string;
  readonly lease: Lease;
  readonly signal: AbortSignalLike | undefined;
  /** What a person answered when approving this attempt (for a tool that wants an answer). */
  readonly answer: { text: string; by: string } | undefined;
  /** The artifacts the run's journal names now. */
  readonly artifacts: () => readonly string[];
}

/** Runs a call's tool once (this attempt) and observes its outcome. */
export async function runTool(x: Execution, step: number, call: CallState, attempt: number, key: string, entry: ToolEntry): Promise<CallOutcome> {
  const tool = entry.compiled;
  const args = x.gate.argsOf(call, entry);
  const controller = newAbortController();
  const onDriverAbort = (): void => controller.abort(new Error("interrupted"));
  x.signal?.addEventListener("abort", onDriverAbort, { once: true });
  if (x.signal?.aborted === true) onDriverAbort();
  let raw: RawOutcome;
  try {
    raw = await invokeTool(
      () =>
        entry.tool.call(args as never, {
            runId: x.runId as never,
            step,
            callId: call.callId,
            attempt,
            idempotencyKey: key,
            fencingToken: x.lease.token,
            signal: controller.signal,
            permit: x.gate.permitFor(step, call, entry, args),
            progress: progressFor(x.ctx, x.runId as never, step, call.callId, tool.name),
            putArtifact: artifactsFor(x.ctx),
            readArtifact: async (sha256) => {
              if (typeof sha256 !== "string") return undefined;
              // The state keeps the artifacts named last; an older one is looked up in the journal (rare, and only then).
              const named = x.artifacts().includes(sha256) || journalNames(await x.ctx.store.read(x.runId as never), sha256);
              return named ? ((await x.ctx.store.getArtifact(sha256)) ?? undefined) : undefined;
            },
            ...(tool.wantsAnswer && x.answer !== undefined ? { answer: x.answer } : {}),
          }),
      controller,
      tool.timeoutMs,
    );
  } finally {
    x.signal?.removeEventListener("abort", onDriverAbort);
    x.ctx.progress.endCall(x.runId as never, call.callId);
  }
  const p = x.gate.projection(entry);
  switch (raw.kind) {
    case "aborted":
      return raw.timedOut ? { observation: timeoutObservation(tool) } : { observation: interruptedObservation(tool), interrupted: true };
    case "error": {
      const e = raw.error;
      if (isCrash(e)) throw e;
      if (isAbortRun(e)) {
        const detail = abortDetail(e.detail, p);
        return { observation: abortObservation(tool.name, detail), abort: detail };
      }
      if (isPermissionDenied(e)) return { observation: policyDeniedObservation(tool.name, e.resources, e.reason) };
      if (isToolError(e)) return { observation: await toolErrorObservation(tool.name, e, p) };
      return { observation: unexpectedErrorObservation(tool.name) };
    }
    case "value": {
      const content = await observeContent(tool.name, raw.value, p);
      if (!content.ok) return { observation: content.observation };
      const activity = activityOf(x.ctx, entry, args, content.value);
      return { observation: content.observation, ...(activity === undefined ? {} : { activity }), ...(tool.terminal ? { complete: content.value } : {}) };
    }
  }
}

/** The tool's activity line for a success: cleaned, redacted, one line, at most 200 characters; left out when it fails. */
function activityOf(ctx: DriverContext, entry: ToolEntry, args: JsonValue, result: JsonValue): string | undefined {
  const activity = entry.compiled.activity;
  if (activity === undefined) return undefined;
  try {
    const line = activity(args as never, result);
    if (typeof line !== "string" || line.trim() === "") return undefined;
    const one = ctx.redact(clean(line)).replace(/\s+/g, " ").trim();
    return one.length > 200 ? `${one.slice(0, 199)}…` : one;
  } catch {
    return undefined;
  }
}
