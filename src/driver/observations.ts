/**
 * What the agent is shown about a call: the model-facing contract. Every
 * text follows the error contract (what went wrong, the safe next step, when
 * to stop), is built from validated local context only (never from an
 * exception's message), and carries nothing run-specific. Tests pin each by
 * exact value.
 */
import { isIsoagentError } from "../errors.js";
import { cloneJson, tryParseJson, type JsonValue } from "../json/index.js";
import { decodeUtf8Fatal } from "../web.js";
import type { Observation } from "../journal/index.js";
import type { CompiledTool, ResourceRef, ToolError } from "../tools/index.js";
import { redactJson, type Redactor } from "./redact.js";

const contract = (summary: string, next: string, recovery: string): string => `Error: ${summary}\n[Next: ${next}]\n[Recovery: ${recovery}]`;

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
  return resources.length === 0 ? "" : ` for ${resources.map((r) => `\`${r.value}\``).join(", ")}`;
}

/** Policy denied the call. */
export function policyDeniedObservation(tool: string, resources: readonly ResourceRef[], reason: string | undefined): Observation {
  return {
    type: "denied",
    error: contract(
      `permission denied: ${tool} is not allowed${describeResources(resources)}${reason === undefined ? "" : ` (${reason})`}.`,
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
      `permission denied: an operator declined this call to ${tool}${reason === undefined ? "" : ` (${JSON.stringify(reason)})`}.`,
      "Do not repeat this call.",
      "Continue without it if you can; otherwise stop and say what you needed.",
    ),
  };
}

/** The tool threw a ToolError: its own model-facing text. */
export function toolErrorObservation(tool: string, e: ToolError, redact: Redactor): Observation {
  return {
    type: "tool_error",
    failure: "error",
    error: redact(
      contract(
        e.summary,
        e.next ?? `Fix what the error names, then call ${tool} again.`,
        e.recovery ?? "If the same error comes back, stop and report it instead of retrying.",
      ),
    ),
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

/** The tool ended the run (abortRun): recorded as its observation. */
export function abortObservation(tool: string, detail: string, redact: Redactor): Observation {
  return { type: "tool_error", failure: "error", error: redact(contract(`${tool} stopped the run: ${detail}`, "None: the run is over.", "None.")) };
}

/** A tool's content, checked: JSON (or `{}` when empty), or why not. */
export type CheckedContent = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly observation: Observation };

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

function base64(bytes: Uint8Array): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let out = "";
  for (let k = 0; k < bytes.length; k += 3) {
    const a = bytes[k]!, b = bytes[k + 1], c = bytes[k + 2];
    out += alphabet[a >> 2]! + alphabet[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? "=" : alphabet[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? "=" : alphabet[c & 63]!;
  }
  return out;
}

/**
 * A tool's return value as content. Usable JSON passes (empty becomes `{}`);
 * anything else is kept, not dropped: a `tool_error` with failure
 * `invalid_content`, the bytes as text (base64 under `content_base64` when
 * they are not UTF-8) beside the reason.
 */
export function checkContent(tool: string, value: unknown, redact: Redactor): CheckedContent {
  if (value === undefined) return { ok: true, value: {} };
  let reason: string;
  let kept: { content: string } | { content_base64: string };
  if (value instanceof Uint8Array) {
    if (value.length === 0) return { ok: true, value: {} };
    const r = tryParseJson(value);
    if (r.ok) return { ok: true, value: redactJson(r.value, redact) };
    reason = r.error.message;
    kept = r.error.code === "JSON_INVALID_UTF8" ? { content_base64: base64(value) } : { content: redact(decodeUtf8Fatal(value)) };
  } else {
    try {
      return { ok: true, value: redactJson(cloneJson(value), redact) };
    } catch (e) {
      if (!isIsoagentError(e)) throw e;
      reason = e.message;
      kept = { content: redact(lossyText(value)) };
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
    },
  };
}
