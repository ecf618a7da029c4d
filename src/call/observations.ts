/**
 * What the agent is shown about a call: the model-facing contract. Every
 * text follows the error contract (what went wrong, the safe next step, when
 * to stop), is built from validated local context only (never from an
 * exception's message), and carries nothing run-specific. Tests pin each by
 * exact value.
 */
import { base64Of } from "../base64.js";
import { isIsoagentError } from "../errors.js";
import { cloneJson, tryParseJson, type JsonValue } from "../json/index.js";
import { decodeUtf8Fatal, encodeUtf8 } from "../web.js";
import type { Observation } from "../journal/index.js";
import { contract } from "../tools/contract.js";
import type { CompiledTool, ResourceRef, ToolError } from "../tools/index.js";
import { anyCleaned, cleanInto, cleaningOf, cleanText, noCleaning } from "./hygiene.js";
import { capText, resultObservation, type Projection } from "./projection.js";

/** Text from outside the runtime (a policy's reason, a resource a model named) as a model-facing text shows it: cleaned, one line, cut. */
function shown(text: string, max = 500): string {
  const one = cleanText(text).text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The agent called a tool that does not exist. */
export function unknownToolObservation(name: string, available: readonly string[]): Observation {
  return {
    type: "invalid_decision",
    error: contract(
      `there is no tool named ${JSON.stringify(name)}.`,
      available.length > 0 ? `Call one of the available tools: ${available.join(", ")}.` : "Answer without calling a tool.",
      "If none of them can do what is needed, stop and say so.",
    ),
  };
}

/** The arguments failed the boundary or the schema: the checker's exact text. */
export function invalidArgumentsObservation(text: string): Observation {
  return { type: "invalid_decision", error: text };
}

function describeResources(resources: readonly ResourceRef[]): string {
  return resources.length === 0 ? "" : ` for ${resources.map((r) => `\`${shown(r.value, 300)}\``).join(", ")}`;
}

/** Policy denied the call. */
export function policyDeniedObservation(tool: string, resources: readonly ResourceRef[], reason: string | undefined): Observation {
  return {
    type: "denied",
    error: contract(
      `permission denied: ${tool} is not allowed${describeResources(resources)}${reason === undefined ? "" : ` (${shown(reason)})`}.`,
      `Do not call ${tool} with these arguments again.`,
      "If the task cannot be done without it, stop and say which permission is missing.",
    ),
  };
}

/** The tool's resources could not be computed, so policy could not decide: denied. */
export function resourcesFailedObservation(tool: string): Observation {
  return {
    type: "denied",
    error: contract(
      `permission denied: what ${tool} would touch could not be determined from these arguments.`,
      `Call ${tool} with different arguments, or use another tool.`,
      "If the task cannot be done another way, stop and say so.",
    ),
  };
}

/** An operator declined the call. */
export function operatorDeniedObservation(tool: string, reason: string | undefined): Observation {
  return {
    type: "denied",
    error: contract(
      `permission denied: an operator declined this call to ${tool}${reason === undefined ? "" : ` (${JSON.stringify(shown(reason))})`}.`,
      "Do not repeat this call.",
      "Continue without it if you can; otherwise stop and say what you needed.",
    ),
  };
}

/** The user stopped the turn before the call ran (v5): it never started. */
export function stoppedObservation(tool: string): Observation {
  return {
    type: "denied",
    error: contract(`the user stopped this turn before ${tool} ran: it did not run.`, "Do not call it again unless the user asks for it.", "Answer what the user says next."),
  };
}

/** The longest [Next: ...] or [Recovery: ...] line a tool's error shows. */
const GUIDANCE_MAX_CHARS = 1000;

/**
 * The tool threw a ToolError: its own model-facing text, cleaned, redacted,
 * and capped as a result is (the summary is cut, so the Next and Recovery
 * lines always show; the full text is kept as an artifact).
 */
export async function toolErrorObservation(tool: string, e: ToolError, p: Projection): Promise<Observation> {
  const count = noCleaning();
  const part = (text: unknown, fallback: string, max?: number): string => {
    const t = p.redact(cleanInto(typeof text === "string" ? text : fallback, count));
    return max !== undefined && t.length > max ? `${t.slice(0, max - 1)}…` : t;
  };
  const summary = part(e.summary, "the tool failed");
  const next = part(e.next, `Fix what the error names, then call ${tool} again.`, GUIDANCE_MAX_CHARS);
  const recovery = part(e.recovery, "If the same error comes back, stop and report it instead of retrying.", GUIDANCE_MAX_CHARS);
  const cleaned = anyCleaned(count) ? { cleaned: cleaningOf(count) } : {};
  const full = contract(summary, next, recovery);
  const rest = encodeUtf8(contract("", next, recovery)).length;
  const budget = Math.max(256, p.policy.maxVisibleBytes - rest);
  const capped = await capText(summary, budget, "head", p.policy.keepFull, p.store, "error text", encodeUtf8(full));
  return {
    type: "tool_error",
    failure: (e as { timedOut?: unknown }).timedOut === true ? "timeout" : "error",
    error: contract(capped.text, next, recovery),
    ...(capped.truncated === undefined ? {} : { truncated: capped.truncated }),
    ...cleaned,
  };
}

/** The tool threw something else: a generic text, never the exception's message. */
export function unexpectedErrorObservation(tool: string): Observation {
  return {
    type: "tool_error",
    failure: "error",
    error: contract(`${tool} failed unexpectedly.`, `Try another approach, or call ${tool} again with different arguments.`, "If it fails again, stop and report the failure."),
  };
}

/** The call ran past its timeout and was cancelled. */
export function timeoutObservation(tool: CompiledTool<never>): Observation {
  const readOnly = tool.sideEffect === "read_only";
  return {
    type: "tool_error",
    failure: "timeout",
    error: contract(
      `${tool.name} did not finish within ${tool.timeoutMs} ms and was cancelled${readOnly ? "" : "; whether it took effect is unknown"}.`,
      readOnly ? `Call ${tool.name} again, asking for less if you can.` : `Check whether it took effect before calling ${tool.name} again.`,
      "If it times out again, stop and report it.",
    ),
  };
}

/** The call's outcome is unknown: the driver was cancelled while it ran. */
export function interruptedObservation(tool: CompiledTool<never>): Observation {
  const readOnly = tool.sideEffect === "read_only";
  return {
    type: "interrupted",
    error: contract(
      `${tool.name} was interrupted before it reported back${readOnly ? "" : "; whether it took effect is unknown"}.`,
      readOnly ? `Call ${tool.name} again if you still need its answer.` : `Check whether it took effect before calling ${tool.name} again.`,
      "If calls keep being interrupted, stop and report it.",
    ),
  };
}

/** An operator (or the hook) could not tell whether an interrupted call took effect. */
export function markUnknownObservation(tool: string, by: string): Observation {
  return {
    type: "interrupted",
    error: contract(
      `${tool} was interrupted, and whether it took effect is unknown: ${by === "hook" ? "its owner" : "an operator"} could not confirm it either way.`,
      `Check whether it took effect (read back what it would have changed) before you call ${tool} again.`,
      "If you cannot check, stop and say that the outcome of this call is unknown.",
    ),
  };
}

/** An operator recorded that an interrupted call failed (or a hook did). */
export function recordedFailureObservation(tool: string, by: string): Observation {
  return {
    type: "tool_error",
    failure: "error",
    error: contract(
      `${tool} was interrupted, and ${by === "hook" ? "its owner" : "an operator"} recorded that it did not take effect.`,
      `Call ${tool} again if it is still needed.`,
      "If it cannot be done, stop and say so.",
    ),
  };
}

/** The longest detail of an abortRun kept. */
const ABORT_DETAIL_MAX_CHARS = 4096;

/** An abortRun's detail, as it is journaled: cleaned, redacted, cut at 4,096 characters. */
export function abortDetail(detail: unknown, p: Pick<Projection, "redact">): string {
  const d = p.redact(cleanText(typeof detail === "string" ? detail : "the tool stopped the run").text);
  return d.length > ABORT_DETAIL_MAX_CHARS ? `${d.slice(0, ABORT_DETAIL_MAX_CHARS - 1)}…` : d;
}

/** The tool ended the run (abortRun): recorded as its observation. */
export function abortObservation(tool: string, detail: string): Observation {
  return { type: "tool_error", failure: "error", error: contract(`${tool} stopped the run: ${detail}`, "None: the run is over.", "None.") };
}

/** A tool's content: usable JSON (or `{}` when empty) and its observation, or the invalid_content observation that keeps it. */
export type ObservedContent = { readonly ok: true; readonly value: JsonValue; readonly observation: Observation } | { readonly ok: false; readonly observation: Observation };

function lossyText(value: unknown): string {
  const seen = new Set<unknown>();
  try {
    return (
      JSON.stringify(value, (_k, v: unknown) => {
        if (typeof v === "bigint") return `${v.toString()}n`;
        if (typeof v === "number" && !Number.isFinite(v)) return String(v);
        if (typeof v === "function" || typeof v === "symbol") return `[${typeof v}]`;
        if (typeof v === "object" && v !== null) {
          if (seen.has(v)) return "[cycle]";
          seen.add(v);
        }
        return v;
      }) ?? String(value)
    );
  } catch {
    return "[unreadable]";
  }
}

/**
 * A tool's return value as content and its observation. Usable JSON passes
 * (empty becomes `{}`) and is shown as {@link resultObservation} shows it;
 * anything else is kept, not dropped: a `tool_error` with failure
 * `invalid_content`, the bytes as text (base64 under `content_base64` when
 * they are not UTF-8) beside the reason, cleaned, redacted and capped like a
 * result, the full bytes kept as an artifact.
 */
export async function observeContent(tool: string, value: unknown, p: Projection): Promise<ObservedContent> {
  let content: JsonValue | undefined;
  let reason = "";
  let raw: Uint8Array | undefined;
  let text: string | undefined;
  if (value === undefined) content = {};
  else if (value instanceof Uint8Array) {
    if (value.length === 0) content = {};
    else {
      const r = tryParseJson(value);
      if (r.ok) content = r.value;
      else {
        reason = r.error.message;
        raw = value;
        if (r.error.code !== "JSON_INVALID_UTF8") text = decodeUtf8Fatal(value);
      }
    }
  } else {
    try {
      content = cloneJson(value);
    } catch (e) {
      if (!isIsoagentError(e)) throw e;
      reason = e.message;
      text = lossyText(value);
    }
  }
  if (content !== undefined) return { ok: true, ...(await resultObservation(content, p)) };
  const max = p.policy.maxVisibleBytes;
  let kept: { content: string } | { content_base64: string };
  let truncated: Awaited<ReturnType<typeof capText>>["truncated"];
  let cleaned: ReturnType<typeof cleaningOf> | undefined;
  if (text !== undefined) {
    const c = cleanText(text);
    if (anyCleaned(c)) cleaned = cleaningOf(c);
    const capped = await capText(p.redact(c.text), max, "head", p.policy.keepFull, p.store, "content", raw);
    kept = { content: capped.text };
    truncated = capped.truncated;
  } else {
    const bytes = raw!;
    const shownBytes = bytes.length > max ? bytes.subarray(0, Math.floor(max / 4) * 3) : bytes;
    kept = { content_base64: base64Of(shownBytes) };
    if (shownBytes.length < bytes.length) {
      const artifact = p.policy.keepFull ? (await p.store.putArtifact(bytes)).sha256 : "";
      truncated = { strategy: "head", totalBytes: bytes.length, shownBytes: shownBytes.length, artifact };
    }
  }
  return {
    ok: false,
    observation: {
      type: "tool_error",
      failure: "invalid_content",
      error: contract(
        `${tool} returned content that is not usable JSON (${reason}).`,
        `Do not rely on this output; call ${tool} again only if a different request could avoid it.`,
        "If it happens again, stop and report it.",
      ),
      ...kept,
      reason,
      ...(truncated === undefined ? {} : { truncated }),
      ...(cleaned === undefined ? {} : { cleaned }),
    },
  };
}
