/**
 * One Durable Object per run, on SQLite storage. It is the run's store
 * (journal, lease, snapshot, artifacts), reachable over RPC so that a driver
 * elsewhere (a Worker, a Node process) can use it with leases; and it can
 * host the run, driving it itself, with an alarm that resumes it when its
 * driver vanished or the object was reset.
 *
 * Durability: an append is one SQL statement (one row). Before a tool's side
 * effect the call's start must be durable; a hosted run gets that one of two
 * ways (see {@link RunObjectConfig.durability}): by Cloudflare's output gate
 * (the default: any message leaving the object, a fetch, an RPC, a reply, is
 * held until the writes before it are confirmed, and writes to the object's
 * own storage commit in order), or by an explicit `storage.sync()` before
 * each effect.
 */
import { DurableObject } from "cloudflare:workers";
import {
  answerThenDrive,
  createDriver,
  sha256HexSync,
  StoreError,
  TERMINAL_STATUSES,
  type Agent,
  type ApprovalAnswer,
  type ApprovalId,
  type AppendGuard,
  type ArtifactRef,
  type Driver,
  type Faults,
  type JournalEvent,
  type JsonValue,
  type Lease,
  type Limits,
  type Policy,
  type ReconcileHook,
  type RunCreated,
  type RunFilter,
  type RunId,
  type RunOutcome,
  type RunState,
  type RunStatus,
  type RunSummary,
  type Settlement,
  type Snapshot,
  type StepProgress,
  type Store,
  type Tool,
} from "../../src/index.js";
import type { RunIndex } from "./index-object.js";
import { RunSql } from "./sql.js";
import { unwire, wire, type Wire } from "./wire.js";

/** The bindings a run object needs: its own namespace (for artifact shards) and the index. */
export interface RunBindings {
  readonly RUNS: DurableObjectNamespace<RunObjectApi & Rpc.DurableObjectBranded>;
  readonly RUN_INDEX: DurableObjectNamespace<RunIndex>;
}

/** What a hosted run is given, per object. */
export interface HostContext<Env> {
  readonly env: Env;
  readonly runId: RunId;
  /** The task the run was created with. */
  readonly task: JsonValue;
  readonly storage: DurableObjectStorage;
  /** The object's state (its storage, alarms, and `abort()`, which resets it). */
  readonly state: DurableObjectState;
}

/** How the run objects of a deployment drive their runs. */
export interface RunObjectConfig<Env extends RunBindings> {
  agent(ctx: HostContext<Env>): Agent;
  /** The run's tools; a promise when they come from elsewhere (an MCP server's listing: isoagent/mcp). */
  tools(ctx: HostContext<Env>): readonly Tool<never, unknown>[] | Promise<readonly Tool<never, unknown>[]>;
  policy?(ctx: HostContext<Env>): Policy;
  reconcile?(ctx: HostContext<Env>): ReconcileHook;
  secrets?(env: Env): readonly string[];
  readonly limits?: Partial<Limits>;
  /** Default 15,000 ms. */
  readonly leaseTtlMs?: number;
  /**
   * How a call's start is made durable before its side effect.
   *
   * - `"output-gate"` (default): nothing extra. Safe when every effect of the
   *   tools is a message leaving the object (fetch, RPC to another object or
   *   service, a WebSocket message: the output gate holds it until the start
   *   is confirmed) or a write to this object's own storage (committed in
   *   order after the start, or lost with it).
   * - `"sync"`: `await storage.sync()` before each effect (one more fsync per
   *   effectful step). Use it when a tool can act outside both, e.g. on state
   *   shared in the isolate's memory or through writes that opt out of the gate.
   */
  durability?(ctx: HostContext<Env>): "output-gate" | "sync";
  /** @internal Fault injection for the crash tests. */
  faults?(ctx: HostContext<Env>): Faults | undefined;
}

/** The RPC surface of a run object (store, host, artifacts). */
export interface RunObjectApi {
  storeCreateRun(first: RunCreated): Promise<Wire<null>>;
  storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<Wire<{ seq: number; hash: string }>>;
  storeRead(runId: RunId, fromSeq: number): Promise<Wire<JournalEvent[]>>;
  storeAcquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Wire<Lease | null>>;
  storeRenewLease(lease: Lease, ttlMs: number): Promise<Wire<Lease | null>>;
  storeReleaseLease(lease: Lease): Promise<Wire<null>>;
  storePutSnapshot(runId: RunId, snapshot: Snapshot): Promise<Wire<null>>;
  storeGetSnapshot(runId: RunId): Promise<Wire<Snapshot | null>>;
  storeConfirm(): Promise<Wire<null>>;
  artifactPut(bytes: Uint8Array): Promise<Wire<ArtifactRef>>;
  artifactGet(sha256: string): Promise<Wire<Uint8Array | null>>;
  host(runId: RunId, task: JsonValue): Promise<Wire<RunId>>;
  hostState(runId: RunId): Promise<Wire<RunState>>;
  hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<Wire<null>>;
  hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<Wire<null>>;
  hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<Wire<null>>;
  hostCancel(runId: RunId, options: { by: string; reason?: string }): Promise<Wire<null>>;
  /** What the hosted run's agent has streamed so far in the step it decides (not journaled). */
  hostProgress(runId: RunId): Promise<Wire<StepProgress | null>>;
  /** Drives the hosted run now (tests; the alarm does it otherwise). */
  hostDrive(): Promise<Wire<RunOutcome | null>>;
}

/**
 * A run object's stub, typed by its API (Workers' RPC stub types recurse too
 * deep on a run's state for the compiler; the values are the same).
 */
export function runObject(ns: RunBindings["RUNS"], name: string): RunObjectApi {
  return ns.getByName(name) as unknown as RunObjectApi;
}

/** The shard object that keeps an artifact: by the first two hex digits of its SHA-256. */
export function artifactShard(sha256: string): string {
  return `artifacts:${sha256.slice(0, 2)}`;
}

const RETRY_MS = 5_000;

/** The class {@link defineRunObject} returns: a Durable Object with the run object's RPC surface. */
export type RunObjectClass<Env> = new (ctx: DurableObjectState, env: Env) => DurableObject<Env> & RunObjectApi & { alarm(): Promise<void> };

/**
 * Defines the run object class of a deployment, given how its runs are
 * driven. Export the class from the Worker's entry (named as wrangler.toml's
 * binding says), beside {@link RunIndex}.
 *
 * @example
 * ```ts
 * export const RunObject = defineRunObject<Env>({ agent: () => myAgent, tools: ({ storage }) => workspaceTools(storage) })
 * export { RunIndex }
 * ```
 */
export function defineRunObject<Env extends RunBindings>(config: RunObjectConfig<Env>): RunObjectClass<Env> {
  return class RunObject extends DurableObject<Env> implements RunObjectApi {
    readonly sql: RunSql;
    /** This incarnation of the object: a lease held by an earlier one is certainly stale. */
    readonly boot = crypto.randomUUID();
    private driver: Driver | undefined;
    private driverReady: Promise<Driver> | undefined;
    private driving: Promise<RunOutcome | null> | undefined;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this.sql = new RunSql(ctx.storage, () => Date.now());
    }

    // ---- the store, over RPC ---------------------------------------------------

    storeCreateRun(first: RunCreated) {
      return wire(async () => {
        await this.createHere(first);
        return null;
      });
    }
    storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus) {
      return wire(() => this.appendHere(runId, events, guard, status));
    }

    /** Creates the run in this object's SQLite and lists it (for RPC callers and the host alike). */
    private async createHere(first: RunCreated): Promise<void> {
      this.sql.createRun(first);
      await this.report(true);
    }

    /** Appends in this object's SQLite; a status change reaches the index before the caller is answered. */
    private async appendHere(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      const before = this.sql.summary()?.status;
      const head = this.sql.append(runId, events, guard, status);
      await this.report(before !== status);
      return head;
    }
    storeRead(runId: RunId, fromSeq: number) {
      return wire(() => this.sql.read(runId, fromSeq));
    }
    storeAcquireLease(runId: RunId, owner: string, ttlMs: number) {
      return wire(() => this.sql.acquireLease(runId, owner, ttlMs));
    }
    storeRenewLease(lease: Lease, ttlMs: number) {
      return wire(() => this.sql.renewLease(lease, ttlMs));
    }
    storeReleaseLease(lease: Lease) {
      return wire(() => {
        this.sql.releaseLease(lease);
        return null;
      });
    }
    storePutSnapshot(runId: RunId, snapshot: Snapshot) {
      return wire(() => {
        this.sql.putSnapshot(runId, snapshot);
        return null;
      });
    }
    storeGetSnapshot(runId: RunId) {
      return wire(() => this.sql.getSnapshot(runId));
    }
    storeConfirm() {
      return wire(async () => {
        await this.ctx.storage.sync();
        return null;
      });
    }
    artifactPut(bytes: Uint8Array) {
      return wire(() => this.sql.putArtifact(new Uint8Array(bytes)));
    }
    artifactGet(sha256: string) {
      return wire(() => this.sql.getArtifact(sha256));
    }

    // ---- the index ------------------------------------------------------------------

    /**
     * Reports this run to the index. A status change is reported before the
     * caller is answered; other progress is left to the alarm (so a step
     * costs no extra round trip), which also heals the index after a reset
     * between a write and its report.
     */
    /** When this object's alarm is set for, as far as this incarnation knows (undefined: not looked yet). */
    private alarmAt: number | null | undefined;

    private async setAlarm(at: number): Promise<void> {
      await this.ctx.storage.setAlarm(at);
      this.alarmAt = at;
    }

    private async report(now: boolean): Promise<void> {
      const s = this.sql.summary();
      if (s === undefined || s.indexedSeq >= s.seq) return;
      if (!now) {
        // Known in memory after the first look: a step adds no storage round trip.
        this.alarmAt ??= await this.ctx.storage.getAlarm();
        if (this.alarmAt === null) await this.setAlarm(Date.now() + 1000);
        return;
      }
      const { indexedSeq: _i, ...summary } = s;
      await this.env.RUN_INDEX.getByName("index").report(summary);
      this.sql.markIndexed(s.seq);
    }

    // ---- hosting: the object drives its own run --------------------------------------

    /** The host's driver, made once per incarnation (its tools may take a round trip: an MCP server's listing). */
    private hostDriver(): Promise<Driver> {
      const summary = this.sql.summary();
      if (summary === undefined) return Promise.reject(new StoreError("RUN_NOT_FOUND", "this object holds no run"));
      this.driverReady ??= this.makeDriver(summary.runId).catch((e: unknown) => {
        this.driverReady = undefined;
        throw e;
      });
      return this.driverReady;
    }

    private async makeDriver(runId: RunId): Promise<Driver> {
      const hc: HostContext<Env> = { env: this.env, runId, task: this.sql.task() ?? null, storage: this.ctx.storage, state: this.ctx };
      const faults = config.faults?.(hc);
      const reconcile = config.reconcile?.(hc);
      const policy = config.policy?.(hc);
      const secrets = config.secrets?.(this.env);
      this.driver = createDriver({
        store: this.localStore(config.durability?.(hc) === "sync"),
        agent: config.agent(hc),
        tools: await config.tools(hc),
        owner: `host:${this.boot}`,
        leaseTtlMs: config.leaseTtlMs ?? 15_000,
        ...(config.limits === undefined ? {} : { limits: config.limits }),
        ...(faults === undefined ? {} : { faults }),
        ...(reconcile === undefined ? {} : { reconcile }),
        ...(policy === undefined ? {} : { policy }),
        ...(secrets === undefined ? {} : { secrets }),
      });
      return this.driver;
    }

    /** The run's store for its own host: this object's SQLite, no RPC but to the index and the artifact shards. */
    private localStore(sync: boolean): Store {
      const sql = this.sql;
      const mine = (owner: string): boolean => owner.startsWith("host:") && owner !== `host:${this.boot}`;
      return {
        createRun: (first) => this.createHere(first),
        append: (runId, events, guard, status) => this.appendHere(runId, events, guard, status),
        read: async (runId, fromSeq) => sql.read(runId, fromSeq),
        // A lease held by an earlier incarnation of this host is dead: the
        // object is unique, and this incarnation is the one alive.
        acquireLease: async (runId, owner, ttlMs) => sql.acquireLease(runId, owner, ttlMs, mine),
        renewLease: async (lease, ttlMs) => sql.renewLease(lease, ttlMs),
        releaseLease: async (lease) => sql.releaseLease(lease),
        listRuns: async (filter?: RunFilter) => this.env.RUN_INDEX.getByName("index").list(filter ?? {}) as Promise<RunSummary[]>,
        putArtifact: async (bytes) => unwire(await runObject(this.env.RUNS, artifactShard(sha256HexSync(bytes))).artifactPut(bytes)),
        getArtifact: async (sha256) => unwire(await runObject(this.env.RUNS, artifactShard(sha256)).artifactGet(sha256)),
        putSnapshot: async (runId, snapshot) => sql.putSnapshot(runId, snapshot),
        getSnapshot: async (runId) => sql.getSnapshot(runId),
        ...(sync ? { confirm: () => this.ctx.storage.sync() } : {}),
      };
    }

    /** Drives the run once; the alarm is set to come back when it must. */
    private drive(): Promise<RunOutcome | null> {
      this.driving ??= (async () => {
        try {
          const summary = this.sql.summary();
          if (summary === undefined || TERMINAL_STATUSES.has(summary.status)) return null;
          const outcome = await (await this.hostDriver()).resume(summary.runId);
          if (outcome.status === "running") {
            // Busy (a lease still held), the agent unreachable, a lost lease:
            // come back later. The alarm survives a reset of the object.
            const lease = this.sql.lease();
            const at = outcome.stopped === "busy" && lease !== undefined ? lease.expiresAt + 50 : Date.now() + RETRY_MS;
            await this.setAlarm(at);
          }
          return outcome;
        } finally {
          this.driving = undefined;
        }
      })();
      return this.driving;
    }

    private async hostRun(runId: RunId, task: JsonValue): Promise<RunId> {
      // The alarm first: whatever happens next, the run is picked up again.
      await this.setAlarm(Date.now() + (config.leaseTtlMs ?? 15_000));
      const id = await this.createHosted(runId, task);
      void this.drive();
      return id;
    }

    private async createHosted(runId: RunId, task: JsonValue): Promise<RunId> {
      if (this.sql.summary() !== undefined) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
      const hc: HostContext<Env> = { env: this.env, runId, task, storage: this.ctx.storage, state: this.ctx };
      const d = createDriver({ store: this.localStore(false), agent: config.agent(hc), tools: await config.tools(hc), owner: `host:${this.boot}`, ...(config.limits === undefined ? {} : { limits: config.limits }) });
      return d.create(task, { runId });
    }

    host(runId: RunId, task: JsonValue) {
      return wire(() => this.hostRun(runId, task));
    }
    hostState(runId: RunId) {
      return wire(async () => (await this.hostDriver()).state(runId));
    }
    hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(async () => {
        await answerThenDrive(async () => (await this.hostDriver()).approve(runId, approvalId, answer), () => void this.drive());
        return null;
      });
    }
    hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(async () => {
        await answerThenDrive(async () => (await this.hostDriver()).deny(runId, approvalId, answer), () => void this.drive());
        return null;
      });
    }
    hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement) {
      return wire(async () => {
        await answerThenDrive(async () => (await this.hostDriver()).settle(runId, approvalId, answer), () => void this.drive());
        return null;
      });
    }
    hostCancel(runId: RunId, options: { by: string; reason?: string }) {
      return wire(async () => {
        await (await this.hostDriver()).cancel(runId, options);
        await this.report(true);
        return null;
      });
    }
    hostDrive() {
      return wire(() => this.drive());
    }
    hostProgress(runId: RunId) {
      return wire(() => this.driver?.progress(runId) ?? null);
    }

    /** Heals the index, and resumes a run whose driver vanished. */
    override async alarm(): Promise<void> {
      this.alarmAt = null; // it fired: none is set unless this handler sets one
      await this.report(true);
      const s = this.sql.summary();
      if (s !== undefined && s.status === "running") await this.drive();
    }
  };
}

