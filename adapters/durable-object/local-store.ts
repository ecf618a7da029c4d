/**
 * The Store a run object's own host drives its run on: the object's SQLite
 * (no RPC but to the index and the artifact shards). It runs the store
 * conformance suite like every other store (test/workerd/do.test.ts).
 */
import type { JournalEvent, RunId, RunStatus, Store } from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import type { RunCreated } from "../../src/journal/index.js";
import type { AppendGuard, Custody, ImportGuard, RunFilter } from "../../src/store/index.js";
import type { RunIndex } from "./index-object.js";
import { listWithLeases } from "./leases.js";
import { artifactShard, runObject } from "./api.js";
import type { RunBindings } from "./bindings.js";
import type { RunSql } from "./sql.js";
import { unwire } from "./wire.js";

/** What the local store needs of its object. */
export interface LocalHost {
  readonly sql: RunSql;
  /** This incarnation of the object: `host:<boot>` is its own host's lease owner. */
  readonly boot: string;
  readonly env: RunBindings;
  createHere(first: RunCreated): Promise<void>;
  appendHere(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }>;
  importHere(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard): Promise<{ seq: number; hash: string; custody: Custody | undefined }>;
  /** Resolves once the object's writes so far are durable (`storage.sync()`). */
  sync(): Promise<void>;
}

/** The run object's store for its own host; with `sync`, `confirm` waits for `storage.sync()` before each side effect. */
export function localStore(host: LocalHost, sync: boolean): Store {
  const { sql } = host;
  // A lease held by an earlier incarnation of this host is dead: the object
  // is unique, and this incarnation is the one alive.
  const dead = (owner: string): boolean => owner.startsWith("host:") && owner !== `host:${host.boot}`;
  const index = (): DurableObjectStub<RunIndex> => host.env.RUN_INDEX.getByName("index");
  return {
    createRun: (first) => host.createHere(first),
    append: (runId, events, guard, status) => host.appendHere(runId, events, guard, status),
    read: async (runId, fromSeq) => sql.read(runId, fromSeq),
    importEvents: (runId, events, guard) => host.importHere(runId, events, guard),
    custody: async (runId) => sql.custody(runId),
    abandonTransit: async (runId) => sql.abandonTransit(runId),
    acquireLease: async (runId, owner, ttlMs) => sql.acquireLease(runId, owner, ttlMs, dead),
    renewLease: async (lease, ttlMs) => sql.renewLease(lease, ttlMs),
    releaseLease: async (lease) => sql.releaseLease(lease),
    lease: async (runId) => sql.leaseView(runId),
    listRuns: (filter?: RunFilter) => listWithLeases(host.env.RUNS, () => index().list(filter ?? {})),
    putArtifact: async (bytes) => unwire(await runObject(host.env.RUNS, artifactShard(sha256HexSync(bytes))).artifactPut(bytes)),
    getArtifact: async (sha256) => unwire(await runObject(host.env.RUNS, artifactShard(sha256)).artifactGet(sha256)),
    putSnapshot: async (runId, snapshot) => sql.putSnapshot(runId, snapshot),
    getSnapshot: async (runId) => sql.getSnapshot(runId),
    ...(sync ? { confirm: () => host.sync() } : {}),
  };
}
