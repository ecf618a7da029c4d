/**
 * The calls of a step, as a session runs them: executing a group of
 * approved calls (their starts durable before any effect, the lease
 * covering them, their outcomes journaled before anything acts on them),
 * and recovering a call found started (src/driver/recovery.ts decides).
 * The gate (src/call/gate.ts) checks each call before, and runTool
 * (src/call/execute.ts) runs it. The third layer of {@link Session}
 * (src/driver/session.ts), over its journal and its lease.
 */
import type { CallState, Interruption, RunState } from "../journal/index.js";
import type { JsonValue } from "../json/index.js";
import { TERMINAL_STATUSES } from "../journal/index.js";
import type { Lease } from "../store/index.js";
import { newAbortController, type AbortSignalLike } from "../web.js";
import { runTool } from "../call/execute.js";
import { Gate } from "../call/gate.js";
import type { DriverContext } from "./context.js";
import { idempotencyKey } from "./keys.js";
import { SessionJournal } from "./journal-writer.js";
import { recover } from "./recovery.js";
import { signalled } from "./stop.js";
import type { FaultPoint } from "./types.js";

export abstract class SessionCalls extends SessionJournal {
  protected readonly gate = new Gate({ ctx: this.ctx, state: () => this.state, push: (e) => this.push(e), cover: (ms) => this.cover(ms) });
  /** How the drive before this one ended, when it never released the run (the lease this one took over). */
  protected readonly lastEnd: Pick<Interruption, "cause" | "holder" | "expiresAt">;
  /** Aborted when the conversation's turn this session runs is stopped: the tools in flight are interrupted. */
  protected readonly turnAbort = newAbortController();
  /** A terminal tool's result in a conversation: the turn's answer, once its step is observed (the loop ends the turn with it). */
  protected toolAnswer: JsonValue | undefined;

  constructor(
    ctx: DriverContext,
    lease: Lease,
    state: RunState,
    snapshotSeq: number,
    protected readonly signal: AbortSignalLike | undefined,
  ) {
    super(ctx, lease, state, snapshotSeq);
    const took = lease.took;
    // Taken over before it ran out (by the store's clock, when this lease was issued): its holder is known to have stopped.
    this.lastEnd =
      took === undefined ? { cause: "released" } : { cause: took.expiresAt > lease.expiresAt - ctx.leaseTtlMs ? "lease_broken" : "lease_expired", holder: took.holder, expiresAt: took.expiresAt };
  }

  // ---- recovery ------------------------------------------------------------------

  protected recoverCall(step: number, call: CallState): Promise<void> {
    return recover(
      {
        ctx: this.ctx,
        gate: this.gate,
        runId: () => this.state.runId,
        event: (type, fields) => this.event(type, fields as never),
        ended: this.lastEnd,
        checkLease: () => this.checkLease(),
      },
      step,
      call,
    );
  }

  // ---- execution ---------------------------------------------------------------------

  protected async execute(step: number, group: CallState[]): Promise<void> {
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
      return !TERMINAL_STATUSES.has(this.state.status) && c?.status === "started" && c.attempt === s.attempt;
    });
    if (live.length === 0) return;
    starts.length = 0;
    starts.push(...live);
    // A side effect waits until its start is durable, on stores that confirm later.
    if (this.ctx.store.confirm !== undefined && starts.some((s) => s.entry.compiled.sideEffect !== "read_only")) await this.ctx.store.confirm();
    for (const s of starts) await this.fault("after_start_append", step, s.call);
    const uncover = await this.cover(Math.max(...starts.map((s) => s.entry.compiled.timeoutMs)));
    const x = { ctx: this.ctx, gate: this.gate, runId: this.state.runId, lease: this.lease, signal: this.signal, stop: this.turnAbort.signal, artifacts: () => this.state.artifacts };
    const outcomes = await Promise.all(starts.map((s) => runTool({ ...x, answer: this.answerFor(s.call, s.attempt) }, step, s.call, s.attempt, s.key, s.entry))).finally(uncover);
    this.checkLease();
    let flushNow = false;
    let interrupted = false;
    for (let k = 0; k < starts.length; k++) {
      const s = starts[k]!;
      const o = outcomes[k]!;
      await this.fault("after_effect", step, s.call);
      this.event("call.finished", { step, callId: s.call.callId, attempt: s.attempt, observation: o.observation, ...(o.activity === undefined ? {} : { activity: o.activity }) });
      if (o.abort !== undefined && !TERMINAL_STATUSES.has(this.state.status)) this.event("run.failed", { reason: "tool_abort", detail: o.abort });
      // A terminal tool answers a conversation's turn once every call of the group is observed.
      if (o.complete !== undefined && this.state.conversation !== undefined) this.toolAnswer ??= o.complete;
      else if (o.complete !== undefined && !TERMINAL_STATUSES.has(this.state.status)) this.event("run.completed", { output: o.complete });
      if (s.entry.compiled.sideEffect !== "read_only" || o.abort !== undefined || o.complete !== undefined) flushNow = true;
      if (o.interrupted === true) interrupted = true;
    }
    // The outcome of a side effect is journaled before anything else happens;
    // an interrupted call's too, though the driver's own signal is aborted.
    if (flushNow || interrupted) await this.flush();
    for (const s of starts) await this.fault("after_finish_append", step, s.call);
    // A stopped turn is ended by the loop; the driver's own signal stops the drive.
    if (interrupted && !this.turnAbort.signal.aborted) throw signalled();
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
}
