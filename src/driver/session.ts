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
import type { AgentDecision, AgentError } from "../agents/index.js";
import { IsoagentError, isIsoagentError } from "../errors.js";
import type { RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import { apply, JOURNAL_VERSION, pendingApprovals, reduce, seal, TERMINAL_STATUSES, verifyChain, type CallState, type Interruption, type JournalEvent, type RunState, type UnsealedEvent } from "../journal/index.js";
import { STORE_FAILURE_CODES, type Lease, type StoreError, type StoreErrorCode } from "../store/index.js";
import { isJournalError, JournalError } from "../journal/errors.js";
import { after, newAbortController, type AbortSignalLike } from "../web.js";
import type { DriverContext } from "./context.js";
import { runTool } from "../call/execute.js";
import { Gate, toDecision } from "../call/gate.js";
import { idempotencyKey } from "./keys.js";
import { compact, estimate } from "./compaction.js";
import { loadState } from "../store/load.js";
import { outcomeOf } from "./outcome.js";
import { recover } from "./recovery.js";
import { isCrash, type FaultPoint, type RunOutcome } from "./types.js";

/** Thrown inside a session when its lease is gone: it must stop writing at once. */
const leaseLost = (): IsoagentError => new IsoagentError("LEASE_LOST", "");
/** Thrown inside a session when the driver's own signal is aborted. */
const signalled = (): IsoagentError => new IsoagentError("RUN_INTERRUPTED", "");

export { idempotencyKey };

export class Session {
  private state: RunState;
  private committed: { seq: number; hash: string };
  private pending: JournalEvent[] = [];
  private lost = false;
  private crashed = false;
  private ended = false;
  private failed: { code: string; message: string } | undefined;
  private lastSnapshot: number;
  private readonly agentAbort = newAbortController();
  private cancelRenewal: (() => void) | undefined;
  /** When the lease is next due for renewal, by the driver's clock. */
  private renewDue = 0;
  /** When each call (or preview) in flight may end at the latest, by the driver's clock: the lease covers them (see {@link cover}). */
  private readonly covers: number[] = [];
  /** Until when the lease is held at least, by the driver's clock: when its last acquisition or renewal was asked for, plus the time to live asked. */
  private heldUntil = 0;
  private readonly gate: Gate;
  /** How the drive before this one ended, when it never released the run (the lease this one took over). */
  private readonly lastEnd: Pick<Interruption, "cause" | "holder" | "expiresAt">;
  /** Set while a takeover has not asked the model yet: what ran since the resume is written before it is asked. */
  private recovering: boolean;

  private constructor(
    private readonly ctx: DriverContext,
    private lease: Lease,
    state: RunState,
    private readonly signal: AbortSignalLike | undefined,
  ) {
    this.state = state;
    this.committed = { seq: state.seq, hash: state.hash };
    this.lastSnapshot = state.seq;
    this.gate = new Gate({ ctx, state: () => this.state, push: (e) => this.push(e), cover: (ms) => this.cover(ms) });
    const took = lease.took;
    this.recovering = took !== undefined;
    // Taken over before it ran out (by the store's clock, when this lease was issued): its holder is known to have stopped.
    this.lastEnd =
      took === undefined ? { cause: "released" } : { cause: took.expiresAt > lease.expiresAt - ctx.leaseTtlMs ? "lease_broken" : "lease_expired", holder: took.holder, expiresAt: took.expiresAt };
  }

  /** Takes the run's lease and loads it; null when another driver holds the lease. */
  static async open(ctx: DriverContext, runId: RunId, signal: AbortSignalLike | undefined): Promise<Session | null> {
    const asked = ctx.clock.now();
    const lease = await ctx.store.acquireLease(runId, ctx.owner, ctx.leaseTtlMs);
    if (lease === null) return null;
    try {
      const state = await loadState(ctx.store, runId);
      ctx.checkShapes(state);
      const session = new Session(ctx, lease, state, signal);
      session.heldUntil = asked + ctx.leaseTtlMs;
      return session;
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

  /** Events of a v2 shape are stamped v2; those of a later shape, the version that has it. */
  private event<T extends UnsealedEvent["type"]>(type: T, fields: Omit<Extract<UnsealedEvent, { type: T }>, "type" | "v" | "at">, v = 2): void {
    this.push({ v, at: this.ctx.clock.now(), type, ...fields } as unknown as UnsealedEvent);
  }

  /**
   * Appends what is pending. When the journal moved (an operator answered or
   * cancelled), reloads it and replays what is pending on top: after a
   * cancellation, only the outcomes of calls already in flight are kept, as
   * late outcomes.
   */
  private async flush(): Promise<void> {
    if (this.pending.length > 0) await this.renewIfDue();
    for (let attempt = 0; this.pending.length > 0; attempt++) {
      if (this.lost) throw leaseLost();
      try {
        const head = await this.ctx.store.append(this.state.runId, this.pending, { expectedSeq: this.committed.seq, lease: this.lease }, this.state.status);
        this.committed = head;
        this.pending = [];
        this.ctx.notify(this.state.runId, "append");
        await this.maybeSnapshot();
        return;
      } catch (e) {
        if (isIsoagentError(e, "LEASE_NOT_HELD")) {
          this.lost = true;
          this.pending = [];
          throw leaseLost();
        }
        if (!isIsoagentError(e, "JOURNAL_CONFLICT") || attempt >= 8) throw e;
        // What is pending may compact the transcript: then the fresh state needs the whole of it.
        await this.replayOnto(await loadState(this.ctx.store, this.state.runId, { transcript: this.pending.some((e) => e.type === "context.compacted") }));
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
        if (isJournalError(err)) return;
        throw err;
      }
    }
  }

  /**
   * A snapshot holds the state, every `snapshotEvery` events, so a resume
   * reads the snapshot and the tail after it, never the whole journal.
   * With a context budget it holds the model-facing transcript too (kept
   * short by the budget), so a resume that asks the agent reads nothing
   * more. Without one the transcript grows with the run, so the snapshot
   * leaves it out (transcriptOmitted): a resume that only waits stays
   * constant in the journal's length, and one that asks the agent rebuilds
   * the transcript from the journal once (its request is as long anyway).
   */
  private async maybeSnapshot(): Promise<void> {
    const omit = this.ctx.context === undefined || this.state.transcriptOmitted === true;
    if (this.state.seq - this.lastSnapshot < (omit ? this.ctx.snapshotEvery : Math.max(this.ctx.snapshotEvery, this.state.transcript.length))) return;
    this.lastSnapshot = this.state.seq;
    const state = JSON.parse(JSON.stringify(omit ? { ...this.state, transcript: [], transcriptOmitted: true } : this.state)) as RunState;
    await this.ctx.store.putSnapshot(this.state.runId, { seq: this.state.seq, hash: this.state.hash, state });
  }

  /** The whole transcript, rebuilt from the journal when the state came from a snapshot that left it out. */
  private async ensureTranscript(): Promise<void> {
    if (this.state.transcriptOmitted !== true) return;
    const stored = await this.ctx.store.read(this.state.runId);
    verifyChain(stored);
    const full = reduce([...stored, ...this.pending]);
    if (full.seq !== this.state.seq || full.hash !== this.state.hash) throw new JournalError("JOURNAL_INVALID", `run ${this.state.runId}'s journal ends at event ${full.seq}, its state at ${this.state.seq}`);
    this.state.transcript = full.transcript;
    if (full.lastUsage === undefined) delete this.state.lastUsage;
    else this.state.lastUsage = full.lastUsage;
    delete this.state.transcriptOmitted;
  }

  // ---- context ---------------------------------------------------------------

  /**
   * Compacts the transcript when the next request would pass the budget
   * (reason "budget"), or because the provider said it did ("provider", to
   * half the estimate). True when something was compacted.
   */
  private async compactContext(reason: "budget" | "provider"): Promise<boolean> {
    const options = this.ctx.context;
    if (options === undefined) return false;
    const now = estimate(this.state, this.ctx.toolsTokens);
    if (reason === "budget" && now <= options.budgetTokens) return false;
    const c = await compact(this.ctx, this.state, options, reason, this.ctx.toolsTokens, this.agentAbort.signal);
    if (this.lost) throw leaseLost();
    if (c === undefined) return false;
    this.event("context.compacted", c);
    return true;
  }

  // ---- the loop ------------------------------------------------------------

  /** Drives the run until it ends, waits for an operator, or this driver must stop. */
  async drive(): Promise<RunOutcome> {
    let stopped: RunOutcome["stopped"];
    // A run that has ended, or waits for an operator, is not touched: no
    // run.resumed for a resume that cannot move it. A wait for an approval
    // asked under another policy moves: the call is decided again.
    if (TERMINAL_STATUSES.has(this.state.status) || (this.state.status === "waiting" && !this.gate.hasStale())) {
      await this.ctx.store.releaseLease(this.lease);
      return this.outcome(undefined);
    }
    this.startRenewal();
    try {
      await this.resumed();
      stopped = await this.loop();
    } catch (e) {
      if (isCrash(e)) {
        this.crashed = true;
        stopped = "crashed";
      } else if (isIsoagentError(e, "LEASE_LOST")) stopped = "lease_lost";
      else if (isIsoagentError(e, "RUN_INTERRUPTED")) stopped = "signal";
      else if (this.stoppedByStore(e)) stopped = "store_error";
      else throw e;
    } finally {
      this.cancelRenewal?.();
      if (this.failed === undefined && !this.crashed && !this.lost) {
        try {
          await this.flush();
        } catch (e) {
          // The last flush meets a failing store as the loop does: a stop, not a throw.
          if (this.stoppedByStore(e)) stopped = "store_error";
          else if (!isIsoagentError(e, "LEASE_LOST")) throw e;
        }
      }
      // A lease lost anywhere (the loop, its last flush, a renewal) is the stop.
      if (this.lost && !this.crashed) stopped = "lease_lost";
      // A failing store may refuse the release too; a lease lost or crashed is not ours to release.
      if (this.failed !== undefined) await this.ctx.store.releaseLease(this.lease).catch(() => {});
      else if (!this.crashed && !this.lost) await this.ctx.store.releaseLease(this.lease);
    }
    // A drive the store stopped, that lost its lease or crashed, reports the
    // run as the store holds it, as a busy one does (what was applied in memory but
    // never written is not reported), or, when the store cannot even be
    // read, as far as it was committed.
    if (this.failed !== undefined || stopped === "lease_lost" || stopped === "crashed") return outcomeOf(await loadState(this.ctx.store, this.state.runId).catch(() => ({ ...this.state, seq: this.committed.seq })), stopped, this.failed);
    // After the last flush: what it appended, or dropped when an operator's
    // answer made it moot, is what the outcome reports.
    return this.outcome(stopped);
  }

  /**
   * Whether `e` says the store cannot take writes (quota, a closed
   * database): the drive then stops, writing nothing more; what is journaled
   * stays consistent.
   */
  private stoppedByStore(e: unknown): boolean {
    if (!(isIsoagentError(e) && STORE_FAILURE_CODES.has(e.code as StoreErrorCode))) return false;
    this.failed = { code: e.code, message: e.message };
    this.pending = [];
    return true;
  }

  /**
   * Journals the resume. One that took the run over from a drive that never
   * released it is written at once, so that a crash loop leaves a count
   * (`takeovers`); at `maxResumesWithoutProgress` of them in a row the run
   * fails `no_progress` instead of being driven again.
   */
  private async resumed(): Promise<void> {
    const { holder, expiresAt } = this.lastEnd;
    if (holder === undefined) {
      this.event("run.resumed", { owner: this.lease.owner, token: this.lease.token });
      return;
    }
    this.event("run.resumed", { owner: this.lease.owner, token: this.lease.token, took: { holder, expiresAt: expiresAt! } }, JOURNAL_VERSION);
    const max = this.ctx.recovery.maxResumesWithoutProgress;
    const n = this.state.takeovers ?? 0;
    if (max > 0 && n >= max) {
      const detail = `the run was taken over ${n} times in a row without progress (recovery.maxResumesWithoutProgress): each drive stopped without releasing it, the last by ${holder}: a crash loop`;
      this.event("run.failed", { reason: "no_progress", detail }, JOURNAL_VERSION);
    }
    await this.flush();
  }

  private async loop(): Promise<RunOutcome["stopped"]> {
    const { limits } = this.state;
    for (;;) {
      if (this.lost) throw leaseLost();
      if (this.ended || TERMINAL_STATUSES.has(this.state.status)) return undefined;
      if (this.signal?.aborted === true) return "signal";
      if (limits.runTimeoutMs > 0 && this.ctx.clock.now() >= this.state.createdAt + limits.runTimeoutMs) {
        this.event("run.failed", { reason: "deadline", detail: `the run did not finish within ${limits.runTimeoutMs} ms` });
        continue;
      }
      const current = this.state.current;
      if (current !== null && !current.done) {
        this.gate.reopenStale();
        for (const call of current.calls) if (call.status === "pending") await this.gate.evaluate(current.step, call);
        for (const call of current.calls) if (call.status === "started") await this.recoverCall(current.step, call);
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
      // 0 means no limit, for every limit.
      if (limits.maxSteps > 0 && this.state.step >= limits.maxSteps) {
        this.event("run.failed", { reason: "max_steps", detail: `the run reached its limit of ${limits.maxSteps} steps` });
        continue;
      }
      if (limits.maxConsecutiveFailures > 0 && this.state.consecutiveFailures >= limits.maxConsecutiveFailures) {
        this.event("run.failed", { reason: "consecutive_failures", detail: `${this.state.consecutiveFailures} calls in a row failed` });
        continue;
      }
      if ((await this.decide()) === "unavailable") return "agent_unavailable";
    }
  }

  // ---- deciding --------------------------------------------------------------

  private async decide(): Promise<"ok" | "unavailable"> {
    // After a takeover, what was done since the resume (a read re-run) is
    // written before the model is asked: a crash in the model's call is then
    // not counted against the read.
    if (this.recovering) {
      this.recovering = false;
      await this.flush();
    }
    await this.ensureTranscript();
    await this.compactContext("budget");
    const step = this.state.step + 1;
    let decision: AgentDecision;
    for (let attempt = 0; ; attempt++) {
      try {
        decision = await this.ctx.agent.decide(
          { task: this.state.task, tools: this.ctx.exposed, transcript: this.state.transcript, step },
          { signal: this.agentAbort.signal, onProgress: this.ctx.progress.sink(this.state.runId, step) },
        );
        break;
      } catch (e) {
        this.ctx.progress.clear(this.state.runId);
        if (isCrash(e)) throw e;
        if (this.lost) throw leaseLost();
        if (this.signal?.aborted === true) throw signalled();
        const agentError = isIsoagentError(e, "AGENT_ERROR") ? (e as AgentError) : undefined;
        if (agentError?.contextExceeded) {
          // One compaction and one more try; then the run cannot go on.
          if (attempt === 0 && (await this.compactContext("provider"))) continue;
          const detail =
            this.ctx.context === undefined
              ? `${agentError.message}; give the driver a context budget (createDriver({ context: { budgetTokens } })) to compact the transcript`
              : `${agentError.message}, even after compacting the transcript to about ${estimate(this.state, this.ctx.toolsTokens)} tokens`;
          this.event("run.failed", { reason: "context_exceeded", detail });
          return "ok";
        }
        if (agentError?.retryable) return "unavailable";
        const detail = agentError ? agentError.message : `the agent failed (${e instanceof Error ? e.name : typeof e})`;
        this.event("run.failed", { reason: "agent_error", detail });
        return "ok";
      }
    }
    this.ctx.progress.clear(this.state.runId);
    if (this.lost) throw leaseLost();
    const normalized = toDecision(decision, step);
    if (typeof normalized === "string") {
      this.event("run.failed", { reason: "agent_error", detail: `the agent returned a decision the runtime cannot use: ${normalized}` });
      return "ok";
    }
    this.event("step.decided", { step, decision: normalized.decision, ...(normalized.answer === undefined ? {} : { answer: normalized.answer }) });
    if (normalized.decision.kind === "final") {
      this.event("run.completed", { output: normalized.decision.output });
      return "ok";
    }
    for (const call of this.state.current!.calls) await this.gate.evaluate(step, call);
    return "ok";
  }

  // ---- recovery ------------------------------------------------------------------

  private recoverCall(step: number, call: CallState): Promise<void> {
    return recover(
      {
        ctx: this.ctx,
        gate: this.gate,
        runId: () => this.state.runId,
        event: (type, fields) => this.event(type, fields as never),
        ended: this.lastEnd,
        checkLease: () => {
          if (this.lost) throw leaseLost();
        },
      },
      step,
      call,
    );
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
    const uncover = await this.cover(Math.max(...starts.map((s) => s.entry.compiled.timeoutMs)));
    const x = { ctx: this.ctx, gate: this.gate, runId: this.state.runId, lease: this.lease, signal: this.signal, artifacts: () => this.state.artifacts };
    const outcomes = await Promise.all(starts.map((s) => runTool({ ...x, answer: this.answerFor(s.call, s.attempt) }, step, s.call, s.attempt, s.key, s.entry))).finally(uncover);
    if (this.lost) throw leaseLost();
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
    if (interrupted) throw signalled();
  }

  /** The testkit's fault injection, when there is one. */
  private async fault(point: FaultPoint, step: number, call: CallState): Promise<void> {
    const faults = this.ctx.faults;
    if (faults !== undefined) await faults.at(point, { runId: this.state.runId, step, callId: call.callId, tool: call.name });
  }

  /** What a person answered when approving this call (the latest answer, for an attempt run again after a crash). */
  private answerFor(call: CallState, attempt: number): { text: string; by: string } | undefined {
    let found: { text: string; by: string } | undefined;
    for (const a of Object.values(this.state.approvals)) {
      const r = a.request;
      if (r.kind === "call" && r.step === this.state.current?.step && r.callId === call.callId && r.attempt <= attempt && a.status === "approved" && a.answer !== undefined) {
        found = { text: a.answer, by: a.by ?? "" };
      }
    }
    return found;
  }

  // ---- lease -------------------------------------------------------------------------

  private renewEvery(): number {
    return Math.max(1, Math.floor(this.ctx.leaseTtlMs / 3));
  }

  /**
   * Renews by a timer, a third of the lease's time to live apart. A run whose
   * agent and tools answer at once never yields to timers (every await is a
   * microtask), so {@link flush} also renews inline when renewal is due.
   */
  private startRenewal(): void {
    const every = this.renewEvery();
    this.renewDue = this.ctx.clock.now() + every;
    const tick = (): void => {
      this.cancelRenewal = after(every, () => void this.renew().then(() => this.lost || tick()));
    };
    tick();
  }

  private async renewIfDue(): Promise<void> {
    if (!this.lost && this.ctx.clock.now() >= this.renewDue) await this.renew();
  }

  /**
   * The lease cover (issue 26). A call may block the event loop up to its
   * timeout (a tool that computes synchronously, an interpreter that cannot
   * be interrupted), and no renewal timer fires meanwhile: before it starts,
   * the lease must outlast the timeout by a renewal period, and every
   * renewal until the call ends keeps that much. When the lease already
   * does (a timeout short beside the lease's time to live), nothing is
   * asked of the store; otherwise it is renewed for longer, and the flush
   * after the call brings it back to its own time to live. The price: a
   * driver that dies during a long call leaves the run to another owner
   * only after the call's timeout has passed (the call may still be running
   * there). Returns what ends the cover; a lease lost stops the session
   * before the call starts.
   */
  private async cover(timeoutMs: number): Promise<() => void> {
    const until = this.ctx.clock.now() + timeoutMs;
    this.covers.push(until);
    const extend = until + this.renewEvery() > this.heldUntil;
    if (extend) await this.renew();
    if (this.lost) throw leaseLost();
    return () => {
      this.covers.splice(this.covers.indexOf(until), 1);
      if (extend) this.renewDue = 0;
    };
  }

  /** The time to live a renewal asks for: the lease's own, or enough to outlast every covered call by a renewal period. */
  private ttl(): number {
    return Math.max(this.ctx.leaseTtlMs, Math.max(0, ...this.covers) + this.renewEvery() - this.ctx.clock.now());
  }

  private async renew(): Promise<void> {
    const asked = this.ctx.clock.now();
    const ttl = this.ttl();
    this.renewDue = asked + this.renewEvery();
    try {
      const renewed = await this.ctx.store.renewLease(this.lease, ttl);
      if (renewed === null) this.loseLease();
      else {
        this.lease = renewed;
        this.heldUntil = asked + ttl;
      }
    } catch {
      this.loseLease();
    }
  }

  private loseLease(): void {
    this.lost = true;
    this.agentAbort.abort(new Error("lease lost"));
  }

  private outcome(stopped: RunOutcome["stopped"]): RunOutcome {
    return outcomeOf(this.state, stopped, this.failed);
  }
}

export type { StoreError };
