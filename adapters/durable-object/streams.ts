/**
 * A run object's live event streams: the object holds them, and tells them
 * when it appends.
 *
 * Every append to the run passes through the object's writes (its own
 * host's, and a remote driver's over storeAppend: run-object.ts), so the
 * object hears them all; a stream reads this object's SQLite from where its
 * reader is, pulled, and pings while nothing changes. Held here rather than
 * fanned out by a hibernatable WebSocket: EventSource and curl speak SSE, so
 * a socket would need a bridge in the Worker turning it back into SSE, for a
 * saving (the object may sleep while streams are open) that matters only
 * for a run that waits long with a console open (DEVELOPERS.md).
 */
import type { RunId, StepProgress } from "../../src/index.js";
import { StoreError } from "../../src/store/index.js";
import { journalStream } from "../../src/http/stream.js";
import type { RunSql } from "./sql.js";

/** What a stream hears of: an append to the run, or its agent's progress in the step it decides. */
type Change = "append" | "progress";

/** The streams open on one incarnation of a run object. */
export interface RunStreams {
  /** Tells every open stream of a change (a stream's failure is its own). */
  tell(what: Change): void;
  /** The run's journal from `fromSeq` on as a live SSE body (RUN_NOT_FOUND when the object holds another run, or none). */
  open(runId: RunId, fromSeq: number, keepAliveMs: number): ReadableStream<Uint8Array>;
  /** The streams open, this incarnation's appends, and the journal reads its streams made. */
  counts(): { open: number; appends: number; reads: number };
}

/** The streams of the run in `sql`; `progress` says what its agent has streamed so far in the step it decides, when the object drives it. */
export function runStreams(sql: RunSql, progress: (runId: RunId) => StepProgress | undefined): RunStreams {
  const watchers = new Set<(what: Change) => void>();
  /** This incarnation's appends, and the journal reads its streams made (each after a change heard, or at a stream's start). */
  const stats = { appends: 0, reads: 0 };
  return {
    tell(what) {
      if (what === "append") stats.appends++;
      for (const w of watchers) {
        try {
          w(what);
        } catch {
          // A stream's failure is its own.
        }
      }
    },
    open(runId, fromSeq, keepAliveMs) {
      const s = sql.summary();
      if (s === undefined || s.runId !== runId) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      const feed = {
        read: async (from: number) => {
          stats.reads++;
          return sql.read(runId, from);
        },
        progress: () => progress(runId),
        watch: (listener: (what: Change) => void) => {
          watchers.add(listener);
          return () => void watchers.delete(listener);
        },
      };
      return journalStream(feed, { from: fromSeq, status: s.status, keepAliveMs }) as unknown as ReadableStream<Uint8Array>;
    },
    counts: () => ({ open: watchers.size, ...stats }),
  };
}
