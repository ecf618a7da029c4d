/**
 * One call of an isoagent tool served over MCP, through the same gate a
 * driver's call passes: the argument check (checkArgs's exact text), the
 * tool's resources, the policy (fail-closed, stricter of the two), the
 * timeout, and the observation (cleaned, redacted, capped) that becomes the
 * MCP result. A call the policy or the tool says to ask about is refused:
 * over MCP nobody can approve it, least of all the caller.
 */
import { classifyOutcome } from "../../call/classify.js";
import { checkResources, isToolError } from "../../call/gate.js";
import { invokeTool, type RawOutcome } from "../../call/invoke.js";
import { policyDeniedObservation, resourcesFailedObservation, toolErrorObservation } from "../../call/observations.js";
import type { Projection } from "../../call/projection.js";
import type { Redactor } from "../../call/redact.js";
import type { JsonValue } from "../../json/index.js";
import type { Observation } from "../../journal/index.js";
import { evaluatePolicy, strictest, type Policy } from "../../policy/index.js";
import type { Store } from "../../store/index.js";
import { contract } from "../../tools/contract.js";
import { operationOf, type CompiledTool, type ResourceRef, type Tool, type ToolContext, type ToolProgress } from "../../tools/index.js";
import { decodeUtf8Fatal, encodeUtf8, newAbortController, type AbortSignalLike } from "../../web.js";

/** Where a served tool's artifacts and full outputs go. */
export interface ArtifactSink {
  putArtifact(bytes: Uint8Array): Promise<{ readonly sha256: string; readonly size: number }>;
}

/** What a served call needs of its server. */
export interface ServedCallOptions {
  readonly policy: Policy;
  readonly redact: Redactor;
  readonly artifacts: ArtifactSink | undefined;
}

/** What one served call is told about itself. */
export interface ServedCall {
  readonly callId: string;
  readonly idempotencyKey: string;
  readonly signal: AbortSignalLike;
  progress(update: ToolProgress): void;
}

/** The refusal a call gets when it would need an operator's approval: model-facing, pinned by the tests. */
function approvalRequiredObservation(tool: string): Observation {
  return {
    type: "denied",
    error: contract(
      `${tool} needs an operator's approval for this call, and a call through MCP cannot get one: the caller can never approve its own call.`,
      `Do not call ${tool} this way again; use a tool that does not need approval, or ask a person to run it.`,
      `If the task cannot be done without it, stop and say that ${tool} needs an operator's approval.`,
    ),
  };
}

const key = (r: ResourceRef, op: string | undefined): string => `${r.kind}\u0000${r.value}\u0000${op ?? ""}`;

/** Runs one served call; answers the observation, and the content when it succeeded. */
export async function serveCall(
  entry: { tool: Tool<never, unknown>; compiled: CompiledTool<never> },
  rawArgs: string,
  call: ServedCall,
  options: ServedCallOptions,
): Promise<{ observation: Observation; value?: JsonValue }> {
  const t = entry.compiled;
  const p: Projection = {
    redact: options.redact,
    store: (options.artifacts ?? { putArtifact: () => Promise.reject(new Error("no artifacts")) }) as unknown as Store,
    policy: options.artifacts === undefined ? { ...t.outputPolicy, keepFull: false } : t.outputPolicy,
  };
  const checked = t.check(rawArgs);
  if (!checked.valid) return { observation: { type: "invalid_decision", error: checked.text } };
  const args = checked.args;
  let resources: readonly ResourceRef[];
  try {
    resources = checkResources(t.resources?.(args as never) ?? []);
  } catch (e) {
    if (isToolError(e)) return { observation: await toolErrorObservation(t.name, e, p) };
    return { observation: resourcesFailedObservation(t.name) };
  }
  const decided = evaluatePolicy(options.policy, { tool: t.name, sideEffect: t.sideEffect, args, resources, stage: "call" });
  const permission = strictest(t.permission, decided.permission);
  if (permission === "deny") return { observation: policyDeniedObservation(t.name, resources, permission !== t.permission ? decided.reason : undefined) };
  if (permission === "ask") return { observation: approvalRequiredObservation(t.name) };

  const declared = new Set(resources.map((r) => key(r, operationOf(r, t.sideEffect))));
  const controller = newAbortController();
  const onAbort = (): void => controller.abort(new Error("cancelled"));
  call.signal.addEventListener("abort", onAbort, { once: true });
  if (call.signal.aborted) onAbort();
  const ctx: ToolContext = {
    runId: "mcp" as never,
    step: 1,
    callId: call.callId as never,
    attempt: 1,
    idempotencyKey: call.idempotencyKey,
    fencingToken: 0,
    signal: controller.signal,
    permit: (asked) => {
      let found: readonly ResourceRef[];
      try {
        found = checkResources(asked);
      } catch {
        return { permission: "deny", reason: "the resources asked about are not { kind, value } strings" };
      }
      const undeclared = found.filter((r) => !declared.has(key(r, operationOf(r, t.sideEffect))));
      if (undeclared.length === 0) return { permission: "allow" };
      return evaluatePolicy(options.policy, { tool: t.name, sideEffect: t.sideEffect, args, resources: undeclared, stage: "discovered" });
    },
    // A served call has no run whose journal names artifacts: it reads none back.
    readArtifact: async () => undefined,
    progress: (u) => call.progress(u),
    putArtifact: async (bytes) => {
      if (options.artifacts === undefined) throw new Error("this MCP server keeps no artifacts");
      if (!(bytes instanceof Uint8Array)) throw new TypeError("putArtifact takes a Uint8Array");
      let kept = bytes;
      try {
        const text = decodeUtf8Fatal(bytes);
        const redacted = options.redact(text);
        if (redacted !== text) kept = encodeUtf8(redacted);
      } catch {
        // Not text: kept as it is.
      }
      return options.artifacts.putArtifact(kept);
    },
  };
  let raw: RawOutcome;
  try {
    raw = await invokeTool(() => entry.tool.call(args as never, ctx), controller, t.timeoutMs);
  } finally {
    call.signal.removeEventListener("abort", onAbort);
  }
  // The server reads the observation, and a success's value.
  return classifyOutcome(t, raw, p, false);
}
