/**
 * The store's runs, by their records: the lease (taken, renewed, released
 * and read, each in one transaction of the run's record, so two tabs can
 * never both hold it), the custody of a copy, and the listing.
 *
 * A run's record keeps its status, seq and updatedAt as of its last write
 * (schema.ts): exact while no lease is kept in it, so releasing the lease
 * makes it exact again from the journal's tail, and listing reads the tail
 * of each run whose record still keeps one.
 */
import type { LeaseView, RunId, RunStatus, RunSummary, Store } from "../../src/index.js";
import { checkOwned, leaseAcquire, leaseRelease, leaseRenew, leaseView, StoreError, type Custody, type Lease, type RunFilter } from "../../src/store/index.js";
import { abandoned } from "../../src/store/copies.js";
import { listing } from "../../src/store/engine.js";
import type { IdbContext } from "./connection.js";
import type { RunRecord } from "./schema.js";
import { tailOf, withTx } from "./tx.js";

/** The methods of a store that read and write its runs' records. */
export type RunMethods = Pick<Store, "acquireLease" | "renewLease" | "releaseLease" | "lease" | "listRuns"> & Required<Pick<Store, "custody" | "abandonTransit">>;

/** A run's summary from its record, and from its journal's tail when the record keeps a lease (undefined: the record is exact). */
const summary = (r: RunRecord, tail: { seq: number; at: number; status: RunStatus } | undefined): RunSummary => ({
  ...(tail === undefined
    ? { runId: r.runId, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, seq: r.seq, lease: leaseView(r.lease) }
    : { runId: r.runId, status: tail.status, createdAt: r.createdAt, updatedAt: tail.at, seq: tail.seq, lease: leaseView(r.lease) }),
  ...(r.title === undefined ? {} : { title: r.title }),
  ...(r.custody === undefined ? {} : { custody: r.custody }),
});

/** The run methods of the store of `ctx`. */
export function runMethods(ctx: IdbContext): RunMethods {
  const { clock } = ctx;

  /** The run's record, read in a transaction of its own (RUN_NOT_FOUND when there is none). */
  const record = (runId: RunId, what: string): Promise<RunRecord> =>
    withTx(ctx, ["runs"], "readonly", what, async (tx) => {
      const run = await tx.objectStore("runs").get(runId);
      if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      return run;
    });

  return {
    async custody(runId: RunId): Promise<Custody | undefined> {
      return (await record(runId, `reading the custody of run ${runId}`)).custody;
    },

    async abandonTransit(runId: RunId): Promise<boolean> {
      const changed = await withTx(ctx, ["runs"], "readwrite", `abandoning the transit of run ${runId}`, async (tx) => {
        const runs = tx.objectStore("runs");
        const run = await runs.get(runId);
        const custody = abandoned(run?.custody);
        if (run !== undefined && custody !== undefined) void runs.put({ ...run, custody } satisfies RunRecord);
        return run === undefined ? undefined : custody !== undefined;
      });
      // (Told once the transaction, which wrote nothing, has committed.)
      if (changed === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      return changed;
    },

    async acquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Lease | null> {
      return withTx(ctx, ["runs"], "readwrite", `taking the lease of run ${runId}`, async (tx, end) => {
        const runs = tx.objectStore("runs");
        const run = await runs.get(runId);
        const lease = run === undefined || run.custody !== undefined ? null : leaseAcquire(run.lease, run.tokens, { runId, owner, ttlMs, now: clock.now() });
        if (run === undefined || lease === null) {
          end.abort();
          if (run === undefined) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
          checkOwned(runId, run.custody);
          return null;
        }
        void runs.put({ ...run, tokens: lease.token, lease });
        return lease;
      });
    },

    async renewLease(lease: Lease, ttlMs: number): Promise<Lease | null> {
      return withTx(ctx, ["runs"], "readwrite", `renewing the lease of run ${lease.runId}`, async (tx, end) => {
        const runs = tx.objectStore("runs");
        const run = await runs.get(lease.runId);
        const renewed = run === undefined ? null : leaseRenew(run.lease, lease, ttlMs, clock.now());
        if (run === undefined || renewed === null) {
          end.abort();
          return null;
        }
        void runs.put({ ...run, lease: renewed });
        return renewed;
      });
    },

    async releaseLease(lease: Lease): Promise<void> {
      // The run's record is made exact again from its journal's tail: with
      // no lease in it, listing trusts it.
      await withTx(ctx, ["runs", "journal"], "readwrite", `releasing the lease of run ${lease.runId}`, async (tx) => {
        const [run, tail] = await Promise.all([tx.objectStore("runs").get(lease.runId), tailOf(tx, lease.runId)]);
        if (run !== undefined && leaseRelease(run.lease, lease)) {
          const { lease: _gone, ...rest } = run;
          void tx.objectStore("runs").put(tail === undefined ? rest : { ...rest, status: tail.status, seq: tail.seq, updatedAt: tail.at });
        }
      });
    },

    async lease(runId: RunId): Promise<LeaseView | null> {
      return leaseView((await record(runId, `reading the lease of run ${runId}`)).lease);
    },

    async listRuns(filter: RunFilter = {}): Promise<RunSummary[]> {
      return withTx(ctx, ["runs", "journal"], "readonly", "listing runs", async (tx) => {
        const runs = await tx.objectStore("runs").getAll();
        // A run whose record keeps a lease may have appended since the
        // record was written: its journal's tail says where it is.
        const tails = await Promise.all(runs.map((r) => (r.lease === undefined ? Promise.resolve(undefined) : tailOf(tx, r.runId))));
        return listing(
          runs.map((r, k) => summary(r, tails[k])),
          filter,
        );
      });
    },
  };
}
