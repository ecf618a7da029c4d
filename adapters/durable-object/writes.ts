/**
 * A run object's writes to its run: its creation, appends and imports.
 * Every write passes through here (a remote driver's, over RPC, and its own
 * host's, through the local store: local-store.ts), so that the index, the
 * live streams, the span export and the host's fault points hear of each.
 * A status change (or a seal, which changes the run's custody) reaches the
 * index before the caller is answered; other progress is left to the alarm,
 * which also heals the index after a reset between a write and its report.
 */
import type { JournalEvent, RunId, RunStatus } from "../../src/index.js";
import type { RunCreated } from "../../src/journal/index.js";
import { taskTitle, type AppendGuard, type Custody, type ImportGuard } from "../../src/store/index.js";
import type { Alarm } from "./alarm.js";
import type { RunBindings } from "./bindings.js";
import { SOON_MS } from "./host.js";
import type { RunSql } from "./sql.js";

/** What the writes need of their object. */
export interface WritingObject {
  readonly env: RunBindings;
  readonly sql: RunSql;
  /** The object's alarm (alarm.ts). */
  readonly alarm: Alarm;
  /** The lease's time to live: how soon a hosted run's alarm fires after its creation. */
  readonly ttl: number;
  /**
   * After an append, before the index hears of it: the streams, the span
   * export and the host are told; a promise when the host meets a fault
   * point there (the append waits for it).
   */
  afterAppend(guard: AppendGuard): Promise<void> | undefined;
}

/** The writes of one run object. */
export interface RunWrites {
  /** Creates the run in this object's SQLite and lists it; the alarm first, so an index that missed it is told. */
  create(first: RunCreated, hosted: boolean): Promise<void>;
  /** Appends in this object's SQLite; a status change reaches the index before the caller is answered. */
  append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }>;
  /** Imports a copy's events (isoagent/move); its custody reaches the index before the caller is answered. */
  importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard, hosted: boolean): Promise<{ seq: number; hash: string; custody: Custody | undefined }>;
  /**
   * Reports this run to the index: `now`, or (else) by the alarm, so that a
   * step costs no extra round trip. Nothing when the index has heard of
   * every event, unless the run's custody changed.
   */
  report(now: boolean, custodyChanged?: boolean): Promise<void>;
}

/** The writes of the object `o`. */
export function runWrites(o: WritingObject): RunWrites {
  const { sql, alarm } = o;
  const report = async (now: boolean, custodyChanged = false): Promise<void> => {
    const s = sql.summary();
    if (s === undefined || (s.indexedSeq >= s.seq && !custodyChanged)) return;
    if (!now) return alarm.arm(Date.now() + 1000);
    const { indexedSeq: _i, ...head } = s;
    await o.env.RUN_INDEX.getByName("index").report({ ...head, title: taskTitle(sql.task()) });
    sql.markIndexed(s.seq);
  };
  return {
    async create(first, hosted) {
      await alarm.arm(Date.now() + (hosted ? o.ttl : SOON_MS));
      sql.createRun(first, hosted);
      await report(true);
    },
    async append(runId, events, guard, status) {
      const before = sql.summary()?.status;
      const head = sql.append(runId, events, guard, status);
      const held = o.afterAppend(guard);
      if (held !== undefined) await held;
      // A seal (run.moved) changes the run's custody: the index hears of it at once, as of a status.
      await report(before !== status || events[events.length - 1]?.type === "run.moved");
      return head;
    },
    async importEvents(runId, events, guard, hosted) {
      if (hosted) await alarm.arm(Date.now() + SOON_MS);
      const head = sql.importEvents(runId, events, guard, hosted);
      await report(true);
      return head;
    },
    report,
  };
}
