/**
 * The artifacts a journal names (issue 28, item 6: the rule, once): the
 * full output behind a truncated observation, an elided one, and what a
 * compaction elided. What a run's state keeps at hand (reduce.ts), which
 * artifacts a run may read back or serve (`journalNames`), and what a run
 * bundle carries (isoagent/move) all read it here.
 */
import type { JournalEvent, Observation } from "./events.js";

// An empty or missing artifact names none.
const observed = (o: Observation | undefined): string[] => [o !== undefined && "truncated" in o ? o.truncated?.artifact : "", o?.elided?.artifact].filter(Boolean) as string[];

/**
 * The artifacts an event names by SHA-256: the full output behind a
 * truncated observation (call.finished, call.rejected, call.reconciled),
 * an elided one, what a compaction elided, the files a user sent (v5) and
 * what a stopped turn's closed calls show.
 */
export function artifactsNamed(e: JournalEvent): readonly string[] {
  if (e.type === "user.message") return e.files === undefined ? [] : e.files.map((f) => f.sha256);
  if (e.type === "turn.ended") return e.closed === undefined ? [] : e.closed.flatMap((c) => observed(c.observation));
  if (e.type === "context.compacted") return [...e.artifacts, ...e.items.flatMap((item) => (item.type === "observation" ? observed(item.observation) : []))];
  return "observation" in e ? observed(e.observation) : [];
}

/** Whether a run's journal names an artifact: only such an artifact is read back or served through the run. */
export function journalNames(events: readonly JournalEvent[], sha256: string): boolean {
  return events.some((e) => artifactsNamed(e).includes(sha256));
}
