/**
 * The store's journal: creating a run, appending to it, importing a copy's
 * events, reading it back.
 *
 * An append writes one record (the journal's, see schema.ts) and reads one
 * (the run's, for its lease), in one round trip: the store remembers the head
 * of each run it last read or wrote, and the record's key (the run, the seq of
 * its first event) exists exactly when the journal moved past that head.
 * Appends of several runs that wait for the same commit share it (appender.ts).
 * An append that does not follow the remembered head, or finds it stale, is
 * judged on the run's record and head as its own transaction reads them.
 */
import { unwrap } from "idb";
import type { JournalEvent, RunId, RunStatus, Store } from "../../src/index.js";
import { createdStatus, type RunCreated } from "../../src/journal/index.js";
import { checkBatch, checkFirst, StoreError, taskTitle, type AppendGuard, type Custody, type ImportGuard } from "../../src/store/index.js";
import { planImport } from "../../src/store/copies.js";
import { planAppend } from "../../src/store/engine.js";
import { isStoreError } from "../../src/store/errors.js";
import { decodeLean } from "../../src/store/lean.js";
import { appender } from "./appender.js";
import type { IdbContext } from "./connection.js";
import { errorName, translate } from "./errors.js";
import { encodeRecord, headOf, recordAfter, type JournalRecord, type RunRecord } from "./schema.js";
import { tailOf, withTx } from "./tx.js";

/** How many runs' heads a store remembers for its appends. */
const KNOWN_RUNS = 4096;

/** The journal's methods of a store. */
export type JournalMethods = Pick<Store, "createRun" | "append" | "read"> & Required<Pick<Store, "importEvents">>;

/** The journal's methods of the store of `ctx` (`onCommit`: told how many appends each group commit committed). */
export function journalMethods(ctx: IdbContext, onCommit: ((appends: number) => void) | undefined): JournalMethods {
  const { clock } = ctx;

  // The head of each run this store last read or wrote: an append that
  // follows it is written on trust (the record's key proves it still is the
  // head); anything else is judged on the head read in its transaction.
  const known = new Map<string, { seq: number; hash: string }>();
  const remember = (runId: string, head: { seq: number; hash: string }): void => {
    known.delete(runId);
    known.set(runId, { seq: head.seq, hash: head.hash });
    if (known.size > KNOWN_RUNS) known.delete(known.keys().next().value!);
  };

  const writer = appender({
    database: async () => {
      const d = await ctx.db();
      const closed = ctx.closed();
      if (closed !== undefined) throw new StoreError("STORE_CLOSED", closed);
      return unwrap(d);
    },
    durability: ctx.durability,
    clock,
    ...(onCommit === undefined ? {} : { onCommit }),
  });

  /** An append's failure as the store's typed error: once the store is closed, an IndexedDB failure is said as that. */
  const appendFailed =
    (runId: RunId) =>
    (e: unknown): never => {
      const closed = ctx.closed();
      if (closed !== undefined && !isStoreError(e)) throw new StoreError("STORE_CLOSED", closed, { cause: e });
      return translate(e, `appending to run ${runId}`);
    };

  /** The append judged on the run's record and head as its own transaction reads them. */
  const appendCarefully = async (runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> => {
    const last = await withTx(ctx, ["runs", "journal"], "readwrite", appendFailed(runId), async (tx, end) => {
      // Only IndexedDB's own requests are awaited inside the transaction.
      const [run, head] = await Promise.all([tx.objectStore("runs").get(runId), tailOf(tx, runId)]);
      const next = end.check(() => {
        if (run === undefined || head === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        remember(runId, head);
        return recordAfter(run, events, guard, status, planAppend(runId, { custody: run.custody, lease: run.lease, tokens: run.tokens, head }, events, guard, clock.now()));
      });
      void tx.objectStore("journal").add(encodeRecord(events, status), [runId, events[0]!.seq]);
      if (next !== undefined) void tx.objectStore("runs").put(next);
      return events[events.length - 1]!;
    });
    remember(runId, last);
    return { seq: last.seq, hash: last.hash };
  };

  return {
    async createRun(first: RunCreated): Promise<void> {
      checkFirst(first);
      await withTx(ctx, ["runs", "journal"], "readwrite", `creating run ${first.runId}`, (tx, end) => {
        // Both records are added: a run that exists makes the first add fail, and the transaction with it.
        const run: RunRecord = { runId: first.runId, status: createdStatus(first), createdAt: first.at, updatedAt: first.at, seq: 1, tokens: 0, title: taskTitle(first.task) };
        let exists = false;
        const taken = (e: unknown): void => {
          if (errorName(e) === "ConstraintError") exists = true;
        };
        tx.objectStore("runs").add(run).catch(taken);
        tx.objectStore("journal")
          .add(encodeRecord([first], createdStatus(first)), [first.runId, 1])
          .catch(taken);
        return end.done().catch((e: unknown) => {
          throw exists ? new StoreError("RUN_EXISTS", `run ${first.runId} already exists`) : e;
        });
      });
      remember(first.runId, first);
    },

    async append(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      try {
        const head = known.get(runId);
        let trusted = head !== undefined;
        if (head !== undefined) {
          // Only a batch that follows the remembered head is written on trust;
          // anything else is judged on the head read in its own transaction.
          try {
            checkBatch(runId, events, guard, head);
          } catch {
            trusted = false;
          }
        }
        if (trusted && head !== undefined) {
          const r = await writer.append({ runId, events, guard, status, head });
          if (r.kind === "refused") throw r.error;
          if (r.kind === "written") {
            const last = events[events.length - 1]!;
            remember(runId, last);
            return { seq: last.seq, hash: last.hash };
          }
          known.delete(runId);
        }
        return await appendCarefully(runId, events, guard, status);
      } catch (e) {
        return appendFailed(runId)(e);
      }
    },

    async importEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<{ seq: number; hash: string; custody: Custody | undefined }> {
      const { last, next } = await withTx(ctx, ["runs", "journal"], "readwrite", `importing into run ${runId}`, async (tx, end) => {
        // Only IndexedDB's own requests are awaited inside the transaction; the head is the journal's tail (v4).
        const [run, head] = await Promise.all([tx.objectStore("runs").get(runId), tailOf(tx, runId)]);
        const last = events[events.length - 1]!;
        const next = end.check((): RunRecord => {
          const { custody, tokens } = planImport(
            runId,
            run === undefined ? undefined : { custody: run.custody, head: { seq: head?.seq ?? 0, hash: head?.hash ?? "" }, tokens: run.tokens },
            events,
            guard,
            clock.now(),
          );
          const first = events[0]!;
          const base: RunRecord = run ?? {
            runId,
            status: guard.status,
            createdAt: first.at,
            updatedAt: 0,
            seq: 0,
            tokens: 0,
            ...(first.type === "run.created" ? { title: taskTitle(first.task) } : {}),
          };
          const { custody: _c, ...rest } = base;
          return { ...rest, seq: last.seq, status: guard.status, updatedAt: last.at, tokens, ...(custody === undefined ? {} : { custody }) };
        });
        // One lean record, as an append writes it, and the run's record (its custody).
        void tx.objectStore("journal").add(encodeRecord(events, guard.status), [runId, events[0]!.seq]);
        void tx.objectStore("runs").put(next);
        return { last, next };
      });
      remember(runId, last);
      return { seq: last.seq, hash: last.hash, custody: next.custody };
    },

    async read(runId: RunId, fromSeq = 1): Promise<JournalEvent[]> {
      return withTx(ctx, ["runs", "journal"], "readonly", `reading run ${runId}`, async (tx) => {
        const from = Math.max(1, fromSeq);
        const journal = tx.objectStore("journal");
        // The record holding event `from` is the last one keyed at or before it.
        const [run, holder] = await Promise.all([tx.objectStore("runs").get(runId), from === 1 ? null : journal.openKeyCursor(IDBKeyRange.bound([runId, 0], [runId, from]), "prev")]);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        // Records are contiguous: each starts where the one before it ends.
        let first = holder === null ? 1 : holder.key[1];
        const rows: JournalRecord[] = await journal.getAll(IDBKeyRange.bound([runId, first], [runId, Number.MAX_SAFE_INTEGER]));
        const out: JournalEvent[] = [];
        for (const row of rows) {
          decodeLean(row, first, from, out);
          first += row.e.length;
        }
        const last = rows[rows.length - 1];
        if (last !== undefined) remember(runId, headOf(last, first - last.e.length));
        return out;
      });
    },
  };
}
