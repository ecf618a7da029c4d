/**
 * Full verification of a stored run, on demand: the whole hash chain from
 * the first event, the state reduced from it, and the snapshot (a cache of
 * that state, trusted only as far as the store) checked against it.
 */
import type { RunId } from "../ids.js";
import { canonicalJson } from "../json/index.js";
import { reduce, verifyChain, type RunState } from "../journal/index.js";
import type { Store } from "../store/index.js";

/** What {@link verifyRun} found. */
export interface RunVerification {
  /** True when nothing is wrong. */
  readonly ok: boolean;
  /** Events read and checked. */
  readonly events: number;
  /** Each problem found, in words. */
  readonly problems: readonly string[];
}

/**
 * Verifies a run from its first event: every event's hash and link, the
 * state reduced from the journal, and the snapshot, when there is one, equal
 * to the state at its event. A resume verifies only from the snapshot on.
 *
 * @example
 * ```ts
 * const v = await verifyRun(store, runId)
 * if (!v.ok) console.error(v.problems)
 * ```
 */
export async function verifyRun(store: Store, runId: RunId): Promise<RunVerification> {
  const problems: string[] = [];
  const events = await store.read(runId);
  try {
    verifyChain(events);
  } catch (e) {
    problems.push(`the hash chain breaks: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    reduce(events);
  } catch (e) {
    problems.push(`the journal does not reduce: ${e instanceof Error ? e.message : String(e)}`);
  }
  const snapshot = await store.getSnapshot(runId);
  if (snapshot !== null && snapshot.state.transcriptPartial !== true && problems.length === 0) {
    const at = events[snapshot.seq - 1];
    if (at === undefined || at.hash !== snapshot.hash) problems.push(`the snapshot at event ${snapshot.seq} names a hash the journal does not have there`);
    else if (canonicalJson(withoutTranscript(reduce(events.slice(0, snapshot.seq)), snapshot.state.transcriptOmitted === true) as never) !== canonicalJson(snapshot.state as never)) {
      problems.push(`the snapshot at event ${snapshot.seq} is not the state the journal reduces to there`);
    }
  }
  return { ok: problems.length === 0, events: events.length, problems };
}

/** The state as a snapshot that left the transcript out holds it. */
function withoutTranscript(state: RunState, omitted: boolean): RunState {
  return omitted ? { ...state, transcript: [], transcriptOmitted: true } : state;
}
