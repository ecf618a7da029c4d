/**
 * Running one call: the tool under its timeout, with the driver's signal,
 * its `permit` for what it discovers, and its outcome turned into the
 * observation the agent is shown (cleaned, redacted, capped).
 */
import type { JsonValue } from "../json/index.js";
import { journalNames, type CallState, type Observation } from "../journal/index.js";
import type { Lease } from "../store/index.js";
import { newAbortController, type AbortSignalLike } from "../web.js";
import { artifactsFor, oneLine, progressFor } from "./call-context.js";
import { classifyOutcome } from "./classify.js";
import type { CallContext, ToolEntry } from "./context.js";
import type { Gate } from "./gate.js";
import { invokeTool, type RawOutcome } from "./invoke.js";

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
  readonly ctx: CallContext;
  readonly gate: Gate;
  readonly runId: string;
  readonly lease: Lease;
  readonly signal: AbortSignalLike | undefined;
  /** A second signal that interrupts the call as the driver's does: a conversation's turn being stopped. */
  readonly stop?: AbortSignalLike;
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
  x.stop?.addEventListener("abort", onDriverAbort, { once: true });
  if (x.signal?.aborted === true || x.stop?.aborted === true) onDriverAbort();
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
    x.stop?.removeEventListener("abort", onDriverAbort);
    x.ctx.progress.endCall(x.runId as never, call.callId);
  }
  const r = await classifyOutcome(tool, raw, x.gate.projection(entry), true);
  if (!r.ok) return r;
  const activity = activityOf(x.ctx, entry, args, r.value);
  return { observation: r.observation, ...(activity === undefined ? {} : { activity }), ...(tool.terminal ? { complete: r.value } : {}) };
}

/** The tool's activity line for a success: cleaned, redacted, one line, at most 200 characters; left out when it fails. */
function activityOf(ctx: CallContext, entry: ToolEntry, args: JsonValue, result: JsonValue): string | undefined {
  const activity = entry.compiled.activity;
  if (activity === undefined) return undefined;
  try {
    const line = activity(args as never, result);
    if (typeof line !== "string" || line.trim() === "") return undefined;
    return oneLine(line, ctx.redact);
  } catch {
    return undefined;
  }
}
