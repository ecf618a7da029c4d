import type { RunId } from "../ids.js";
import { apply, reduce, verifyChain, type RunState } from "../journal/index.js";
import type { Store } from "../store/index.js";

/**
 * A run's state from its store: the latest snapshot and the events after it,
 * the chain verified from the snapshot's hash (or the whole journal when
 * there is no snapshot, or it does not match the journal).
 */
export async function loadState(store: Store, runId: RunId): Promise<RunState> {
  const snapshot = await store.getSnapshot(runId);
  // A snapshot an earlier version wrote without the transcript is not used.
  if (snapshot !== null && snapshot.state.transcriptPartial !== true) {
    const tail = await store.read(runId, snapshot.seq);
    const at = tail[0];
    if (at !== undefined && at.seq === snapshot.seq && at.hash === snapshot.hash) {
      const rest = tail.slice(1);
      verifyChain(rest, snapshot.seq, snapshot.hash);
      // A store never hands out what it keeps (it copies on read), so the
      // snapshot's state is ours to advance.
      const state = snapshot.state;
      for (const e of rest) apply(state, e);
      return state;
    }
  }
  const events = await store.read(runId);
  verifyChain(events);
  return reduce(events);
}
