/**
 * The store's transactions, named once: {@link withTx} opens one on the
 * store's connection, runs its body, waits for the commit, and says a
 * failure as the store's typed error; and the one read several of them make
 * (a run's head, {@link tailOf}).
 *
 * IndexedDB commits a transaction by itself once no request of it is
 * pending when control returns to the event loop, so a body awaits nothing
 * but IndexedDB's own requests, and queues its writes without awaiting them:
 * withTx waits for them all at once, by the transaction's end.
 */
import type { IDBPTransaction, StoreNames } from "idb";
import type { RunStatus } from "../../src/index.js";
import type { IdbContext } from "./connection.js";
import { translate } from "./errors.js";
import { headOf, type IsoagentDB } from "./schema.js";

/**
 * What a transaction's body may do besides its requests: end the transaction
 * itself. Unless it does, withTx waits for a readwrite transaction's commit
 * after the body; a readonly one is not waited for (its reads are its result).
 */
export interface TxEnd {
  /** Aborts the transaction: nothing of it is written. withTx tells the body's result, or its refusal, once the abort has settled. */
  abort(): void;
  /** `rule`'s result; when it throws (a refusal), the transaction is aborted and the refusal thrown. */
  check<T>(rule: () => T): T;
  /** The transaction's end (`tx.done`), for a body that judges it itself: withTx does not wait for it again. */
  done(): Promise<void>;
}

/**
 * `body`, in a transaction of `names` on the store's database (readwrite
 * ones with `durability`, by default the store's), and its result once the
 * transaction has ended. A failure is thrown as the store's typed error,
 * saying `what` the store was doing (or as `what` maps it); the database's
 * opening refuses as it does, untranslated.
 */
export async function withTx<N extends ArrayLike<StoreNames<IsoagentDB>>, M extends "readonly" | "readwrite", T>(
  ctx: IdbContext,
  names: N,
  mode: M,
  what: string | ((e: unknown) => never),
  body: (tx: IDBPTransaction<IsoagentDB, N, M>, end: TxEnd) => T | Promise<T>,
  durability: "strict" | "relaxed" = ctx.durability,
): Promise<T> {
  const d = await ctx.db();
  try {
    const tx = d.transaction(names, mode, mode === "readonly" ? undefined : { durability });
    let ended: "aborted" | "judged" | undefined;
    const end: TxEnd = {
      abort: () => {
        ended = "aborted";
        tx.abort();
      },
      check: (rule) => {
        try {
          return rule();
        } catch (refusal) {
          end.abort();
          throw refusal;
        }
      },
      done: () => {
        ended = "judged";
        return tx.done;
      },
    };
    try {
      const out = await body(tx, end);
      if (ended === undefined && mode === "readwrite") await tx.done;
      return out;
    } finally {
      if (ended === "aborted") await tx.done.catch(() => {});
    }
  } catch (e) {
    return typeof what === "string" ? translate(e, what) : what(e);
  }
}

/** A run's journal, as a key range: every record of the run. */
const runRange = (runId: string): IDBKeyRange => IDBKeyRange.bound([runId, 0], [runId, Number.MAX_SAFE_INTEGER]);

type JournalTx = IDBPTransaction<IsoagentDB, ("runs" | "journal")[], "readwrite" | "readonly">;

/** The run's head (its journal's last record), read in `tx`. */
export async function tailOf(tx: JournalTx, runId: string): Promise<{ seq: number; hash: string; at: number; status: RunStatus } | undefined> {
  const cursor = await tx.objectStore("journal").openCursor(runRange(runId), "prev");
  return cursor === null ? undefined : headOf(cursor.value, cursor.key[1]);
}
