import type { RunId } from "../ids.js";
import { apply, reduce, verifyChain, type RunState } from "../journal/index.js";
import type { Store } from "./port.js";

/**
 * A run's state from its store: the latest snapshot and the events after it,
 * the chain verified from the snapshot's hash (or the whole journal when
 * there is no snapshot, or it does not match the journal).
 */
export async function loadState(store: Store, runId: RunId, options: { transcript?: boolean } = {}): Promise<RunState> {
  return (await loadStateAt(store, runId, options)).state;
}

/** {@link loadState}, and the seq of the snapshot it started from (0 when it reduced the whole journal). */
export async function loadStateAt(store: Store, runId: RunId, options: { transcript?: boolean } = {}): Promise<{ state: RunState; snapshotSeq: number }> {
  const snapshot = await store.getSnapshot(runId);
  // A snapshot an earlier version wrote without the transcript is not used;
  // one that left it out (transcriptOmitted) is, unless the caller needs the
  // transcript now.
  if (snapshot !== null && snapshot.state.transcriptPartial !== true && !(options.transcript === true && snapshot.state.transcriptOmitted === true)) {
    const tail = await store.read(runId, snapshot.seq);
    const at = tail[0];
    // A compaction after a snapshot without the transcript needs the whole of it: the journal is reduced instead.
    if (at !== undefined && at.seq === snapshot.seq && at.hash === snapshot.hash && !(snapshot.state.transcriptOmitted === true && tail.some((e) => e.type === "context.compacted"))) {
      const rest = tail.slice(1);
      verifyChain(rest, snapshot.seq, snapshot.hash);
      // A store never hands out what it keeps (it copies on read), so the
      // snapshot's state is ours to advance.
      const state = snapshot.state;
      for (const e of rest) apply(state, e);
      return { state, snapshotSeq: snapshot.seq };
    }
  }
  const events = await store.read(runId);
  verifyChain(events);
  return { state: reduce(events), snapshotSeq: 0 };
}
