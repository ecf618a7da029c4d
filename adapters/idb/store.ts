/**
 * The Store port on IndexedDB (through `idb`): a run's journal, lease,
 * snapshots and artifacts in one database that every tab of the origin
 * shares. The lease check and the append happen in one readwrite
 * transaction, with no await inside it but IndexedDB's own requests, so two
 * tabs can never both append for one run.
 *
 * This file puts the store together from its parts, by concern: the
 * connection (connection.ts), the transactions (tx.ts: withTx), the journal
 * (journal.ts, with the group commit of appender.ts), the runs' records and
 * leases (runs.ts), artifacts and snapshots (blobs.ts), and the news of
 * appends to watchers and other tabs (watch.ts).
 *
 * Nothing touches `indexedDB` at import time; the database opens on first use.
 */
import type { Clock, Store } from "../../src/index.js";
import { systemClock } from "../../src/store/index.js";
import { blobMethods } from "./blobs.js";
import { connection, type IdbContext } from "./connection.js";
import { journalMethods } from "./journal.js";
import { runMethods } from "./runs.js";
import { news } from "./watch.js";

/** Options of {@link idbStore}. */
export interface IdbStoreOptions {
  /** Database name (one per origin). Default "isoagent". */
  readonly name?: string;
  /**
   * "strict" (the default) resolves a write once it is flushed to disk;
   * "relaxed" once the browser has it, which is faster but can lose the last
   * writes on a power cut or an OS crash (not on a tab crash). The journal
   * promises that a call's start is durable before its effect: keep "strict"
   * unless every tool's effect is also lost with the machine.
   */
  readonly durability?: "strict" | "relaxed";
  /** The store's clock, which judges leases. Default: the system clock. */
  readonly clock?: Clock;
  /** Called after each transaction of appends with how many it committed together (for benchmarks and tests). */
  readonly onAppendCommit?: (appends: number) => void;
}

/** An IndexedDB store, with a way to close its connection. */
export interface IdbStore extends Store {
  close(): void;
}

/**
 * A {@link Store} on IndexedDB.
 *
 * @example
 * ```ts
 * import { idbStore } from "isoagent/idb"
 * const driver = createDriver({ store: idbStore(), agent, tools })
 * ```
 */
export function idbStore(options: IdbStoreOptions = {}): IdbStore {
  const name = options.name ?? "isoagent";
  const ctx: IdbContext = { ...connection(name), durability: options.durability ?? "strict", clock: options.clock ?? systemClock };
  const journal = journalMethods(ctx, options.onAppendCommit);
  const told = news(name, ctx.closed);
  return {
    ...journal,
    ...runMethods(ctx),
    ...blobMethods(ctx),
    async append(runId, events, guard, status) {
      const head = await journal.append(runId, events, guard, status);
      told.grew(runId);
      return head;
    },
    async importEvents(runId, events, guard) {
      const head = await journal.importEvents(runId, events, guard);
      told.grew(runId);
      return head;
    },
    watch: told.watch,
    close(): void {
      ctx.close(`the store of database ${name} was closed`);
      told.close();
    },
  };
}
