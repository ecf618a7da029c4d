/**
 * What the store keeps beside the journal: artifacts (bytes, by their
 * SHA-256, each kept once) and each run's latest snapshot (a cache of its
 * journal up to an event, which a resume checks against the journal).
 */
import type { RunId, Store } from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import { StoreError, type ArtifactRef, type Snapshot } from "../../src/store/index.js";
import type { IdbContext } from "./connection.js";
import { errorName } from "./errors.js";
import { withTx } from "./tx.js";

/** The methods of a store that keep artifacts and snapshots. */
export type BlobMethods = Pick<Store, "putArtifact" | "getArtifact" | "putSnapshot" | "getSnapshot">;

/** The artifact and snapshot methods of the store of `ctx`. */
export function blobMethods(ctx: IdbContext): BlobMethods {
  return {
    async putArtifact(bytes: Uint8Array): Promise<ArtifactRef> {
      const sha256 = sha256HexSync(bytes);
      return withTx(ctx, ["artifacts"], "readwrite", "storing an artifact", async (tx) => {
        const artifacts = tx.objectStore("artifacts");
        if ((await artifacts.getKey(sha256)) === undefined) void artifacts.put({ sha256, bytes: bytes.slice() });
        return { sha256, size: bytes.length };
      });
    },

    async getArtifact(sha256: string): Promise<Uint8Array | null> {
      return withTx(ctx, ["artifacts"], "readonly", "reading an artifact", async (tx) => {
        const row = await tx.objectStore("artifacts").get(sha256);
        return row === undefined ? null : new Uint8Array(row.bytes);
      });
    },

    async putSnapshot(runId: RunId, snapshot: Snapshot): Promise<void> {
      // Relaxed whatever the store's durability: a snapshot is a cache of
      // the journal up to an event the journal already holds durably (the
      // driver takes it after that append resolved), and the resume that
      // reads it checks it against the journal (loadState). Lost to a power
      // cut, the resume reads the journal from the previous snapshot (or
      // the first event); it can never stand for events that were lost.
      // One round trip: the put is queued with the reads, and undone when
      // the run is unknown or a newer snapshot is already kept.
      await withTx(
        ctx,
        ["runs", "snapshots"],
        "readwrite",
        `storing a snapshot of run ${runId}`,
        async (tx, end) => {
          let missing = false;
          const checked = Promise.all([tx.objectStore("runs").getKey(runId), tx.objectStore("snapshots").get(runId)]).then(([run, current]) => {
            missing = run === undefined;
            if (missing || (current !== undefined && current.seq >= snapshot.seq)) tx.abort();
          });
          tx.objectStore("snapshots")
            .put({ ...snapshot, runId })
            .catch(() => {});
          await checked;
          await end.done().catch((e: unknown) => {
            if (errorName(e) !== "AbortError") throw e;
          });
          if (missing) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        },
        "relaxed",
      );
    },

    async getSnapshot(runId: RunId): Promise<Snapshot | null> {
      return withTx(ctx, ["runs", "snapshots"], "readonly", `reading the snapshot of run ${runId}`, async (tx) => {
        const [run, row] = await Promise.all([tx.objectStore("runs").getKey(runId), tx.objectStore("snapshots").get(runId)]);
        if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        if (row === undefined) return null;
        const { runId: _r, ...snapshot } = row;
        return snapshot;
      });
    },
  };
}
