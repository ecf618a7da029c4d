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
 *
 * The session is built in layers, one concern each: the lease it holds and
 * how it stopped (lease-keeper.ts, stop.ts), the journal it writes
 * (journal-writer.ts), the calls it runs and recovers (session-calls.ts);
 * here, how a drive opens, loops, decides and stops.
 */
import type { AgentDecision, AgentError } from "../agents/index.js";
import { isIsoagentError } from "../errors.js";
import type { RunId } from "../ids.js";
import { JOURNAL_VERSION, TERMINAL_STATUSES } from "../journal/index.js";
import { STORE_FAILURE_CODES, type StoreError, type StoreErrorCode } from "../store/index.js";
import { JournalError } from "../journal/errors.js";
import type { AbortSignalLike } from "../web.js";
import type { DriverContext } from "./context.js";
import { toDecision } from "../call/gate.js";
import { idempotencyKey } from "./keys.js";
import { compact, estimate } from "./compaction.js";
import { loadState } from "../store/load.js";
import { outcomeOf } from "./outcome.js";
import { SessionCalls } from "./session-calls.js";
import { signalled, type Stop } from "./stop.js";
import { closedCalls } from "./closed.js";
import { answerSchema, checkAnswer } from "./output.js";

/** The most of a stopped answer's text the journal keeps. */
const PARTIAL_MAX_CHARS = 65_536;
import { isCrash, type RunOutcome } from "./types.js";

export { idempotencyKey };

export class Session extends SessionCalls {
  /** Set while a takeover has not asked the model yet: what ran since the resume is written before it is asked. */
  private recovering = this.lease.took !== undefined;
  /** Who stopped the turn this session runs, once someone did (requestStop). */
  private stopBy: string | undefined;
  /** The stopped answer's text as far as it was streamed. */
  private partial: string | undefined;

  /** Takes the run's lease and loads it; null when another driver holds the lease. */
  static async open(ctx: DriverContext, runId: RunId, signal: AbortSignalLike | undefined): Promise<Session | null> {
    const asked = ctx.clock.now();
    const lease = await ctx.store.acquireLease(runId, ctx.owner, ctx.leaseTtlMs);
    if (lease === null) return null;
    try {
      const { state, snapshotSeq } = await ctx.states.take(ctx.store, runId);
      ctx.checkShapes(state);
      const session = new Session(ctx, lease, state, snapshotSeq, signal);
      session.heldUntil = asked + ctx.leaseTtlMs;
      return session;
    } catch (e) {
      await ctx.store.releaseLease(lease);
      throw e;
    }
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
    this.checkLease();
    if (c === undefined) return false;
    this.event("context.compacted", c);
    return true;
  }

  // ---- the loop ------------------------------------------------------------

  /** Drives the run until it ends, waits for an operator, or this driver must stop. */
  async drive(): Promise<RunOutcome> {
    let stopped: RunOutcome["stopped"];
    let stop: Stop | undefined;
    // A run that has ended, or waits for an operator, is not touched: no
    // run.resumed for a resume that cannot move it. A wait for an approval
    // asked under another policy moves: the call is decided again.
    if (TERMINAL_STATUSES.has(this.state.status) || this.state.status === "idle" || (this.state.status === "waiting" && !this.gate.hasStale())) {
      await this.ctx.store.releaseLease(this.lease);
      this.ctx.states.keep(this.state, this.snapshotSeq);
      return outcomeOf(this.state, undefined);
    }
    this.startRenewal();
    try {
      await this.resumed();
      stopped = await this.loop();
    } catch (e) {
      // A crash is the stop, even of a session that had lost its lease.
      if (isCrash(e)) this.stop = { kind: "crashed" };
      else if (isIsoagentError(e, "RUN_INTERRUPTED")) stopped = "signal";
      // (A lease lost is the stop already.)
      else if (!isIsoagentError(e, "LEASE_LOST") && !this.stoppedByStore(e)) throw e;
    } finally {
      this.cancelRenewal?.();
      this.cancelRenewal = undefined;
      if (this.stop === undefined) {
        try {
          await this.flush();
        } catch (e) {
          // The last flush meets a failing store as the loop does: a stop, not a throw.
          if (!isIsoagentError(e, "LEASE_LOST") && !this.stoppedByStore(e)) throw e;
        }
      }
      // A lease lost anywhere (the loop, its last flush, a renewal) is the stop; what
      // the stop is now is what the drive reports (a renewal still in flight may end later).
      stop = this.stop;
      // A failing store may refuse the release too; a lease lost or crashed is not ours to release.
      if (stop?.kind === "store_error") await this.ctx.store.releaseLease(this.lease).catch(() => {});
      else if (stop === undefined) await this.ctx.store.releaseLease(this.lease);
    }
    // A drive the store stopped, that lost its lease or crashed, reports the
    // run as the store holds it, as a busy one does (what was applied in memory but
    // never written is not reported), or, when the store cannot even be
    // read, as far as it was committed.
    if (stop !== undefined) {
      return outcomeOf(await loadState(this.ctx.store, this.state.runId).catch(() => ({ ...this.state, seq: this.committed.seq })), stop.kind, stop.error);
    }
    // After the last flush: what it appended, or dropped when an operator's
    // answer made it moot, is what the outcome reports. The state is kept
    // for the run's next drive when it is exactly what the store holds.
    if (this.pending.length === 0 && this.state.seq === this.committed.seq) this.ctx.states.keep(this.state, this.snapshotSeq);
    return outcomeOf(this.state, stopped);
  }

  /**
   * Whether `e` says the store cannot take writes (quota, a closed
   * database): the drive then stops, writing nothing more; what is journaled
   * stays consistent.
   */
  private stoppedByStore(e: unknown): boolean {
    if (!(isIsoagentError(e) && STORE_FAILURE_CODES.has(e.code as StoreErrorCode))) return false;
    // A lease lost before stays the stop.
    this.stop ??= { kind: "store_error", error: { code: e.code, message: e.message } };
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
      this.checkLease();
      // A conversation between turns waits for its user: the drive ends there.
      if (TERMINAL_STATUSES.has(this.state.status) || this.state.status === "idle") return undefined;
      const turn = this.state.conversation;
      if (turn !== undefined && this.stopBy !== undefined) {
        this.event(
          "turn.ended",
          { turn: turn.turn, reason: "stopped", by: this.stopBy, ...(this.partial ? { partial: this.partial } : {}), closed: closedCalls(this.ctx, this.state) },
          JOURNAL_VERSION,
        );
        continue;
      }
      if (turn !== undefined && this.toolAnswer !== undefined && this.state.current?.done === true) {
        this.event("turn.ended", { turn: turn.turn, reason: "answered", output: this.toolAnswer }, JOURNAL_VERSION);
        this.toolAnswer = undefined;
        continue;
      }
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
      // 0 means no limit, for every limit. A conversation's turn has its own steps.
      if (limits.maxSteps > 0 && this.state.step - (turn?.fromStep ?? 0) >= limits.maxSteps) {
        this.fail("max_steps", turn === undefined ? `the run reached its limit of ${limits.maxSteps} steps` : `the turn reached its limit of ${limits.maxSteps} steps`);
        continue;
      }
      if (limits.maxConsecutiveFailures > 0 && this.state.consecutiveFailures >= limits.maxConsecutiveFailures) {
        this.fail("consecutive_failures", `${this.state.consecutiveFailures} calls in a row failed`);
        continue;
      }
      if ((await this.decide()) === "unavailable") return "agent_unavailable";
    }
  }

  // ---- turns -----------------------------------------------------------------

  /**
   * Stops the conversation's turn this session runs (Driver.stopTurn): the
   * model call is aborted, the tools in flight are interrupted (each told
   * by its side effect), and the loop ends the turn, `stopped`.
   */
  requestStop(by: string): void {
    if (this.state.conversation?.open !== true) return;
    this.stopBy ??= by;
    this.agentAbort.abort(new Error("the turn was stopped"));
    this.turnAbort.abort(new Error("the turn was stopped"));
  }

  /**
   * A limit reached: in a conversation, a limit of the turn (its steps,
   * failures in a row, the model's failure, the context) ends the turn and
   * leaves the conversation open; in a task, it fails the run.
   */
  private fail(reason: "max_steps" | "consecutive_failures" | "agent_error" | "context_exceeded", detail: string): void {
    const turn = this.state.conversation;
    if (turn === undefined) this.event("run.failed", { reason, detail });
    else this.event("turn.ended", { turn: turn.turn, reason, detail, closed: closedCalls(this.ctx, this.state) }, JOURNAL_VERSION);
  }

  // ---- deciding --------------------------------------------------------------

  /** The bytes of the files the transcript's messages carry (v5), for the agent; undefined when none does. */
  private async filesShown(): Promise<Map<string, Uint8Array> | undefined> {
    let files: Map<string, Uint8Array> | undefined;
    for (const item of this.state.transcript) {
      if (item.type !== "user" || item.files === undefined) continue;
      for (const f of item.files) {
        files ??= new Map();
        if (files.has(f.sha256)) continue;
        const bytes = await this.ctx.store.getArtifact(f.sha256);
        if (bytes !== null) files.set(f.sha256, bytes);
      }
    }
    return files;
  }

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
    const files = await this.filesShown();
    const outputSchema = answerSchema(this.state);
    const step = this.state.step + 1;
    let decision: AgentDecision;
    for (let attempt = 0; ; attempt++) {
      try {
        decision = await this.ctx.agent.decide(
          {
            task: this.state.task,
            tools: this.ctx.exposed,
            transcript: this.state.transcript,
            step,
            ...(files === undefined ? {} : { files }),
            ...(outputSchema === undefined ? {} : { outputSchema }),
          },
          { signal: this.agentAbort.signal, onProgress: this.ctx.progress.sink(this.state.runId, step) },
        );
        break;
      } catch (e) {
        // What a stopped answer had said so far is kept with the stop (not shown to the agent).
        if (this.stopBy !== undefined) this.partial = this.ctx.progress.get(this.state.runId)?.text.slice(0, PARTIAL_MAX_CHARS);
        this.ctx.progress.clear(this.state.runId);
        if (isCrash(e)) throw e;
        this.checkLease();
        if (this.stopBy !== undefined) return "ok";
        if (this.signal?.aborted === true) throw signalled();
        const agentError = isIsoagentError(e, "AGENT_ERROR") ? (e as AgentError) : undefined;
        if (agentError?.contextExceeded) {
          // One compaction and one more try; then the run cannot go on.
          if (attempt === 0 && (await this.compactContext("provider"))) continue;
          const detail =
            this.ctx.context === undefined
              ? `${agentError.message}; give the driver a context budget (createDriver({ context: { budgetTokens } })) to compact the transcript`
              : `${agentError.message}, even after compacting the transcript to about ${estimate(this.state, this.ctx.toolsTokens)} tokens`;
          this.fail("context_exceeded", detail);
          return "ok";
        }
        if (agentError?.retryable) return "unavailable";
        const detail = agentError ? agentError.message : `the agent failed (${e instanceof Error ? e.name : typeof e})`;
        this.fail("agent_error", detail);
        return "ok";
      }
    }
    this.ctx.progress.clear(this.state.runId);
    this.checkLease();
    // A turn stopped while the model answered: its answer is not taken (the loop ends the turn).
    if (this.stopBy !== undefined) return "ok";
    const normalized = toDecision(decision, step);
    if (typeof normalized === "string") {
      this.fail("agent_error", `the agent returned a decision the runtime cannot use: ${normalized}`);
      return "ok";
    }
    let decided = normalized.decision;
    // A final answer under an output schema: the JSON its text holds is the answer; one the schema refuses is asked again.
    const checked = decided.kind === "final" && outputSchema !== undefined ? checkAnswer(outputSchema, decided.output) : undefined;
    if (checked?.valid === true) decided = { ...decided, output: checked.output } as typeof decided;
    this.event("step.decided", { step, decision: decided, ...(normalized.answer === undefined ? {} : { answer: normalized.answer }) });
    if (checked?.valid === false) {
      this.event("output.rejected", { step, error: checked.text }, JOURNAL_VERSION);
      return "ok";
    }
    if (decided.kind === "final") {
      const turn = this.state.conversation;
      if (turn !== undefined) this.event("turn.ended", { turn: turn.turn, reason: "answered" }, JOURNAL_VERSION);
      else this.event("run.completed", { output: decided.output });
      return "ok";
    }
    for (const call of this.state.current!.calls) await this.gate.evaluate(step, call);
    return "ok";
  }
}

export type { StoreError };
