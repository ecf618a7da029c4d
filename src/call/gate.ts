/**
 * The gate: everything between an agent's decision and a tool's effect. It
 * turns the agent's answer into a journal decision, checks each call's
 * arguments, works out what the call touches, asks the policy (fail-closed),
 * builds the preview and the approval request (bound to the arguments, the
 * tool's shape and the policy's identity), answers a running tool's
 * questions about what it discovers (`ToolContext.permit`), and reopens
 * calls let through under an earlier policy. It writes nothing itself: it
 * hands events to the session that holds the lease.
 */
import { isId, parseCallId, type ApprovalId, type CallId } from "../ids.js";
import { cloneJson, hashJsonSync, type JsonValue } from "../json/index.js";
import {
  JOURNAL_VERSION,
  JournalError,
  type AnswerInfo,
  type ApprovalRequest,
  type Interruption,
  type CallState,
  type DecidedCall,
  type Decision,
  type RunState,
  type UnsealedEvent,
} from "../journal/index.js";
import type { AgentDecision } from "../journal/proposed.js";
import { evaluatePolicy, strictest } from "../policy/index.js";
import { isToolError } from "../tools/tool.js";
import { operationOf, ToolError, type PermitAnswer, type ResourceRef } from "../tools/index.js";
import { after, newAbortController } from "../web.js";
import { shapeHash } from "../tools/shape.js";
import type { CallContext, ToolEntry } from "./context.js";
import { clean } from "./hygiene.js";
import { invalidArgumentsObservation, policyDeniedObservation, resourcesFailedObservation, toolErrorObservation, unknownToolObservation } from "./observations.js";
import { isCrash } from "./crash.js";

/** The longest preview journaled in an approval request. */
const PREVIEW_MAX_CHARS = 64 * 1024;

export { isToolError };

/** What a tool says a call touches, checked and copied: `{ kind, value, operation? }` strings, or a TypeError. */
export function checkResources(value: unknown): readonly ResourceRef[] {
  if (!Array.isArray(value)) throw new TypeError("resources must be an array");
  return value.map((r: unknown) => {
    if (typeof r !== "object" || r === null) throw new TypeError("a resource must be { kind, value }");
    const { kind, value: v, operation } = r as ResourceRef;
    if (typeof kind !== "string" || typeof v !== "string") throw new TypeError("a resource must be { kind, value } strings");
    if (operation === undefined) return { kind, value: v };
    if (!["read", "write", "delete", "network", "execute"].includes(operation)) throw new TypeError("a resource's operation must be read, write, delete, network or execute");
    return { kind, value: v, operation };
  });
}

const tokens = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const label = (v: unknown): v is string => typeof v === "string" && v !== "" && v.length <= 200;

/** Who answered and what it cost, as the journal keeps it: well-formed, copied; anything else is left out (it is a report, not a decision). */
export function toAnswer(a: unknown): AnswerInfo | undefined {
  if (typeof a !== "object" || a === null) return undefined;
  const { provider, model, finishReason, usage } = a as Record<string, unknown>;
  if (!label(provider) || !label(model)) return undefined;
  const u = usage as Record<string, unknown> | undefined;
  const usageOk = typeof u === "object" && u !== null && tokens(u["input"]) && tokens(u["output"]) && (u["cached"] === undefined || tokens(u["cached"]));
  return {
    provider,
    model,
    ...(label(finishReason) ? { finishReason } : {}),
    ...(usageOk ? { usage: { input: u["input"] as number, output: u["output"] as number, ...(u["cached"] === undefined ? {} : { cached: u["cached"] as number }) } } : {}),
  };
}

/** The agent's answer as a journal decision (call ids assigned) and who answered, or why it cannot be one. */
export function toDecision(d: AgentDecision, step: number): { decision: Decision; answer?: AnswerInfo } | string {
  if (typeof d !== "object" || d === null) return "not an object";
  const answer = toAnswer(d.answer);
  const info = answer === undefined ? {} : { answer };
  const text = typeof d.text === "string" ? { text: d.text } : {};
  if (d.kind === "final") {
    try {
      return { decision: { kind: "final", output: cloneJson(d.output === undefined ? null : d.output), ...text }, ...info };
    } catch (e) {
      return `its output is not JSON (${e instanceof Error ? e.message : "unknown"})`;
    }
  }
  if (d.kind !== "calls" || !Array.isArray(d.calls) || d.calls.length === 0) return 'it is neither "final" nor a non-empty list of calls';
  const seen = new Set<string>();
  const calls: DecidedCall[] = [];
  for (let k = 0; k < d.calls.length; k++) {
    const c = d.calls[k]!;
    if (typeof c !== "object" || c === null || typeof c.name !== "string" || typeof c.args !== "string") return `call ${k + 1} needs a name and raw argument text`;
    const id = c.callId === undefined ? `s${step}c${k + 1}` : c.callId;
    if (!isId(id) || seen.has(id)) return `call ${k + 1} has a missing, malformed or repeated id`;
    seen.add(id);
    calls.push({ callId: parseCallId(id), name: c.name, args: c.args });
  }
  return { decision: { kind: "calls", calls, ...text }, ...info };
}

/** What the gate needs of the session it serves. */
export interface GateHost {
  readonly ctx: CallContext;
  /** The run's state as the session holds it now. */
  state(): RunState;
  /** Seals an event after the head and applies it. */
  push(event: UnsealedEvent): void;
  /** Makes the lease last through work of up to `timeoutMs` that may block the loop (a preview); returns what ends that. */
  cover?(timeoutMs: number): Promise<() => void>;
}

type Fields<T extends UnsealedEvent["type"]> = Omit<Extract<UnsealedEvent, { type: T }>, "type" | "v" | "at">;

const key = (r: ResourceRef, op: string | undefined): string => `${r.kind}\u0000${r.value}\u0000${op ?? ""}`;

export class Gate {
  private readonly checked = new Map<CallId, JsonValue>();

  constructor(private readonly host: GateHost) {}

  private get ctx(): CallContext {
    return this.host.ctx;
  }

  private event<T extends UnsealedEvent["type"]>(type: T, fields: Fields<T>, v = 2): void {
    this.host.push({ v, at: this.ctx.clock.now(), type, ...fields } as unknown as UnsealedEvent);
  }

  /** The gate for one call: checked, its resources known, through policy, and then allowed, denied, or waiting for an operator. */
  async evaluate(step: number, call: CallState): Promise<void> {
    const entry = this.ctx.tools.get(call.name);
    if (entry === undefined) {
      this.event("call.rejected", { step, callId: call.callId, observation: unknownToolObservation(call.name, this.ctx.exposedNames) });
      return;
    }
    const checked = entry.compiled.check(call.args);
    if (!checked.valid) {
      this.event("call.rejected", { step, callId: call.callId, observation: invalidArgumentsObservation(checked.text) });
      return;
    }
    this.checked.set(call.callId, checked.args);
    let resources: readonly ResourceRef[];
    try {
      resources = checkResources(entry.compiled.resources?.(checked.args as never) ?? []);
    } catch (e) {
      if (isCrash(e)) throw e;
      // A tool refuses arguments it can tell are wrong (a path outside its
      // workspace) as it works out what they touch: before policy, approval
      // and any effect, in its own words.
      if (isToolError(e)) {
        this.event("call.rejected", { step, callId: call.callId, observation: await toolErrorObservation(call.name, e, this.projection(entry)) });
        return;
      }
      this.event("call.permission", {
        step,
        callId: call.callId,
        permission: "deny",
        source: "spec",
        reason: "resources could not be determined",
        sideEffect: entry.compiled.sideEffect,
        ...this.version(),
      });
      this.event("call.rejected", { step, callId: call.callId, observation: resourcesFailedObservation(call.name) });
      return;
    }
    const state = this.host.state();
    const decided = evaluatePolicy(this.ctx.policy, {
      tool: call.name,
      sideEffect: entry.compiled.sideEffect,
      args: checked.args,
      resources,
      stage: "call",
      runId: state.runId,
      step,
      callId: call.callId,
    });
    const permission = strictest(entry.compiled.permission, decided.permission);
    const fromPolicy = permission !== entry.compiled.permission;
    const reason = fromPolicy ? decided.reason : undefined;
    this.event("call.permission", {
      step,
      callId: call.callId,
      permission,
      source: fromPolicy ? "policy" : "spec",
      ...(reason === undefined ? {} : { reason }),
      sideEffect: entry.compiled.sideEffect,
      ...this.version(),
    });
    if (permission === "deny") {
      this.event("call.rejected", { step, callId: call.callId, observation: policyDeniedObservation(call.name, resources, reason) });
    } else if (permission === "ask") {
      const preview = await this.previewOf(entry, checked.args, this.permitFor(step, call, entry, checked.args, true));
      if (isToolError(preview)) {
        // The tool can already tell the call would fail: nobody is asked.
        this.event("call.rejected", { step, callId: call.callId, observation: await toolErrorObservation(call.name, preview, this.projection(entry)) });
        return;
      }
      this.requestApproval("call", step, call, entry, checked.args, resources, { preview, note: call.reopened });
    }
  }

  /** The policy identity, for events that record a decision. */
  private version(): { policyVersion?: string } {
    return this.ctx.policyVersion === undefined ? {} : { policyVersion: this.ctx.policyVersion };
  }

  projection(entry: ToolEntry) {
    return { redact: this.ctx.redact, store: this.ctx.store, policy: entry.compiled.outputPolicy };
  }

  /** The tool's preview of a call, under its timeout; left out when it fails; a ToolError it throws refuses the call. */
  private async previewOf(entry: ToolEntry, args: JsonValue, permit: (resources: readonly ResourceRef[]) => PermitAnswer): Promise<string | undefined | ToolError> {
    const preview = entry.compiled.preview;
    if (preview === undefined) return undefined;
    const controller = newAbortController();
    let cancelTimer = (): void => {};
    const uncover = (await this.host.cover?.(entry.compiled.timeoutMs)) ?? ((): void => {});
    try {
      const text = await new Promise<unknown>((resolve, reject) => {
        cancelTimer = after(entry.compiled.timeoutMs, () => {
          controller.abort(new Error("timeout"));
          reject(new Error("timeout"));
        });
        Promise.resolve()
          .then(() => preview(args as never, { signal: controller.signal, permit }))
          .then(resolve, reject);
      });
      if (typeof text !== "string") return undefined;
      const shown = this.ctx.redact(clean(text));
      return shown.length <= PREVIEW_MAX_CHARS ? shown : `${shown.slice(0, PREVIEW_MAX_CHARS)}\n… (the preview was cut at ${PREVIEW_MAX_CHARS} characters)`;
    } catch (e) {
      if (isCrash(e)) throw e;
      return isToolError(e) ? e : undefined;
    } finally {
      cancelTimer();
      uncover();
    }
  }

  /** Journals an approval request: what the operator sees, and what its hash binds. */
  requestApproval(
    kind: ApprovalRequest["kind"],
    step: number,
    call: CallState,
    entry: ToolEntry,
    args: JsonValue,
    resources: readonly ResourceRef[],
    extra: { preview?: string | undefined; note?: string | undefined; idempotencyKey?: string; interrupted?: Interruption } = {},
  ): void {
    const state = this.host.state();
    const request: ApprovalRequest = {
      kind,
      runId: state.runId,
      step,
      callId: call.callId,
      attempt: kind === "call" ? call.attempt + 1 : call.attempt,
      tool: call.name,
      args,
      argsHash: hashJsonSync(args),
      sideEffect: entry.compiled.sideEffect,
      resources,
      toolShape: shapeHash(entry.compiled),
      ...this.version(),
      ...(extra.preview === undefined ? {} : { preview: extra.preview }),
      ...(kind === "call" && entry.compiled.wantsAnswer ? { wantsAnswer: true as const } : {}),
      ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
      ...(extra.note === undefined ? {} : { note: extra.note }),
      ...(extra.interrupted === undefined ? {} : { interrupted: extra.interrupted }),
    };
    const approvalId = `apr.${step}.${call.callId}.${Object.keys(state.approvals).length + 1}` as ApprovalId;
    // A request that says how a call was interrupted has v4's shape.
    this.event("approval.requested", { approvalId, request, requestHash: hashJsonSync(request) }, extra.interrupted === undefined ? 2 : JOURNAL_VERSION);
  }

  /** The checked arguments of a call (re-checked after a restart: the check is deterministic). */
  argsOf(call: CallState, entry: ToolEntry): JsonValue {
    const cached = this.checked.get(call.callId);
    if (cached !== undefined) return cached;
    const r = entry.compiled.check(call.args);
    if (!r.valid) throw new JournalError("JOURNAL_INVALID", `call ${call.callId} was started with arguments its tool refuses`);
    this.checked.set(call.callId, r.args);
    return r.args;
  }

  /** What a call declared it touches (none when that cannot be worked out again). */
  resourcesOf(entry: ToolEntry, args: JsonValue): readonly ResourceRef[] {
    try {
      return checkResources(entry.compiled.resources?.(args as never) ?? []);
    } catch {
      return [];
    }
  }

  /**
   * A running call's `permit`: what it declared passed the gate; anything
   * else goes to the policy at stage "discovered", fail-closed. A preview's
   * (`preview`): the call is not let through yet, so nothing is allowed by
   * being declared; everything goes to the policy.
   */
  permitFor(step: number, call: CallState, entry: ToolEntry, args: JsonValue, preview = false): (resources: readonly ResourceRef[]) => PermitAnswer {
    const sideEffect = entry.compiled.sideEffect;
    const declared = new Set(preview ? [] : this.resourcesOf(entry, args).map((r) => key(r, operationOf(r, sideEffect))));
    const runId = this.host.state().runId;
    return (asked) => {
      let resources: readonly ResourceRef[];
      try {
        resources = checkResources(asked);
      } catch {
        return { permission: "deny", reason: "the resources asked about are not { kind, value } strings" };
      }
      const undeclared = resources.filter((r) => !declared.has(key(r, operationOf(r, sideEffect))));
      if (undeclared.length === 0) return { permission: "allow" };
      return evaluatePolicy(this.ctx.policy, { tool: call.name, sideEffect, args, resources: undeclared, stage: "discovered", runId, step, callId: call.callId });
    };
  }

  /** Whether a call let through (or asked about) under another policy identity than the driver's must be decided again. */
  stale(call: CallState): boolean {
    return (call.status === "approved" || call.status === "awaiting_approval") && call.attempt === 0 ? call.policyVersion !== this.ctx.policyVersion : false;
  }

  /** Reopens every call of the current step decided under another policy identity, so it goes through the gate again. */
  reopenStale(): void {
    const current = this.host.state().current;
    if (current === null || current.done) return;
    for (const call of current.calls) {
      if (!this.stale(call)) continue;
      const was = call.status === "approved" ? "was let through" : "was asked";
      const reason = `the policy changed from ${JSON.stringify(call.policyVersion ?? "(none)")} to ${JSON.stringify(this.ctx.policyVersion ?? "(none)")} since this call ${was}`;
      this.event("call.reopened", { step: current.step, callId: call.callId, reason });
    }
  }

  /** Whether the current step has a call to reopen (a waiting run then moves). */
  hasStale(): boolean {
    const current = this.host.state().current;
    return current !== null && !current.done && current.calls.some((c) => this.stale(c));
  }
}
