/**
 * One run driven by one driver while it holds the run's lease: the step loop
 * of the runtime. Decide, then for each call: check, policy, approval,
 * execution under a timeout, observation; every fact journaled before
 * anything acts on it.
 *
 * Events are sealed and applied to the state as they are pushed, and
 * appended in batches: before any tool runs (so its start is durable before
 * its effect), right after a call that is not read_only finishes, and before
 * the session stops. A read_only call's outcome rides with the next
 * decision, so a read-only step costs one append.
 */
import type { AgentDecision } from "../agents/index.js";
import { AgentError } from "../agents/index.js";
import { isIsoagentError } from "../errors.js";
import { parseCallId, type ApprovalId, type CallId, type RunId } from "../ids.js";
import { cloneJson, hashJsonSync, type JsonValue } from "../json/index.js";
import {
  apply,
  JournalError,
  seal,
  TERMINAL_STATUSES,
  type ApprovalRequest,
  type CallState,
  type DecidedCall,
  type JournalEvent,
  type Observation,
  type RunState,
  type UnsealedEvent,
} from "../journal/index.js";
import { strictest } from "../policy/index.js";
import { STORE_FAILURE_CODES, StoreError, type Lease, type StoreErrorCode } from "../store/index.js";
import { isAbortRun, ToolError, type ResourceRef } from "../tools/index.js";
import { after, newAbortController, type AbortSignalLike } from "../web.js";
import type { DriverContext, ToolEntry } from "./context.js";
import { fullTranscript, loadState } from "./load.js";
import {
  abortObservation,
  checkContent,
  interruptedObservation,
  invalidArgumentsObservation,
  policyDeniedObservation,
  recordedFailureObservation,
  resourcesFailedObservation,
  timeoutObservation,
  toolErrorObservation,
  unexpectedErrorObservation,
  unknownToolObservation,
} from "./observations.js";
import { resultObservation } from "./projection.js";
import { isCrash, type FaultPoint, type Reconciliation, type RunOutcome } from "./types.js";

/** Thrown inside a session when its lease is gone: it must stop writing at once. */
class LeaseLost extends Error {}
/** Thrown inside a session when the driver's own signal is aborted. */
class Interrupted extends Error {}

/** What one call's execution produced. */
interface CallOutcome {
  readonly observation: Observation;
  /** The tool's line for a person, for a success. */
  readonly activity?: string;
  /** The run ends with this output (a terminal tool's success). */
  readonly complete?: JsonValue;
  /** The run fails with reason tool_abort and this detail. */
  readonly abort?: string;
  readonly interrupted?: boolean;
}

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** The longest preview journaled in an approval request. */
const PREVIEW_MAX_CHARS = 64 * 1024;

export function idempotencyKey(runId: RunId, step: number, callId: CallId): string {
  return `${runId}:${step}:${callId}`;
}

function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ToolError" && typeof (e as { summary?: unknown }).summary === "string");
}

function checkResources(value: unknown): readonly ResourceRef[] {
  if (!Array.isArray(value) || !value.every((r) => typeof r === "object" && r !== null && typeof (r as ResourceRef).kind === "string" && typeof (r as ResourceRef).value === "string")) {
    throw new TypeError("resources must be an array of { kind, value } strings");
  }
  return value.map((r: ResourceRef) => ({ kind: r.kind, value: r.value }));
}

export class Session {
  private state: RunState;
  private committed: { seq: number; hash: string };
  private pending: JournalEvent[] = [];
  private lost = false;
  private crashed = false;
  private ended = false;
  private failed: { code: string; message: string } | undefined;
  private lastSnapshot: number;
  private readonly checkedArgs = new Map<CallId, JsonValue>();
  private readonly agentAbort = newAbortController();
  private cancelRenewal: (() => void) | undefined;

  private constructor(
    private readonly ctx: DriverContext,
    private lease: Lease,
    state: RunState,
    private readonly signal: AbortSignalLike | undefined,
  ) {
    this.state = state;
    this.committed = { seq: state.seq, hash: state.hash };
    this.lastSnapshot = state.seq;
  }

  /** Takes the run's lease and loads it; null when another driver holds the lease. */
  static async open(ctx: DriverContext, runId: RunId, signal: AbortSignalLike | undefined): Promise<Session | null> {
    const lease = await ctx.store.acquireLease(runId, ctx.owner, ctx.leaseTtlMs);
    if (lease === null) return null;
    try {
      const state = await loadState(ctx.store, runId);
      ctx.checkShapes(state);
      return new Session(ctx, lease, state, signal);
    } catch (e) {
      await ctx.store.releaseLease(lease);
      throw e;
    }
  }

  // ---- journal -----------------------------------------------------------

  /** Seals an event after the current head and applies it. */
  private push(e: UnsealedEvent): void {
    const sealed = seal(e, this.state.seq + 1, this.state.hash);
    apply(this.state, sealed);
    this.pending.push(sealed);
  }

  private event<T extends UnsealedEvent["type"]>(type: T, fields: Omit<Extract<UnsealedEvent, { type: T }>, "type" | "v" | "at">): void {
    this.push({ v: 1, at: this.ctx.clock.now(), type, ...fields } as unknown as UnsealedEvent);
  }

  /**
   * Appends what is pending. When the journal moved (an operator answered or
   * cancelled), reloads it and replays what is pending on top: after a
   * cancellation, only the outcomes of calls already in flight are kept, as
   * late outcomes.
   */
  private async flush(): Promise<void> {
    for (let attempt = 0; this.pending.length > 0; attempt++) {
      if (this.lost) throw new LeaseLost();
      try {
        const head = await this.ctx.store.append(this.state.runId, this.pending, { expectedSeq: this.committed.seq, lease: this.lease }, this.state.status);
        this.committed = head;
        this.pending = [];
        await this.maybeSnapshot();
        return;
      } catch (e) {
        if (isIsoagentError(e, "LEASE_NOT_HELD")) {
          this.lost = true;
          this.pending = [];
          throw new LeaseLost();
        }
        if (!isIsoagentError(e, "JOURNAL_CONFLICT") || attempt >= 8) throw e;
        await this.replayOnto(await loadState(this.ctx.store, this.state.runId));
      }
    }
  }

  private async replayOnto(fresh: RunState): Promise<void> {
    const mine = this.pending.map(({ seq: _s, prev: _p, hash: _h, ...rest }) => rest as UnsealedEvent);
    this.state = fresh;
    this.committed = { seq: fresh.seq, hash: fresh.hash };
    this.pending = [];
    if (TERMINAL_STATUSES.has(fresh.status)) {
      this.ended = true;
      for (const e of mine) {
        if (e.type === "call.finished") this.push({ ...e, late: true });
      }
      return;
    }
    for (const e of mine) {
      try {
        this.push(e);
      } catch (err) {
        // An operator's answer made the rest of our batch moot: drop it, and
        // let the loop decide again from the journal.
        if (err instanceof JournalError) return;
        throw err;
      }
    }
  }

  private async maybeSnapshot(): Promise<void> {
    if (this.state.seq - this.lastSnapshot < this.ctx.snapshotEvery) return;
    this.lastSnapshot = this.state.seq;
    // Without the transcript (it grows with the run; the journal has it): a
    // snapshot, and so a resume, costs the same at any length.
    const { transcript: _t, transcriptPartial: _p, ...rest } = this.state;
    const state = { ...(JSON.parse(JSON.stringify(rest)) as Omit<RunState, "transcript">), transcript: [], transcriptPartial: true as const };
    await this.ctx.store.putSnapshot(this.state.runId, { seq: this.state.seq, hash: this.state.hash, state });
  }

  /** The whole transcript, rebuilt from the journal once, when a state came from a snapshot and the agent is to be asked. */
  private async completeTranscript(): Promise<void> {
    if (this.state.transcriptPartial !== true) return;
    this.state.transcript = await fullTranscript(this.ctx.store, this.state.runId, this.pending);
    delete this.state.transcriptPartial;
  }

  // ---- the loop ------------------------------------------------------------

  /** Drives the run until it ends, waits for an operator, or this driver must stop. */
  async drive(): Promise<RunOutcome> {
    let stopped: RunOutcome["stopped"];
    // A run that has ended, or waits for an operator, is not touched: no
    // run.resumed for a resume that cannot move it.
    if (TERMINAL_STATUSES.has(this.state.status) || this.state.status === "waiting") {
      await this.ctx.store.releaseLease(this.lease);
      return this.outcome(undefined);
    }
    this.startRenewal();
    try {
      this.event("run.resumed", { owner: this.lease.owner, token: this.lease.token });
      stopped = await this.loop();
      return this.outcome(stopped);
    } catch (e) {
      if (isCrash(e)) {
        this.crashed = true;
        return this.outcome("crashed");
      }
      if (e instanceof LeaseLost) return this.outcome("lease_lost");
      if (e instanceof Interrupted) return this.outcome("signal");
      if (e instanceof StoreError && STORE_FAILURE_CODES.has(e.code as StoreErrorCode)) {
        // The store cannot take writes (quota, a closed database): stop here,
        // writing nothing more; what is journaled stays consistent.
        this.failed = { code: e.code, message: e.message };
        this.pending = [];
        return this.outcome("store_error");
      }
      throw e;
    } finally {
      this.cancelRenewal?.();
      if (this.failed !== undefined) {
        await this.ctx.store.releaseLease(this.lease).catch(() => {});
      } else if (!this.crashed && !this.lost) {
        try {
          await this.flush();
        } catch (e) {
          if (!(e instanceof LeaseLost)) throw e;
        }
        if (!this.lost) await this.ctx.store.releaseLease(this.lease);
      }
    }
  }

  private async loop(): Promise<RunOutcome["stopped"]> {
    const { limits } = this.state;
    for (;;) {
      if (this.lost) throw new LeaseLost();
      if (this.ended || TERMINAL_STATUSES.has(this.state.status)) return undefined;
      if (this.signal?.aborted === true) return "signal";
      if (limits.runTimeoutMs > 0 && this.ctx.clock.now() >= this.state.createdAt + limits.runTimeoutMs) {
        this.event("run.failed", { reason: "deadline", detail: `the run did not finish within ${limits.runTimeoutMs} ms` });
        continue;
      }
      const current = this.state.current;
      if (current !== null && !current.done) {
        for (const call of current.calls) if (call.status === "pending") await this.evaluate(current.step, call);
        for (const call of current.calls) if (call.status === "started") await this.recover(current.step, call);
        const runnable = current.calls.filter((c) => c.status === "approved");
        if (runnable.length === 0) {
          if (current.done) continue;
          if (this.state.status === "waiting") return undefined; // for an operator
          throw new JournalError("JOURNAL_INVALID", `step ${current.step} of run ${this.state.runId} has calls that can neither run nor wait`);
        }
        const parallel = runnable.length > 1 && runnable.every((c) => this.ctx.tools.get(c.name)!.compiled.parallelSafe);
        await this.execute(current.step, parallel ? runnable : [runnable[0]!]);
        continue;
      }
      if (this.state.step >= limits.maxSteps) {
        this.event("run.failed", { reason: "max_steps", detail: `the run reached its limit of ${limits.maxSteps} steps` });
        continue;
      }
      if (this.state.consecutiveFailures >= limits.maxConsecutiveFailures) {
        this.event("run.failed", { reason: "consecutive_failures", detail: `${this.state.consecutiveFailures} calls in a row failed` });
        continue;
      }
      if ((await this.decide()) === "unavailable") return "agent_unavailable";
    }
  }

  // ---- deciding --------------------------------------------------------------

  private async decide(): Promise<"ok" | "unavailable"> {
    await this.completeTranscript();
    const step = this.state.step + 1;
    let decision: AgentDecision;
    try {
      decision = await this.ctx.agent.decide(
        { task: this.state.task, tools: this.ctx.exposed, transcript: this.state.transcript, step },
        { signal: this.agentAbort.signal, onProgress: this.ctx.progress.sink(this.state.runId, step) },
      );
    } catch (e) {
      this.ctx.progress.clear(this.state.runId);
      if (isCrash(e)) throw e;
      if (this.lost) throw new LeaseLost();
      if (this.signal?.aborted === true) throw new Interrupted();
      if (e instanceof AgentError && e.retryable) return "unavailable";
      const detail = e instanceof AgentError ? e.message : `the agent failed (${e instanceof Error ? e.name : typeof e})`;
      this.event("run.failed", { reason: "agent_error", detail });
      return "ok";
    }
    this.ctx.progress.clear(this.state.runId);
    if (this.lost) throw new LeaseLost();
    const normalized = this.normalize(decision, step);
    if (typeof normalized === "string") {
      this.event("run.failed", { reason: "agent_error", detail: `the agent returned a decision the runtime cannot use: ${normalized}` });
      return "ok";
    }
    this.event("step.decided", { step, decision: normalized.decision });
    if (normalized.decision.kind === "final") {
      this.event("run.completed", { output: normalized.decision.output });
      return "ok";
    }
    for (const call of this.state.current!.calls) await this.evaluate(step, call);
    return "ok";
  }

  /** The agent's answer as a journal decision (call ids assigned), or why it cannot be one. */
  private normalize(d: AgentDecision, step: number): { decision: import("../journal/index.js").Decision } | string {
    if (typeof d !== "object" || d === null) return "not an object";
    const text = typeof d.text === "string" ? { text: d.text } : {};
    if (d.kind === "final") {
      try {
        return { decision: { kind: "final", output: cloneJson(d.output === undefined ? null : d.output), ...text } };
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
      if (typeof id !== "string" || !ID_PATTERN.test(id) || seen.has(id)) return `call ${k + 1} has a missing, malformed or repeated id`;
      seen.add(id);
      calls.push({ callId: parseCallId(id), name: c.name, args: c.args });
    }
    return { decision: { kind: "calls", calls, ...text } };
  }

  // ---- one call: check, policy, approval --------------------------------------

  private async evaluate(step: number, call: CallState): Promise<void> {
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
    this.checkedArgs.set(call.callId, checked.args);
    let resources: readonly ResourceRef[];
    try {
      resources = checkResources(entry.compiled.resources?.(checked.args as never) ?? []);
    } catch (e) {
      // A tool refuses arguments it can tell are wrong (a path outside its
      // workspace) as it works out what they touch: before policy, approval
      // and any effect, in its own words.
      if (isToolError(e)) {
        this.event("call.rejected", { step, callId: call.callId, observation: toolErrorObservation(call.name, e, this.ctx.redact) });
        return;
      }
      this.event("call.permission", { step, callId: call.callId, permission: "deny", source: "spec", reason: "resources could not be determined" });
      this.event("call.rejected", { step, callId: call.callId, observation: resourcesFailedObservation(call.name) });
      return;
    }
    let decided: { permission: "allow" | "ask" | "deny"; reason?: string | undefined };
    try {
      decided = this.ctx.policy({ tool: call.name, sideEffect: entry.compiled.sideEffect, args: checked.args, resources });
    } catch {
      decided = { permission: "deny", reason: "the policy failed" };
    }
    const permission = strictest(entry.compiled.permission, decided.permission);
    const fromPolicy = permission !== entry.compiled.permission;
    const reason = fromPolicy ? decided.reason : undefined;
    this.event("call.permission", { step, callId: call.callId, permission, source: fromPolicy ? "policy" : "spec", ...(reason === undefined ? {} : { reason }) });
    if (permission === "deny") {
      this.event("call.rejected", { step, callId: call.callId, observation: policyDeniedObservation(call.name, resources, reason) });
    } else if (permission === "ask") {
      const preview = await this.previewOf(entry, checked.args);
      if (preview instanceof ToolError) {
        // The tool can already tell the call would fail: nobody is asked.
        this.event("call.rejected", { step, callId: call.callId, observation: toolErrorObservation(call.name, preview, this.ctx.redact) });
        return;
      }
      this.requestApproval("call", step, call, entry, checked.args, resources, preview);
    }
  }

  /** The tool's preview of a call, under its timeout; left out when it fails; a ToolError it throws refuses the call. */
  private async previewOf(entry: ToolEntry, args: JsonValue): Promise<string | undefined | ToolError> {
    const preview = entry.compiled.preview;
    if (preview === undefined) return undefined;
    const controller = newAbortController();
    let cancelTimer = (): void => {};
    try {
      const text = await new Promise<unknown>((resolve, reject) => {
        cancelTimer = after(entry.compiled.timeoutMs, () => {
          controller.abort(new Error("timeout"));
          reject(new Error("timeout"));
        });
        Promise.resolve()
          .then(() => preview(args as never, { signal: controller.signal }))
          .then(resolve, reject);
      });
      if (typeof text !== "string") return undefined;
      const redacted = this.ctx.redact(text);
      return redacted.length <= PREVIEW_MAX_CHARS ? redacted : `${redacted.slice(0, PREVIEW_MAX_CHARS)}\n… (the preview was cut at ${PREVIEW_MAX_CHARS} characters)`;
    } catch (e) {
      if (isCrash(e)) throw e;
      return isToolError(e) ? e : undefined;
    } finally {
      cancelTimer();
    }
  }

  private requestApproval(kind: ApprovalRequest["kind"], step: number, call: CallState, entry: ToolEntry, args: JsonValue, resources: readonly ResourceRef[], preview?: string): void {
    const request: ApprovalRequest = {
      kind,
      runId: this.state.runId,
      step,
      callId: call.callId,
      attempt: kind === "call" ? call.attempt + 1 : call.attempt,
      tool: call.name,
      args,
      argsHash: hashJsonSync(args),
      sideEffect: entry.compiled.sideEffect,
      resources,
      ...(preview === undefined ? {} : { preview }),
      ...(kind === "call" && entry.compiled.wantsAnswer ? { wantsAnswer: true as const } : {}),
    };
    const approvalId = `apr.${step}.${call.callId}.${Object.keys(this.state.approvals).length + 1}` as ApprovalId;
    this.event("approval.requested", { approvalId, request, requestHash: hashJsonSync(request) });
  }

  /** The checked arguments of a call (re-checked after a restart: the check is deterministic). */
  private argsOf(call: CallState, entry: ToolEntry): JsonValue {
    const cached = this.checkedArgs.get(call.callId);
    if (cached !== undefined) return cached;
    const r = entry.compiled.check(call.args);
    if (!r.valid) throw new JournalError("JOURNAL_INVALID", `call ${call.callId} was started with arguments its tool refuses`);
    this.checkedArgs.set(call.callId, r.args);
    return r.args;
  }

  // ---- recovery ------------------------------------------------------------------

  /** A call started and never finished (a crash, a lost lease): its outcome is unknown. */
  private async recover(step: number, call: CallState): Promise<void> {
    const entry = this.ctx.tools.get(call.name)!;
    const base = { step, callId: call.callId, attempt: call.attempt };
    if (entry.compiled.sideEffect === "read_only") {
      this.event("call.reconciled", { ...base, resolution: "run_again", by: "runtime" });
      return;
    }
    const args = this.argsOf(call, entry);
    let answer: Reconciliation = { action: "ask_operator" };
    if (this.ctx.reconcile !== undefined) {
      try {
        answer = await this.ctx.reconcile({
          runId: this.state.runId,
          step,
          callId: call.callId,
          tool: call.name,
          sideEffect: entry.compiled.sideEffect,
          args,
          attempt: call.attempt,
          idempotencyKey: call.idempotencyKey ?? idempotencyKey(this.state.runId, step, call.callId),
        });
      } catch (e) {
        if (isCrash(e)) throw e;
        answer = { action: "ask_operator" };
      }
      if (this.lost) throw new LeaseLost();
      if (answer.action === "record_result") {
        const content = checkContent(call.name, answer.content, this.ctx.redact);
        const observation = content.ok ? await resultObservation(content.value, entry.compiled.outputPolicy, this.ctx.store) : content.observation;
        this.event("call.reconciled", { ...base, resolution: "record_result", by: "hook", observation });
        return;
      }
      if (answer.action === "record_failure") {
        this.event("call.reconciled", { ...base, resolution: "record_failure", by: "hook", observation: recordedFailureObservation(call.name, "hook") });
        return;
      }
      if (answer.action === "run_again") {
        this.event("call.reconciled", { ...base, resolution: "run_again", by: "hook" });
        return;
      }
      this.event("call.reconciled", { ...base, resolution: "ask_operator", by: "hook" });
    }
    const resources = checkResourcesSafe(entry, args);
    this.requestApproval("interrupted_side_effect", step, call, entry, args, resources);
  }

  // ---- execution ---------------------------------------------------------------------

  private async execute(step: number, group: CallState[]): Promise<void> {
    const runId = this.state.runId;
    const starts = group.map((call) => {
      const attempt = call.attempt + 1;
      const key = idempotencyKey(runId, step, call.callId);
      this.event("call.started", { step, callId: call.callId, attempt, idempotencyKey: key });
      return { call, attempt, key, entry: this.ctx.tools.get(call.name)! };
    });
    for (const s of starts) await this.fault("before_start_append", step, s.call);
    await this.flush();
    // Run only what the journal now says was started: an operator may have
    // cancelled the run before this append landed.
    const live = starts.filter((s) => {
      const c = this.state.current?.step === step ? this.state.current.calls.find((x) => x.callId === s.call.callId) : undefined;
      return !this.ended && !TERMINAL_STATUSES.has(this.state.status) && c?.status === "started" && c.attempt === s.attempt;
    });
    if (live.length === 0) return;
    starts.length = 0;
    starts.push(...live);
    // A side effect waits until its start is durable, on stores that confirm later.
    if (this.ctx.store.confirm !== undefined && starts.some((s) => s.entry.compiled.sideEffect !== "read_only")) await this.ctx.store.confirm();
    for (const s of starts) await this.fault("after_start_append", step, s.call);
    const outcomes = await Promise.all(starts.map((s) => this.runTool(step, s.call, s.attempt, s.key, s.entry)));
    if (this.lost) throw new LeaseLost();
    let flushNow = false;
    let interrupted = false;
    for (let k = 0; k < starts.length; k++) {
      const s = starts[k]!;
      const o = outcomes[k]!;
      await this.fault("after_effect", step, s.call);
      this.event("call.finished", { step, callId: s.call.callId, attempt: s.attempt, observation: o.observation, ...(o.activity === undefined ? {} : { activity: o.activity }) });
      if (o.abort !== undefined && !TERMINAL_STATUSES.has(this.state.status)) this.event("run.failed", { reason: "tool_abort", detail: o.abort });
      if (o.complete !== undefined && !TERMINAL_STATUSES.has(this.state.status)) this.event("run.completed", { output: o.complete });
      if (s.entry.compiled.sideEffect !== "read_only" || o.abort !== undefined || o.complete !== undefined) flushNow = true;
      if (o.interrupted === true) interrupted = true;
    }
    // The outcome of a side effect is journaled before anything else happens;
    // an interrupted call's too, though the driver's own signal is aborted.
    if (flushNow || interrupted) await this.flush();
    for (const s of starts) await this.fault("after_finish_append", step, s.call);
    if (interrupted) throw new Interrupted();
  }

  /** The testkit's fault injection, when there is one. */
  private async fault(point: FaultPoint, step: number, call: CallState): Promise<void> {
    const faults = this.ctx.faults;
    if (faults !== undefined) await faults.at(point, { runId: this.state.runId, step, callId: call.callId, tool: call.name });
  }

  private async runTool(step: number, call: CallState, attempt: number, key: string, entry: ToolEntry): Promise<CallOutcome> {
    const tool = entry.compiled;
    const args = this.argsOf(call, entry);
    const controller = newAbortController();
    let timedOut = false;
    let cancelTimer = (): void => {};
    const onDriverAbort = (): void => controller.abort(new Error("interrupted"));
    this.signal?.addEventListener("abort", onDriverAbort, { once: true });
    if (this.signal?.aborted === true) onDriverAbort();
    type Raw = { kind: "value"; value: unknown } | { kind: "error"; error: unknown } | { kind: "aborted" };
    let raw: Raw;
    try {
      let returned: unknown;
      try {
        returned = controller.signal.aborted
          ? undefined
          : entry.tool.call(args as never, {
              runId: this.state.runId,
              step,
              callId: call.callId,
              attempt,
              idempotencyKey: key,
              fencingToken: this.lease.token,
              signal: controller.signal,
              ...(tool.wantsAnswer ? this.answerFor(call, attempt) : {}),
            });
      } catch (error) {
        returned = Promise.reject(error);
      }
      if (controller.signal.aborted) raw = { kind: "aborted" };
      else if (typeof (returned as { then?: unknown } | null)?.then !== "function") {
        // A tool that answered synchronously cannot be interrupted: no timer.
        raw = { kind: "value", value: returned };
      } else {
        cancelTimer = after(tool.timeoutMs, () => {
          timedOut = true;
          controller.abort(new Error("timeout"));
        });
        raw = await new Promise<Raw>((resolve) => {
          controller.signal.addEventListener("abort", () => resolve({ kind: "aborted" }), { once: true });
          if (controller.signal.aborted) resolve({ kind: "aborted" });
          (returned as Promise<unknown>).then(
            (value) => resolve({ kind: "value", value }),
            (error: unknown) => resolve({ kind: "error", error }),
          );
        });
      }
    } finally {
      cancelTimer();
      this.signal?.removeEventListener("abort", onDriverAbort);
    }
    const redact = this.ctx.redact;
    switch (raw.kind) {
      case "aborted":
        return timedOut ? { observation: timeoutObservation(tool) } : { observation: interruptedObservation(tool), interrupted: true };
      case "error": {
        const e = raw.error;
        if (isCrash(e)) throw e;
        if (isAbortRun(e)) return { observation: abortObservation(tool.name, redact(e.detail), redact), abort: redact(e.detail) };
        if (isToolError(e)) return { observation: toolErrorObservation(tool.name, e, redact) };
        return { observation: unexpectedErrorObservation(tool.name) };
      }
      case "value": {
        const content = checkContent(tool.name, raw.value, redact);
        if (!content.ok) return { observation: content.observation };
        const observation = await resultObservation(content.value, tool.outputPolicy, this.ctx.store);
        const activity = this.activityOf(tool, args, content.value);
        return { observation, ...(activity === undefined ? {} : { activity }), ...(tool.terminal ? { complete: content.value } : {}) };
      }
    }
  }

  /** What a person answered when approving this call (the latest answer, for an attempt run again after a crash). */
  private answerFor(call: CallState, attempt: number): { answer?: { text: string; by: string } } {
    let found: { answer?: { text: string; by: string } } = {};
    for (const a of Object.values(this.state.approvals)) {
      const r = a.request;
      if (r.kind === "call" && r.step === this.state.current?.step && r.callId === call.callId && r.attempt <= attempt && a.status === "approved" && a.answer !== undefined) {
        found = { answer: { text: a.answer, by: a.by ?? "" } };
      }
    }
    return found;
  }

  /** The tool's activity line for a success: redacted, one line, at most 200 characters; left out when it fails. */
  private activityOf(tool: ToolEntry["compiled"], args: JsonValue, result: JsonValue): string | undefined {
    if (tool.activity === undefined) return undefined;
    try {
      const line = tool.activity(args as never, result);
      if (typeof line !== "string" || line.trim() === "") return undefined;
      const one = this.ctx.redact(line).replace(/\s+/g, " ").trim();
      return one.length > 200 ? `${one.slice(0, 199)}…` : one;
    } catch {
      return undefined;
    }
  }

  // ---- lease -------------------------------------------------------------------------

  private startRenewal(): void {
    const every = Math.max(1, Math.floor(this.ctx.leaseTtlMs / 3));
    const tick = (): void => {
      this.cancelRenewal = after(every, () => {
        void this.ctx.store.renewLease(this.lease, this.ctx.leaseTtlMs).then(
          (renewed) => {
            if (renewed === null) this.loseLease();
            else {
              this.lease = renewed;
              tick();
            }
          },
          () => this.loseLease(),
        );
      });
    };
    tick();
  }

  private loseLease(): void {
    this.lost = true;
    this.agentAbort.abort(new Error("lease lost"));
  }

  private outcome(stopped: RunOutcome["stopped"]): RunOutcome {
    const s = this.state;
    const approvals = Object.values(s.approvals).filter((a) => a.status === "pending");
    return {
      runId: s.runId,
      status: s.status,
      seq: s.seq,
      approvals,
      ...(s.output !== undefined ? { output: s.output } : {}),
      ...(s.failure !== undefined ? { failure: s.failure } : {}),
      ...(stopped !== undefined ? { stopped } : {}),
      ...(this.failed !== undefined ? { error: this.failed } : {}),
    };
  }
}

function checkResourcesSafe(entry: ToolEntry, args: JsonValue): readonly ResourceRef[] {
  try {
    return checkResources(entry.compiled.resources?.(args as never) ?? []);
  } catch {
    return [];
  }
}

export type { StoreError };
