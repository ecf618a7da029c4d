/**
 * The journal's writer: appends of every run of this store, committed
 * together. While one transaction commits, the appends that arrive wait, and
 * then go in one transaction, so that many runs in one tab pay one commit
 * (one fdatasync, when strict) between them rather than one each: group
 * commit.
 *
 * No run's guarantee is weakened by sharing: inside the shared transaction,
 * each append reads its own run's record (its lease, by the store's clock)
 * and adds its own journal record, whose key (the run, the seq of its first
 * event) exists exactly when that run's journal moved past what the append
 * follows; a refused append's record is deleted again before the transaction
 * commits, and a failed add is stopped from aborting the others. Each append
 * is therefore all or nothing, judged on its run's state at the commit,
 * durable when it resolves; only a failure of the transaction itself (quota,
 * a closed database) fails every append in it, each with nothing written.
 *
 * The native API is used here, not `idb`'s promises, for what they cannot
 * do: stop a failed request from aborting its transaction
 * (`preventDefault`), and queue a request from the callback of another.
 */
import type { Clock, JournalEvent, RunStatus } from "../../src/index.js";
import { planAppend } from "../../src/store/engine.js";
import { StoreError, type AppendGuard, type Custody } from "../../src/store/index.js";
import { errorName, typed } from "./errors.js";
import { encodeRecord, recordAfter, type RunRecord } from "./schema.js";

/** The most appends one transaction takes. */
const MAX_GROUP = 256;

/** An append the writer was given, trusting the head the store remembers. */
export interface TrustedAppend {
  readonly runId: string;
  readonly events: readonly JournalEvent[];
  readonly guard: AppendGuard;
  readonly status: RunStatus;
  /** The head the store remembers for the run, which the batch follows (the record's key proves it still is the head). */
  readonly head: { readonly seq: number; readonly hash: string };
}

/** What became of an append: written, refused (a typed error), or found stale (the journal moved past the head it trusted: judge it again on the real one). */
export type AppendResult = { readonly kind: "written" } | { readonly kind: "refused"; readonly error: unknown } | { readonly kind: "stale" };

interface Queued extends TrustedAppend {
  readonly settle: (r: AppendResult) => void;
}

export interface AppenderOptions {
  readonly database: () => Promise<IDBDatabase>;
  readonly durability: "strict" | "relaxed";
  readonly clock: Clock;
  /** Called with the number of appends of each transaction (for the benchmarks). */
  readonly onCommit?: (appends: number) => void;
}

/** A writer of trusted appends, committing those that wait together. */
export function appender(options: AppenderOptions): { append(a: TrustedAppend): Promise<AppendResult> } {
  const queue: Queued[] = [];
  let busy = false;

  const next = (): void => {
    if (queue.length === 0) {
      busy = false;
      return;
    }
    busy = true;
    const group = queue.splice(0, MAX_GROUP);
    void commit(group).then(next);
  };

  const commit = async (group: Queued[]): Promise<void> => {
    let db: IDBDatabase;
    try {
      db = await options.database();
    } catch (e) {
      for (const a of group) a.settle({ kind: "refused", error: typed(e, `appending to run ${a.runId}`) });
      return;
    }
    await new Promise<void>((done) => {
      let tx: IDBTransaction;
      try {
        tx = db.transaction(["runs", "journal"], "readwrite", { durability: options.durability });
      } catch (e) {
        for (const a of group) a.settle({ kind: "refused", error: typed(e, `appending to run ${a.runId}`) });
        done();
        return;
      }
      const runs = tx.objectStore("runs");
      const journal = tx.objectStore("journal");
      const results = new Map<Queued, AppendResult>();
      for (const a of group) {
        const key: [string, number] = [a.runId, a.events[0]!.seq];
        let add: IDBRequest;
        try {
          add = journal.add(encodeRecord(a.events, a.status), key);
        } catch (e) {
          // Refused before it was queued (the add threw): nothing of it is written.
          results.set(a, { kind: "refused", error: typed(e, `appending to run ${a.runId}`) });
          continue;
        }
        // The run's record, with its lease: answered after the add (a
        // transaction answers its requests in order), so its callback knows
        // whether the add landed.
        const get = runs.get(a.runId);
        add.onerror = (ev) => {
          // The key exists: the journal moved past the head this append
          // follows. Not an abort of the others: judged again, alone.
          ev.preventDefault();
          ev.stopPropagation();
          if (errorName(add.error) === "ConstraintError") results.set(a, { kind: "stale" });
          else results.set(a, { kind: "refused", error: typed(add.error, `appending to run ${a.runId}`) });
        };
        get.onsuccess = () => {
          const run = get.result as RunRecord | undefined;
          if (results.has(a)) return; // stale already
          let sealed: Custody | undefined;
          try {
            if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${a.runId}`);
            sealed = planAppend(a.runId as never, { custody: run.custody, lease: run.lease, tokens: run.tokens, head: a.head }, a.events, a.guard, options.clock.now());
          } catch (refusal) {
            // Its record was added: take it back before the commit.
            journal.delete(key);
            results.set(a, { kind: "refused", error: refusal });
            return;
          }
          const next = recordAfter(run, a.events, a.guard, a.status, sealed);
          if (next !== undefined) runs.put(next);
          results.set(a, { kind: "written" });
        };
      }
      tx.oncomplete = () => {
        options.onCommit?.(group.length);
        for (const a of group) a.settle(results.get(a) ?? { kind: "written" });
        done();
      };
      tx.onabort = () => {
        const error = typed(tx.error ?? new DOMException("the transaction was aborted", "AbortError"), "appending");
        for (const a of group) {
          const r = results.get(a);
          a.settle(r !== undefined && r.kind === "refused" ? r : { kind: "refused", error });
        }
        done();
      };
    });
  };

  return {
    append(a: TrustedAppend): Promise<AppendResult> {
      return new Promise((settle) => {
        queue.push({ ...a, settle });
        // Appends made in the same turn go together even into the first transaction.
        if (!busy) {
          busy = true;
          queueMicrotask(next);
        }
      });
    },
  };
}
