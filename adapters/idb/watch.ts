/**
 * The store's news of appends: told to this store's watchers at once, and
 * to the stores of the same database in other tabs (and workers) over a
 * BroadcastChannel, which is opened on the first watch or append.
 */
import type { RunId, Store } from "../../src/index.js";

/** How a store tells of its runs' appends, and hears of the other tabs'. */
export interface News {
  /** Tells this store's watchers, and the other tabs' stores, that the run grew. */
  grew(runId: RunId): void;
  /** The Store port's watch. */
  watch: NonNullable<Store["watch"]>;
  /** Closes the channel. */
  close(): void;
}

/** The news of the stores of database `name`; none is broadcast once `closed` says why the store was closed. */
export function news(name: string, closed: () => string | undefined): News {
  const watchers = new Map<RunId, Set<() => void>>();
  const tell = (runId: RunId): void => {
    for (const w of watchers.get(runId) ?? []) {
      try {
        w();
      } catch {
        // A watcher's failure is its own.
      }
    }
  };
  let channel: BroadcastChannel | undefined;
  const bus = (): BroadcastChannel | undefined => {
    if (channel === undefined && closed() === undefined && typeof BroadcastChannel === "function") {
      channel = new BroadcastChannel(`isoagent-idb:${name}`);
      channel.onmessage = (m: MessageEvent<unknown>) => {
        if (typeof m.data === "string") tell(m.data as RunId);
      };
      // (In Node, an open channel would keep the process alive.)
      (channel as { unref?: () => void }).unref?.();
    }
    return channel;
  };
  return {
    grew(runId) {
      tell(runId);
      bus()?.postMessage(runId);
    },
    watch(runId, listener) {
      bus();
      const set = watchers.get(runId) ?? new Set();
      watchers.set(runId, set.add(listener));
      return () => {
        if (set.delete(listener) && set.size === 0) watchers.delete(runId);
      };
    },
    close() {
      channel?.close();
    },
  };
}
