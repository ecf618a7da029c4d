/**
 * The session's journal writer: the run's state in memory, what of it is
 * committed, and the events pushed since. Events are sealed and applied to
 * the state as they are pushed, and appended in batches ({@link
 * SessionJournal.flush}); after a conflict (an operator answered or
 * cancelled meanwhile) the batch is replayed on the fresh journal. It
 * writes snapshots as the journal grows, and rebuilds the transcript a
 * snapshot left out. The second layer of {@link Session}
 * (src/driver/session.ts), over the lease it appends under.
 */
import { apply, reduce, seal, TERMINAL_STATUSES, verifyChain, type JournalEvent, type RunState, type UnsealedEvent } from "../journal/index.js";
import { isIsoagentError } from "../errors.js";
import type { Lease } from "../store/index.js";
import { isJournalError, JournalError } from "../journal/errors.js";
import { triesAgain } from "../store/conflict.js";
import { loadState } from "../store/load.js";
import type { DriverContext } from "./context.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { leaseLost } from "./stop.js";

/** Whether the state's current step has this call observed already. */
const observed = (state: RunState, step: number, callId: string): boolean => state.current?.step === step && state.current.calls.some((c) => c.callId === callId && c.status === "done");

export abstract class SessionJournal extends LeaseKeeper {
  protected state: RunState;
  protected committed: { seq: number; hash: string };
  protected pending: JournalEvent[] = [];

  /** The seq of the run's latest snapshot as far as this session knows (0: none): snapshots are spaced from it. */
  protected snapshotSeq: number;

  constructor(ctx: DriverContext, lease: Lease, state: RunState, snapshotSeq: number) {
    super(ctx, lease);
    this.snapshotSeq = snapshotSeq;
    this.state = state;
    this.committed = { seq: state.seq, hash: state.hash };
  }

  /** Seals an event after the current head and applies it. */
  protected push(e: UnsealedEvent): void {
    const sealed = seal(e, this.state.seq + 1, this.state.hash);
    apply(this.state, sealed);
    this.pending.push(sealed);
  }

  /** Events of a v2 shape are stamped v2; those of a later shape, the version that has it. */
  protected event<T extends UnsealedEvent["type"]>(type: T, fields: Omit<Extract<UnsealedEvent, { type: T }>, "type" | "v" | "at">, v = 2): void {
    this.push({ v, at: this.ctx.clock.now(), type, ...fields } as unknown as UnsealedEvent);
  }

  /**
   * Appends what is pending. When the journal moved (an operator answered or
   * cancelled), reloads it and replays what is pending on top: after a
   * cancellation, only the outcomes of calls already in flight are kept, as
   * late outcomes.
   */
  protected async flush(): Promise<void> {
    if (this.pending.length > 0) await this.renewIfDue();
    for (let attempt = 0; this.pending.length > 0; attempt++) {
      this.checkLease();
      try {
        const head = await this.ctx.store.append(this.state.runId, this.pending, { expectedSeq: this.committed.seq, lease: this.lease }, this.state.status);
        this.committed = head;
        this.pending = [];
        this.ctx.notify(this.state.runId, "append");
        await this.maybeSnapshot();
        return;
      } catch (e) {
        if (isIsoagentError(e, "LEASE_NOT_HELD")) {
          this.stop = { kind: "lease_lost" };
          this.pending = [];
          throw leaseLost();
        }
        if (!triesAgain(e, attempt)) throw e;
        // What is pending may compact the transcript: then the fresh state needs the whole of it.
        await this.replayOnto(await loadState(this.ctx.store, this.state.runId, { transcript: this.pending.some((e) => e.type === "context.compacted") }));
      }
    }
  }

  /**
   * Takes the fresh state, and pushes what was pending on top. A run that
   * ended meanwhile (an operator cancelled it) keeps only the outcomes of
   * the calls in flight, as late ones; its terminal status is the session's
   * sign to stop. A call a stopped turn closed keeps its outcome as a late
   * one too; the rest of the batch (a decision the stop made moot) is dropped.
   */
  private async replayOnto(fresh: RunState): Promise<void> {
    const mine = this.pending.map(({ seq: _s, prev: _p, hash: _h, ...rest }) => rest as UnsealedEvent);
    this.state = fresh;
    this.committed = { seq: fresh.seq, hash: fresh.hash };
    this.pending = [];
    if (TERMINAL_STATUSES.has(fresh.status)) {
      for (const e of mine) {
        if (e.type === "call.finished") this.push({ ...e, late: true });
      }
      return;
    }
    for (const e of mine) {
      // A call a stopped turn closed meanwhile (v5) has its outcome kept, as a late one.
      if (e.type === "call.finished" && e.late !== true && observed(fresh, e.step, e.callId)) {
        this.push({ ...e, late: true });
        continue;
      }
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
   * A conversation's snapshot holds it always (a turn starts with a resume),
   * spaced by the transcript's length as under a budget, so that writing
   * snapshots costs a constant share of each event.
   */
  private async maybeSnapshot(): Promise<void> {
    // A conversation's snapshot holds its transcript, budget or not: each turn starts with a resume, which must not read the journal.
    const omit = (this.ctx.context === undefined && this.state.conversation === undefined) || this.state.transcriptOmitted === true;
    // Counted from the last snapshot the run has (not this session's start): a run driven in many short drives, a conversation's turns, is snapshotted too.
    if (this.state.seq - this.snapshotSeq < (omit ? this.ctx.snapshotEvery : Math.max(this.ctx.snapshotEvery, this.state.transcript.length))) return;
    this.snapshotSeq = this.state.seq;
    const state = JSON.parse(JSON.stringify(omit ? { ...this.state, transcript: [], transcriptOmitted: true } : this.state)) as RunState;
    await this.ctx.store.putSnapshot(this.state.runId, { seq: this.state.seq, hash: this.state.hash, state });
  }

  /** The whole transcript, rebuilt from the journal when the state came from a snapshot that left it out. */
  protected async ensureTranscript(): Promise<void> {
    if (this.state.transcriptOmitted !== true) return;
    const stored = await this.ctx.store.read(this.state.runId);
    verifyChain(stored);
    const full = reduce([...stored, ...this.pending]);
    if (full.seq !== this.state.seq || full.hash !== this.state.hash)
      throw new JournalError("JOURNAL_INVALID", `run ${this.state.runId}'s journal ends at event ${full.seq}, its state at ${this.state.seq}`);
    this.state.transcript = full.transcript;
    if (full.lastUsage === undefined) delete this.state.lastUsage;
    else this.state.lastUsage = full.lastUsage;
    delete this.state.transcriptOmitted;
  }
}
