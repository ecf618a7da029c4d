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
  createDriver,
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
  type LeaseView,
  type Limits,
  type Policy,
  type ReconcileHook,
  type RunCreated,
  type RunId,
  type RunOutcome,
  type RunState,
  type RunStatus,
  type Settlement,
  type Snapshot,
  type StepProgress,
  type Store,
  type Tool,
} from "../../src/index.js";
import type { RunIndex } from "./index-object.js";
import { localStore } from "./local-store.js";
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
  tools(ctx: HostContext<Env>): readonly Tool<never, unknown>[];
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
  /** @internal Fault injection at the await points of an operator's operation (the crash tests reset the object there). */
  operatorFaults?(ctx: HostContext<Env>): { at(op: OperatorOp, point: OperatorPoint): void | Promise<void> } | undefined;
}

/** An operator's operation on a hosted run, for fault injection. */
export type OperatorOp = "approve" | "deny" | "settle" | "cancel";

/**
 * The await points of an operator's operation on a hosted run, in order:
 * before anything, after the alarm is armed, after the answer is appended
 * (before the index hears of it), after the index heard, after the drive
 * was started (before the caller is answered).
 */
export type OperatorPoint = "begin" | "armed" | "appended" | "reported" | "driving";

/** What a run object says of its run when asked by the index's sweep or a check. */
export interface RunCheck {
  readonly runId: RunId;
  readonly status: RunStatus;
  readonly seq: number;
  readonly updatedAt: number;
  readonly lease: LeaseView | null;
  /** When the object's alarm is set for, or null when none is. */
  readonly alarmAt: number | null;
  /** Whether the object's own host drives the run (else a driver elsewhere does). */
  readonly hosted: boolean;
  /** The object's clock when it answered. */
  readonly now: number;
  /**
   * Runnable (running) with no live lease for longer than the grace period,
   * and, when hosted, no alarm due within it: nothing will ever drive it.
   */
  readonly stranded: boolean;
  /** What the check did about it, when asked to heal: "reported" (the index was behind), "armed" (the alarm was set). */
  readonly healed: readonly ("reported" | "armed")[];
}

/** The RPC surface of a run object (store, host, artifacts). */
export interface RunObjectApi {
  storeCreateRun(first: RunCreated): Promise<Wire<null>>;
  storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<Wire<{ seq: number; hash: string }>>;
  storeRead(runId: RunId, fromSeq: number): Promise<Wire<JournalEvent[]>>;
  storeAcquireLease(runId: RunId, owner: string, ttlMs: number): Promise<Wire<Lease | null>>;
  storeRenewLease(lease: Lease, ttlMs: number): Promise<Wire<Lease | null>>;
  storeReleaseLease(lease: Lease): Promise<Wire<null>>;
  storeLease(runId: RunId): Promise<Wire<LeaseView | null>>;
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
  /**
   * The run's lease, alarm and status, judged stranded or not after `graceMs`
   * (default 0); with `heal`, an index that is behind is told, and a
   * stranded hosted run's alarm is set. Null when the object holds no run.
   */
  hostCheck(options: { heal: boolean; graceMs?: number }): Promise<Wire<RunCheck | null>>;
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

/** How soon a run that is running but not driven (busy, the agent unreachable, an error) is tried again. */
const RETRY_MS = 5_000;
/** How soon the alarm armed before an operator's answer fires, when no drive takes the run first. */
const SOON_MS = 1_000;

/** The class {@link defineRunObject} returns: a Durable Object with the run object's RPC surface. */
export type RunObjectClass<Env> = new (ctx: DurableObjectState, env: Env) => DurableObject<Env> & RunObjectApi & { alarm(): Promise<void> };

/**
 * Defines the run object class of a deployment, given how its runs are
 * driven. Export the class from the Worker's entry (named as wrangler.toml's
 * binding says), beside {@link RunIndex}.
 *
 * The rule that keeps a hosted run from stranding: every write that can
 * leave the run runnable (its creation, an operator's answer, a
 * cancellation, a drive) is preceded, in this object, by an armed alarm, so
 * that a reset or a killed process at any point after it leaves a run its
 * alarm resumes. A drive asked for while one is finishing goes round once
 * more instead of joining it (the finishing one may not have seen the answer).
 *
 * @example
 * ```ts
 * export const RunObject = defineRunObject<Env>({ agent: () => myAgent, tools: ({ storage }) => workspaceTools(storage) })
 * export { RunIndex }
 * ```
 */
export function defineRunObject<Env extends RunBindings>(config: RunObjectConfig<Env>): RunObjectClass<Env> {
  const ttl = config.leaseTtlMs ?? 15_000;
  return class RunObject extends DurableObject<Env> implements RunObjectApi {
    readonly sql: RunSql;
    /** This incarnation of the object: a lease held by an earlier one is certainly stale. */
    readonly boot = crypto.randomUUID();
    private driver: Driver | undefined;
    private driving: Promise<RunOutcome | null> | undefined;
    /** A drive was asked for while one was under way: it goes round again. */
    private again = false;
    /** The operator's operation under way, for fault injection at its append. */
    private operating: OperatorOp | undefined;
    /**
     * When the alarm is set for, as this incarnation last set or read it
     * (undefined: not known). Trusted only while it is in the future: an
     * alarm due in the past may have fired, or been lost (workerd logs
     * "alarm overdue ... AlarmManager mismatch" after a kill), so it is read
     * again and set again.
     */
    private alarmAt: number | null | undefined;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this.sql = new RunSql(ctx.storage, () => Date.now());
    }

    // ---- the store, over RPC ---------------------------------------------------

    storeCreateRun(first: RunCreated) {
      return wire(async () => {
        await this.createHere(first, false);
        return null;
      });
    }
    storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus) {
      return wire(() => this.appendHere(runId, events, guard, status));
    }

    /** Creates the run in this object's SQLite and lists it; the alarm first, so an index that missed it is told. */
    private async createHere(first: RunCreated, hosted: boolean): Promise<void> {
      await this.arm(Date.now() + (hosted ? ttl : SOON_MS));
      this.sql.createRun(first, hosted);
      await this.report(true);
    }

    /** Appends in this object's SQLite; a status change reaches the index before the caller is answered. */
    private async appendHere(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus): Promise<{ seq: number; hash: string }> {
      const before = this.sql.summary()?.status;
      const head = this.sql.append(runId, events, guard, status);
      if (guard.lease === undefined && this.operating !== undefined) await this.fault(this.operating, "appended");
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
    storeLease(runId: RunId) {
      return wire(() => this.sql.leaseView(runId));
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

    // ---- the alarm and the index -------------------------------------------------------

    /** Makes sure the alarm fires by `at`: an alarm set later, or none, or one overdue, is (re)set to `at`. */
    private async arm(at: number): Promise<void> {
      const now = Date.now();
      if (this.alarmAt !== undefined && this.alarmAt !== null && this.alarmAt > now && this.alarmAt <= at) return;
      const current = await this.ctx.storage.getAlarm();
      if (current !== null && current > now && current <= at) {
        this.alarmAt = current;
        return;
      }
      await this.ctx.storage.setAlarm(at);
      this.alarmAt = at;
    }

    /**
     * Reports this run to the index. A status change is reported before the
     * caller is answered; other progress is left to the alarm (so a step
     * costs no extra round trip), which also heals the index after a reset
     * between a write and its report.
     */
    private async report(now: boolean): Promise<void> {
      const s = this.sql.summary();
      if (s === undefined || s.indexedSeq >= s.seq) return;
      if (!now) return this.arm(Date.now() + 1000);
      const { indexedSeq: _i, ...head } = s;
      await this.env.RUN_INDEX.getByName("index").report(head);
      this.sql.markIndexed(s.seq);
    }

    /** The fault injection of the tests, at an operator's await point. */
    private async fault(op: OperatorOp, point: OperatorPoint): Promise<void> {
      await config.operatorFaults?.(this.hostContext())?.at(op, point);
    }

    // ---- hosting: the object drives its own run --------------------------------------

    private hostContext(): HostContext<Env> {
      const summary = this.sql.summary();
      if (summary === undefined) throw new StoreError("RUN_NOT_FOUND", "this object holds no run");
      return { env: this.env, runId: summary.runId, task: this.sql.task() ?? null, storage: this.ctx.storage, state: this.ctx };
    }

    private hostDriver(): Driver {
      const hc = this.hostContext();
      if (this.driver !== undefined) return this.driver;
      const faults = config.faults?.(hc);
      const reconcile = config.reconcile?.(hc);
      const policy = config.policy?.(hc);
      const secrets = config.secrets?.(this.env);
      this.driver = createDriver({
        store: this.localStore(config.durability?.(hc) === "sync"),
        agent: config.agent(hc),
        tools: config.tools(hc),
        owner: `host:${this.boot}`,
        leaseTtlMs: ttl,
        ...(config.limits === undefined ? {} : { limits: config.limits }),
        ...(faults === undefined ? {} : { faults }),
        ...(reconcile === undefined ? {} : { reconcile }),
        ...(policy === undefined ? {} : { policy }),
        ...(secrets === undefined ? {} : { secrets }),
      });
      return this.driver;
    }

    /**
     * The run's store for its own host (see local-store.ts). Protected for
     * the conformance suite's test object, whose runs are created not hosted
     * (so that no alarm drives them under the suite).
     */
    protected localStore(sync: boolean, hosted = true): Store {
      return localStore(
        {
          sql: this.sql,
          boot: this.boot,
          env: this.env,
          createHere: (first) => this.createHere(first, hosted),
          appendHere: (runId, events, guard, status) => this.appendHere(runId, events, guard, status),
          sync: () => this.ctx.storage.sync(),
        },
        sync,
      );
    }

    /**
     * Drives the run until it ends, waits or must stop; the alarm is set to
     * come back when it must. A call while a drive is under way makes that
     * drive go round once more, and answers when it is done.
     */
    private drive(): Promise<RunOutcome | null> {
      if (this.driving !== undefined) {
        this.again = true;
        return this.driving;
      }
      const driving = (async () => {
        try {
          let outcome: RunOutcome | null;
          do {
            this.again = false;
            outcome = await this.driveOnce();
          } while (this.again);
          return outcome;
        } finally {
          this.driving = undefined;
        }
      })();
      this.driving = driving;
      return driving;
    }

    private async driveOnce(): Promise<RunOutcome | null> {
      const summary = this.sql.summary();
      if (summary === undefined || TERMINAL_STATUSES.has(summary.status) || !this.sql.hosted()) return null;
      // The alarm first: a drive cut short (a reset, a killed process) is
      // resumed by it, and the dead drive's lease is known dead then.
      await this.arm(Date.now() + ttl);
      const outcome = await this.hostDriver().resume(summary.runId);
      if (outcome.status === "running") {
        // Busy (a lease still held), the agent unreachable, a lost lease:
        // come back later. The alarm survives a reset of the object.
        const held = outcome.stopped === "busy" ? outcome.lease : undefined;
        await this.arm(held !== undefined && held !== null ? held.expiresAt + 50 : Date.now() + RETRY_MS);
      }
      return outcome;
    }

    private async hostRun(runId: RunId, task: JsonValue): Promise<RunId> {
      const id = await this.createHosted(runId, task);
      void this.drive();
      return id;
    }

    private async createHosted(runId: RunId, task: JsonValue): Promise<RunId> {
      if (this.sql.summary() !== undefined) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
      const hc: HostContext<Env> = { env: this.env, runId, task, storage: this.ctx.storage, state: this.ctx };
      const d = createDriver({ store: this.localStore(false), agent: config.agent(hc), tools: config.tools(hc), owner: `host:${this.boot}`, ...(config.limits === undefined ? {} : { limits: config.limits }) });
      return d.create(task, { runId });
    }

    /**
     * An operator's answer or cancellation: the alarm is armed before the
     * append, so that whatever happens after it, the run is driven again
     * (and the index told) by the alarm if not by the drive started here.
     */
    private async operate(op: OperatorOp, append: () => Promise<unknown>): Promise<null> {
      await this.fault(op, "begin");
      await this.arm(Date.now() + SOON_MS);
      await this.fault(op, "armed");
      this.operating = op;
      try {
        await append();
      } finally {
        this.operating = undefined;
      }
      await this.fault(op, "reported");
      void this.drive().catch(() => this.arm(Date.now() + RETRY_MS));
      await this.fault(op, "driving");
      return null;
    }

    host(runId: RunId, task: JsonValue) {
      return wire(() => this.hostRun(runId, task));
    }
    hostState(runId: RunId) {
      return wire(() => this.hostDriver().state(runId));
    }
    hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(() => this.operate("approve", () => this.hostDriver().approve(runId, approvalId, answer)));
    }
    hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(() => this.operate("deny", () => this.hostDriver().deny(runId, approvalId, answer)));
    }
    hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement) {
      return wire(() => this.operate("settle", () => this.hostDriver().settle(runId, approvalId, answer)));
    }
    hostCancel(runId: RunId, options: { by: string; reason?: string }) {
      return wire(() => this.operate("cancel", () => this.hostDriver().cancel(runId, options)));
    }
    hostDrive() {
      return wire(() => this.drive());
    }
    hostProgress(runId: RunId) {
      return wire(() => this.driver?.progress(runId) ?? null);
    }
    hostCheck(options: { heal: boolean; graceMs?: number }) {
      return wire(() => this.check(options.heal, options.graceMs ?? 0));
    }

    private async check(heal: boolean, graceMs: number): Promise<RunCheck | null> {
      const s = this.sql.summary();
      if (s === undefined) return null;
      const now = Date.now();
      const lease = this.sql.leaseView(s.runId);
      const alarmAt = await this.ctx.storage.getAlarm();
      const hosted = this.sql.hosted();
      const runnable = s.status === "running";
      const live = lease !== null && lease.expiresAt > now;
      const since = lease?.expiresAt ?? s.updatedAt;
      const alarmDue = alarmAt !== null && alarmAt >= now - graceMs;
      const stranded = runnable && !live && now - since > graceMs && !(hosted && alarmDue);
      const healed: ("reported" | "armed")[] = [];
      if (heal) {
        if (s.indexedSeq < s.seq) {
          await this.report(true);
          healed.push("reported");
        }
        // Re-armed even within the grace period: an alarm is cheap, and one
        // that fires while a drive is under way makes it go round once more.
        if (hosted && runnable && !live && (alarmAt === null || alarmAt < now)) {
          this.alarmAt = undefined;
          await this.arm(now);
          healed.push("armed");
        }
      }
      return { runId: s.runId, status: s.status, seq: s.seq, updatedAt: s.updatedAt, lease, alarmAt, hosted, now, stranded, healed };
    }

    /** Heals the index, and resumes a run whose driver vanished. */
    override async alarm(): Promise<void> {
      this.alarmAt = undefined; // it fired: what is set now is read again
      let reported = true;
      try {
        await this.report(true);
      } catch (e) {
        reported = false;
        console.error(`isoagent: run object could not report to the index: ${e instanceof Error ? e.message : String(e)}`);
      }
      const s = this.sql.summary();
      if (s !== undefined && s.status === "running" && this.sql.hosted()) {
        try {
          await this.drive();
        } catch (e) {
          // A drive that throws (a tool set whose shapes changed, a store
          // failure) is tried again later, never left without an alarm.
          console.error(`isoagent: run ${s.runId} could not be driven: ${e instanceof Error ? e.message : String(e)}`);
          await this.arm(Date.now() + RETRY_MS);
        }
      }
      if (!reported) await this.arm(Date.now() + RETRY_MS);
    }
  };
}
