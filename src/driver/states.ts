/**
 * The states this driver's drives ended with, kept for the next drive of
 * the same run (a conversation's next turn, an answered approval): the
 * next drive reads only the events appended since and applies them, so a
 * turn costs what was appended since the last one, not the run's snapshot
 * or its journal. A state is owned by one holder at a time: a drive or a
 * send takes it out, and keeps it back only when it ended cleanly; one
 * that does not follow the store's journal by its hash is dropped, and the
 * store's snapshot and tail are read instead. At most {@link KEPT} runs.
 */
import type { RunId } from "../ids.js";
import { apply, verifyChain, type RunState } from "../journal/index.js";
import type { Store } from "../store/index.js";
import { loadStateAt } from "../store/load.js";

/** How many runs' states a driver keeps. */
export const KEPT = 16;

export class RunStates {
  private readonly kept = new Map<RunId, { state: RunState; snapshotSeq: number }>();

  /** Keeps a state its holder is done with (nothing else may touch it after), with the seq of the run's latest snapshot it knows of. */
  keep(state: RunState, snapshotSeq: number): void {
    if (state.transcriptOmitted === true) return;
    this.kept.delete(state.runId);
    this.kept.set(state.runId, { state, snapshotSeq });
    if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  /** Forgets a run's state (its holder changed it, and the store may not have taken the change). */
  drop(runId: RunId): void {
    this.kept.delete(runId);
  }

  /** Takes the run's state: the kept one advanced by the events since, or the store's (snapshot and tail); with the seq of the latest snapshot known. */
  async take(store: Store, runId: RunId, options: { transcript?: boolean } = {}): Promise<{ state: RunState; snapshotSeq: number }> {
    const held = this.kept.get(runId);
    this.kept.delete(runId);
    if (held !== undefined) {
      const kept = held.state;
      const tail = await store.read(runId, kept.seq);
      const at = tail[0];
      if (at !== undefined && at.seq === kept.seq && at.hash === kept.hash) {
        const rest = tail.slice(1);
        verifyChain(rest, kept.seq, kept.hash);
        for (const e of rest) apply(kept, e);
        return held;
      }
    }
    const { state, snapshotSeq } = await loadStateAt(store, runId, options);
    return { state, snapshotSeq };
  }
}
