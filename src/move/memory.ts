/**
 * The copy operations of the Store port for the memory store: kept here, in
 * isoagent/move, so that the core (where the memory store is the default)
 * carries only the refusals every store makes. `movable()` attaches them.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { checkImport, custodyAfterImport, tokensAfter } from "../store/copies.js";
import { taskTitle } from "../store/checks.js";
import { MEMORY_STORES, type RunRecord } from "../store/memory.js";
import { StoreError, type ImportGuard, type Store } from "../store/index.js";

/** A memory store's importEvents and abandonTransit; undefined for any other store. */
export function memoryCopies(store: Store): Required<Pick<Store, "importEvents" | "abandonTransit">> | undefined {
  const m = MEMORY_STORES.get(store);
  if (m === undefined) return undefined;
  const { runs, clock, write } = m;
  return {
    async importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard) {
      const r = runs.get(runId);
      checkImport(runId, r && { custody: r.custody, ...r.head }, events, guard.expectedSeq);
      const first = events[0]!;
      const t: RunRecord = r ?? { events: [], title: first.type === "run.created" ? taskTitle(first.task) : "", head: { seq: 0, hash: "" }, status: guard.status, createdAt: first.at, updatedAt: 0, lease: undefined, tokens: 0, snapshot: undefined };
      t.custody = custodyAfterImport(t.custody, events, guard.role, guard.here, clock.now());
      t.tokens = tokensAfter(t.tokens, events);
      write(t, events, guard.status);
      runs.set(runId, t);
      return { ...t.head, custody: t.custody };
    },
    async abandonTransit(runId: RunId) {
      const r = runs.get(runId);
      if (r === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      if (r.custody?.role !== "in_transit") return false;
      r.custody = { ...r.custody, role: "mirror" };
      return true;
    },
  };
}
