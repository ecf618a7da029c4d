/**
 * The store's connection to its database: opened on first use (nothing
 * touches `indexedDB` at import time), given up for good when another tab
 * upgrades or deletes the database, the browser terminates it, or the store
 * is closed; every use after that is refused with STORE_CLOSED, saying why.
 *
 * Also what the store's parts share besides it (the durability of their
 * writes, the clock that judges leases): {@link IdbContext}.
 */
import { openDB, type IDBPDatabase } from "idb";
import type { Clock } from "../../src/index.js";
import { StoreError } from "../../src/store/index.js";
import { DB_VERSION, upgrade, type IsoagentDB } from "./schema.js";

/** One store's connection to its database. */
export interface Connection {
  /** The database, opened on its first use (and again after an open that failed). */
  readonly db: () => Promise<IDBPDatabase<IsoagentDB>>;
  /** Why the connection was given up, or undefined while it is kept. */
  readonly closed: () => string | undefined;
  /** Gives the connection up for good, saying why. */
  readonly close: (why: string) => void;
}

/** What the parts of one store share: its connection, the durability of its writes, and its clock (which judges leases). */
export interface IdbContext extends Connection {
  readonly durability: "strict" | "relaxed";
  readonly clock: Clock;
}

/** The connection of a store to database `name`. */
export function connection(name: string): Connection {
  let opening: Promise<IDBPDatabase<IsoagentDB>> | undefined;
  let closed: string | undefined;

  const db = (): Promise<IDBPDatabase<IsoagentDB>> => {
    if (closed !== undefined) return Promise.reject(new StoreError("STORE_CLOSED", closed));
    opening ??= (async () => {
      if ((globalThis as { indexedDB?: IDBFactory }).indexedDB === undefined) throw new StoreError("STORE_UNAVAILABLE", "IndexedDB is not available here");
      return new Promise<IDBPDatabase<IsoagentDB>>((resolve, reject) => {
        let refused = false;
        openDB<IsoagentDB>(name, DB_VERSION, {
          upgrade: (database, oldVersion, newVersion, tx) => upgrade(database, oldVersion, newVersion ?? DB_VERSION, tx),
          // An older tab holds the database open at an older version.
          blocked: () => {
            refused = true;
            reject(new StoreError("STORE_BLOCKED", `database ${name} cannot be upgraded while another tab keeps an older version open; close the other tabs`));
          },
          // Another tab upgrades or deletes it: let go, and refuse from now on.
          blocking: () => {
            closed = `database ${name} was closed because another tab is upgrading or deleting it; reload the page`;
            void opening?.then((d) => d.close());
          },
          terminated: () => {
            closed = `database ${name} was closed by the browser`;
          },
        }).then(
          // Opened after all (the other tab closed): this store already said
          // it was blocked, so it lets the connection go.
          (d) => (refused ? d.close() : resolve(d)),
          reject,
        );
      });
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };

  return {
    db,
    closed: () => closed,
    close: (why) => {
      closed = why;
      void opening?.then((d) => d.close());
    },
  };
}
