/**
 * The Store port over Durable Object RPC, for a driver outside the run
 * objects (a Worker, a process reaching them through one): each run's calls
 * go to its own object, listing to the index, artifacts to their shard.
 * An append resolves once the run object has answered, and an RPC answer
 * leaves the object only after the writes before it are confirmed (its
 * output gate), so an appended call's start is durable when append resolves.
 */
import type { Store } from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import type { RunHead } from "../../src/store/index.js";
import type { RunIndex } from "./index-object.js";
import { listWithLeases } from "./leases.js";
import { artifactShard, runObject, type RunObjectApi } from "./run-object.js";
import { unwire } from "./wire.js";

/** The Durable Object namespaces `durableObjectStore` reaches: the run objects (one per run) and the index that lists them. */
export interface DurableObjectStoreOptions {
  readonly runs: DurableObjectNamespace<RunObjectApi & Rpc.DurableObjectBranded>;
  readonly index: DurableObjectNamespace<RunIndex>;
}

/**
 * @example
 * ```ts
 * const store = durableObjectStore({ runs: env.RUNS, index: env.RUN_INDEX })
 * const driver = createDriver({ store, agent, tools })
 * ```
 */
export function durableObjectStore(options: DurableObjectStoreOptions): Store {
  const run = (runId: string): RunObjectApi => runObject(options.runs, runId);
  return {
    async createRun(first) {
      unwire(await run(first.runId).storeCreateRun(first));
    },
    async append(runId, events, guard, status) {
      return unwire(await run(runId).storeAppend(runId, events, guard, status));
    },
    async read(runId, fromSeq = 1) {
      return unwire(await run(runId).storeRead(runId, fromSeq));
    },
    async importEvents(runId, events, guard) {
      return unwire(await run(runId).storeImportEvents(runId, events, guard));
    },
    async custody(runId) {
      return unwire(await run(runId).storeCustody(runId)) ?? undefined;
    },
    async abandonTransit(runId) {
      return unwire(await run(runId).storeAbandonTransit(runId));
    },
    async acquireLease(runId, owner, ttlMs) {
      return unwire(await run(runId).storeAcquireLease(runId, owner, ttlMs));
    },
    async renewLease(lease, ttlMs) {
      return unwire(await run(lease.runId).storeRenewLease(lease, ttlMs));
    },
    async releaseLease(lease) {
      unwire(await run(lease.runId).storeReleaseLease(lease));
    },
    async lease(runId) {
      return unwire(await run(runId).storeLease(runId));
    },
    async listRuns(filter) {
      return listWithLeases(options.runs, async () => (await options.index.getByName("index").list(filter ?? {})) as RunHead[]);
    },
    async putArtifact(bytes) {
      return unwire(await runObject(options.runs, artifactShard(sha256HexSync(bytes))).artifactPut(bytes));
    },
    async getArtifact(sha256) {
      return unwire(await runObject(options.runs, artifactShard(sha256)).artifactGet(sha256));
    },
    async putSnapshot(runId, snapshot) {
      unwire(await run(runId).storePutSnapshot(runId, snapshot));
    },
    async getSnapshot(runId) {
      return unwire(await run(runId).storeGetSnapshot(runId));
    },
  };
}
