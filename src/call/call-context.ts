/**
 * The parts of a running call's context that reach back into its host:
 * its progress reports (shown to people like an agent's streaming, never
 * journaled) and its artifacts (kept in the run's store by SHA-256).
 */
import type { CallId, RunId } from "../ids.js";
import type { ToolContext, ToolProgress } from "../tools/index.js";
import { decodeUtf8Fatal, encodeUtf8 } from "../web.js";
import type { CallContext } from "./context.js";
import { clean } from "./hygiene.js";
import type { Redactor } from "./redact.js";

/** The longest progress message kept. */
export const PROGRESS_MESSAGE_MAX_CHARS = 200;

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/** A text as people see it beside a call (its progress message, its activity line): cleaned, redacted, one line, at most 200 characters. */
export function oneLine(text: string, redact: Redactor): string {
  const one = redact(clean(text)).replace(/\s+/g, " ").trim();
  return one.length > PROGRESS_MESSAGE_MAX_CHARS ? `${one.slice(0, PROGRESS_MESSAGE_MAX_CHARS - 1)}…` : one;
}

/** A call's `progress`: checked, cleaned and redacted reports on the driver's board; a report that does not grow is dropped. */
export function progressFor(ctx: CallContext, runId: RunId, step: number, callId: CallId, tool: string): ToolContext["progress"] {
  let last = -Infinity;
  return (update: ToolProgress) => {
    if (typeof update !== "object" || update === null || !finite(update.progress) || update.progress < last) return;
    if (update.total !== undefined && !finite(update.total)) return;
    last = update.progress;
    const message = typeof update.message === "string" ? oneLine(update.message, ctx.redact) : undefined;
    ctx.progress.tool(runId, step, {
      callId,
      tool,
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(message === undefined || message === "" ? {} : { message }),
    });
  };
}

/** A call's `putArtifact`: UTF-8 text is redacted first, as every artifact is; other bytes are kept as they are. */
export function artifactsFor(ctx: CallContext): ToolContext["putArtifact"] {
  return async (bytes) => {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("putArtifact takes a Uint8Array");
    let kept = bytes;
    let text: string | undefined;
    try {
      text = decodeUtf8Fatal(bytes);
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      const redacted = ctx.redact(text);
      if (redacted !== text) kept = encodeUtf8(redacted);
    }
    const ref = await ctx.store.putArtifact(kept);
    return { sha256: ref.sha256, size: ref.size };
  };
}
