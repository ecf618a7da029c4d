/**
 * The copy operations of the Store port for the memory store: kept here, in
 * isoagent/move, so that the core (where the memory store is the default)
 * carries only the refusals every store makes. `movable()` attaches them.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent } from "../journal/index.js";
import { abandoned, planImport } from "../store/copies.js";
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
      const written = planImport(runId, r, events, guard, clock.now());
      const first = events[0]!;
      const t: RunRecord = Object.assign(
        r ?? { events: [], title: first.type === "run.created" ? taskTitle(first.task) : "", head: { seq: 0, hash: "" }, status: guard.status, createdAt: first.at, updatedAt: 0, tokens: 0 },
        written,
      );
      write(t, events, guard.status);
      runs.set(runId, t);
      return { ...t.head, custody: t.custody };
    },
    async abandonTransit(runId: RunId) {
      const r = runs.get(runId);
      if (r === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      const next = abandoned(r.custody);
      if (next === undefined) return false;
      r.custody = next;
      return true;
    },
  };
}
