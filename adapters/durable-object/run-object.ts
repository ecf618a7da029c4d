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
import { placeKeys, toolShapes, type PlaceKeys } from "../../src/move/index.js";
import {
  createDriver,
  isIsoagentError,
  type ApprovalAnswer,
  type ApprovalId,
  type Driver,
  type JournalEvent,
  type JsonValue,
  type RunId,
  type RunOutcome,
  type RunStatus,
  type Settlement,
  type Store,
} from "../../src/index.js";
import { TERMINAL_STATUSES, type RunCreated } from "../../src/journal/index.js";
import {
  StoreError,
  taskTitle,
  type AppendGuard,
  type Custody,
  type ImportGuard,
  type Lease,
  type Snapshot,
} from "../../src/store/index.js";
import { journalStream } from "../../src/http/stream.js";
import { Alarm } from "./alarm.js";
import type { HostFaultPoint, OperatorOp, RunCheck, RunObjectApi } from "./api.js";
import type { RunBindings } from "./bindings.js";
import { localStore } from "./local-store.js";
import { DEFAULT_PLACE, moveExport, moveImport, moveRelease, type MoveHost } from "./move.js";
import { RunExport } from "./otel.js";
import { RunSql } from "./sql.js";
import { wire } from "./wire.js";

import type { HostContext, RunObjectConfig } from "./config.js";

export { artifactShard, runObject, type HostFaultPoint, type OperatorOp, type OperatorPoint, type RunCheck, type RunNamespace, type RunObjectApi } from "./api.js";
export type { RunBindings } from "./bindings.js";
export type { HostContext, RunObjectConfig } from "./config.js";

/** How soon a run that is running but not driven (busy, the agent unreachable, an error) is tried again. */
const RETRY_MS = 5_000;
/** How soon the alarm armed before an operator's answer fires, when no drive takes the run first. */
const SOON_MS = 1_000;

/** The class {@link runObjectClass} returns: a Durable Object with the run object's RPC surface. */
export type RunObjectClass<Env> = new (ctx: DurableObjectState, env: Env) => DurableObject<Env> & RunObjectApi & { alarm(): Promise<void> };

/**
 * The run object class of a deployment, given how its runs are driven.
 * Export the class from the Worker's entry (named as wrangler.toml's
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
 * export const RunObject = runObjectClass<Env>({ agent: () => myAgent, tools: ({ storage }) => workspaceTools(storage) })
 * export { RunIndex }
 * ```
 */
export function runObjectClass<Env extends RunBindings>(config: RunObjectConfig<Env>): RunObjectClass<Env> {
  const ttl = config.leaseTtlMs ?? 15_000;
  // Leases are judged by the store's clock; alarms are set by the platform's.
  const storeClock = config.clock ?? (() => Date.now());
  return class RunObject extends DurableObject<Env> implements RunObjectApi {
    readonly sql: RunSql;
    /** This incarnation of the object: a lease held by an earlier one is certainly stale. */
    readonly boot = crypto.randomUUID();
    private driver: Driver | undefined;
    private driverReady: Promise<Driver> | undefined;
    /**
     * Why the last drive failed (TOOL_SHAPE_CHANGED: the deployment's tools
     * are not the run's), shown to the operator; cleared by a drive that
     * works. Kept in memory: after an eviction the alarm's next try finds
     * it again.
     */
    private problem: { code: string; message: string } | undefined;
    private driving: Promise<RunOutcome | null> | undefined;
    /** A drive was asked for while one was under way: it goes round again. */
    private again = false;
    /** The operator's operation under way, for fault injection at its append. */
    private operating: OperatorOp | undefined;
    private readonly alarmClock: Alarm;
    /** The export of the run's spans, when the config asks for it (otel.ts). */
    private readonly spans: RunExport;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      this.sql = new RunSql(ctx.storage, storeClock);
      this.alarmClock = new Alarm(ctx.storage);
      this.spans = new RunExport({
        options: () => config.otel?.(this.hostContext()),
        run: () => this.sql.summary(),
        read: (runId) => this.sql.read(runId),
        storage: ctx.storage,
        arm: (at) => this.arm(at),
      });
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
      this.tell("append");
      this.spans.afterAppend();
      if (guard.lease === undefined && this.operating !== undefined) await this.fault(`${this.operating}/appended`);
      // A seal (run.moved) changes the run's custody: the index hears of it at once, as of a status.
      await this.report(before !== status || events[events.length - 1]?.type === "run.moved");
      return head;
    }
    storeImportEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard) {
      return wire(() => this.importHere(runId, events, guard, false));
    }
    storeCustody(runId: RunId) {
      return wire(() => this.sql.custody(runId) ?? null);
    }
    storeAbandonTransit(runId: RunId) {
      return wire(async () => {
        const abandoned = this.sql.abandonTransit(runId);
        if (abandoned) await this.report(true, true);
        return abandoned;
      });
    }

    /** Imports a copy's events (isoagent/move); its custody reaches the index before the caller is answered. */
    private async importHere(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard, hosted: boolean): Promise<{ seq: number; hash: string; custody: Custody | undefined }> {
      if (hosted) await this.arm(Date.now() + SOON_MS);
      const head = this.sql.importEvents(runId, events, guard, hosted);
      await this.report(true);
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

    // ---- live event streams: the object holds them, and tells them when it appends -----
    //
    // Every append to the run passes through appendHere (its own host's, and
    // a remote driver's over storeAppend), so the object hears them all; a
    // stream reads this object's SQLite from where its reader is, pulled, and
    // pings while nothing changes. Held here rather than fanned out by a
    // hibernatable WebSocket: EventSource and curl speak SSE, so a socket
    // would need a bridge in the Worker turning it back into SSE, for a
    // saving (the object may sleep while streams are open) that matters only
    // for a run that waits long with a console open (DEVELOPERS.md).

    private readonly watchers = new Set<(what: "append" | "progress") => void>();
    /** This incarnation's appends, and the journal reads its streams made (each after a change heard, or at a stream's start). */
    private readonly streamStats = { appends: 0, reads: 0 };

    private tell(what: "append" | "progress"): void {
      if (what === "append") this.streamStats.appends++;
      for (const w of this.watchers) {
        try {
          w(what);
        } catch {
          // A stream's failure is its own.
        }
      }
    }

    hostStream(runId: RunId, fromSeq: number, keepAliveMs: number) {
      return wire(() => {
        const s = this.sql.summary();
        if (s === undefined || s.runId !== runId) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
        const feed = {
          read: async (from: number) => {
            this.streamStats.reads++;
            return this.sql.read(runId, from);
          },
          progress: () => this.driver?.progress(runId),
          watch: (listener: (what: "append" | "progress") => void) => {
            this.watchers.add(listener);
            return () => void this.watchers.delete(listener);
          },
        };
        return journalStream(feed, { from: fromSeq, status: s.status, keepAliveMs }) as unknown as ReadableStream<Uint8Array>;
      });
    }
    hostStreams() {
      return wire(() => ({ open: this.watchers.size, ...this.streamStats }));
    }

    // ---- moves and mirrors (isoagent/move: see move.ts) --------------------------------

    private keysReady: Promise<PlaceKeys> | undefined;
    private mover(): MoveHost {
      const hc = (runId: RunId, task: JsonValue): HostContext<Env> => ({ env: this.env, runId, task, storage: this.ctx.storage, state: this.ctx });
      return {
        place: this.env.ISOAGENT_PLACE ?? DEFAULT_PLACE,
        store: () => this.localStore(false),
        task: () => this.sql.task(),
        tools: async (runId, task) => toolShapes(await config.tools(hc(runId, task))),
        workspace: (runId, task) => config.workspace?.(hc(runId, task)),
        // Imported once per incarnation (a bad key is refused at the first move, BUNDLE_KEY_INVALID, and again at the next).
        keys: () => (this.keysReady ??= Promise.resolve(config.keys?.(this.env) ?? placeKeys({ signingKey: this.env.ISOAGENT_SIGNING_KEY, trustedKeys: this.env.ISOAGENT_TRUSTED_KEYS })).catch((e: unknown) => {
          this.keysReady = undefined;
          throw e;
        })),
        drive: () => void this.drive().catch(() => this.arm(Date.now() + RETRY_MS)),
        fault: (point) => this.fault(point),
      };
    }
    moveExport(runId: RunId, fromSeq: number) {
      return wire(() => moveExport(this.mover(), runId, fromSeq));
    }
    moveImport(body: ReadableStream<Uint8Array>, options: { role: "mirror" | "in_transit"; runId?: string; maxBytes: number }) {
      return wire(() => moveImport(this.mover(), body, options));
    }
    moveRelease(runId: RunId, to: string) {
      return wire(() => moveRelease(this.mover(), runId, to));
    }

    // ---- the alarm and the index -------------------------------------------------------

    /** Makes sure the alarm fires by `at` (see alarm.ts). */
    private arm(at: number): Promise<void> {
      return this.alarmClock.arm(at);
    }

    /**
     * Reports this run to the index. A status change is reported before the
     * caller is answered; other progress is left to the alarm (so a step
     * costs no extra round trip), which also heals the index after a reset
     * between a write and its report.
     */
    private async report(now: boolean, custodyChanged = false): Promise<void> {
      const s = this.sql.summary();
      if (s === undefined || (s.indexedSeq >= s.seq && !custodyChanged)) return;
      if (!now) return this.arm(Date.now() + 1000);
      const { indexedSeq: _i, ...head } = s;
      await this.env.RUN_INDEX.getByName("index").report({ ...head, title: taskTitle(this.sql.task()) });
      this.sql.markIndexed(s.seq);
    }

    /** The fault injection of the tests, at one of the host's await points. */
    private async fault(point: HostFaultPoint): Promise<void> {
      if (config.hostFaults !== undefined) await config.hostFaults(this.hostContext())?.at(point);
    }

    // ---- hosting: the object drives its own run --------------------------------------

    private hostContext(): HostContext<Env> {
      const summary = this.sql.summary();
      if (summary === undefined) throw new StoreError("RUN_NOT_FOUND", "this object holds no run");
      return { env: this.env, runId: summary.runId, task: this.sql.task() ?? null, storage: this.ctx.storage, state: this.ctx };
    }

    /** The host's driver, made once per incarnation (its tools may take a round trip: an MCP server's listing). */
    private hostDriver(): Promise<Driver> {
      if (this.driver !== undefined) return Promise.resolve(this.driver);
      let hc: HostContext<Env>;
      try {
        hc = this.hostContext();
      } catch (e) {
        return Promise.reject(e);
      }
      this.driverReady ??= this.makeDriver(hc).catch((e: unknown) => {
        this.driverReady = undefined;
        throw e;
      });
      return this.driverReady;
    }

    private async makeDriver(hc: HostContext<Env>): Promise<Driver> {
      const faults = config.faults?.(hc);
      const reconcile = config.reconcile?.(hc);
      const policy = config.policy?.(hc);
      const secrets = config.secrets?.(this.env);
      this.driver = createDriver({
        store: this.localStore(config.durability?.(hc) === "sync"),
        agent: config.agent(hc),
        tools: await config.tools(hc),
        owner: `host:${this.boot}`,
        leaseTtlMs: ttl,
        onProgress: () => this.tell("progress"),
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
          importHere: (runId, events, guard) => this.importHere(runId, events, guard, hosted),
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
            await this.fault("drive/finished");
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
      // A copy of a run owned elsewhere (isoagent/move) is not driven here.
      if (summary === undefined || TERMINAL_STATUSES.has(summary.status) || !this.sql.hosted() || summary.custody !== undefined) return null;
      // The alarm first: a drive cut short (a reset, a killed process) is
      // resumed by it, and the dead drive's lease is known dead then.
      await this.arm(Date.now() + ttl);
      let outcome: RunOutcome;
      try {
        outcome = await (await this.hostDriver()).resume(summary.runId);
        this.problem = undefined;
      } catch (e) {
        if (isIsoagentError(e) && !isIsoagentError(e, "CRASH")) this.problem = { code: e.code, message: e.message };
        throw e;
      }
      if (outcome.status === "running") {
        // Busy (a lease still held), the agent unreachable, a lost lease:
        // come back later. The alarm survives a reset of the object.
        const held = outcome.stopped === "busy" ? outcome.lease : undefined;
        // (The lease's expiry is by the store's clock; the alarm, the platform's.)
        await this.arm(held !== undefined && held !== null ? Date.now() + Math.max(0, held.expiresAt - storeClock()) + 50 : Date.now() + RETRY_MS);
      }
      return outcome;
    }

    private async hostRun(runId: RunId, task: JsonValue): Promise<RunId> {
      const id = await this.createHosted(runId, task);
      // (Its alarm was armed before the run was created: a drive that fails is tried again by it.)
      void this.drive().catch((e: unknown) => console.error(`isoagent: run ${runId} could not be driven: ${e instanceof Error ? e.message : String(e)}`));
      return id;
    }

    private async createHosted(runId: RunId, task: JsonValue): Promise<RunId> {
      if (this.sql.summary() !== undefined) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
      const hc: HostContext<Env> = { env: this.env, runId, task, storage: this.ctx.storage, state: this.ctx };
      const d = createDriver({ store: this.localStore(false), agent: config.agent(hc), tools: await config.tools(hc), owner: `host:${this.boot}`, ...(config.limits === undefined ? {} : { limits: config.limits }) });
      return d.create(task, { runId });
    }

    /**
     * An operator's answer or cancellation: the alarm is armed before the
     * append, so that whatever happens after it, the run is driven again
     * (and the index told) by the alarm if not by the drive started here.
     */
    private async operate(op: OperatorOp, append: () => Promise<unknown>): Promise<null> {
      await this.fault(`${op}/begin`);
      await this.arm(Date.now() + SOON_MS);
      await this.fault(`${op}/armed`);
      this.operating = op;
      try {
        await append();
      } catch (e) {
        // An approval asked under another policy: the drive decides the call again, under the current one.
        if (isIsoagentError(e, "APPROVAL_STALE")) void this.drive().catch(() => this.arm(Date.now() + RETRY_MS));
        throw e;
      } finally {
        this.operating = undefined;
      }
      await this.fault(`${op}/reported`);
      void this.drive().catch(async (e: unknown) => {
        console.error(`isoagent: run ${this.sql.summary()?.runId} could not be driven: ${e instanceof Error ? e.message : String(e)}`);
        await this.arm(Date.now() + RETRY_MS);
      });
      await this.fault(`${op}/driving`);
      return null;
    }

    host(runId: RunId, task: JsonValue) {
      return wire(() => this.hostRun(runId, task));
    }
    hostState(runId: RunId) {
      return wire(async () => (await this.hostDriver()).state(runId));
    }
    hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(() => this.operate("approve", async () => (await this.hostDriver()).approve(runId, approvalId, answer)));
    }
    hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return wire(() => this.operate("deny", async () => (await this.hostDriver()).deny(runId, approvalId, answer)));
    }
    hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement) {
      return wire(() => this.operate("settle", async () => (await this.hostDriver()).settle(runId, approvalId, answer)));
    }
    hostCancel(runId: RunId, options: { by: string; reason?: string }) {
      return wire(() => this.operate("cancel", async () => (await this.hostDriver()).cancel(runId, options)));
    }
    hostDrive() {
      return wire(() => this.drive());
    }
    hostProgress(runId: RunId) {
      return wire(() => this.driver?.progress(runId) ?? null);
    }
    hostProblem(_runId: RunId) {
      return wire(() => this.problem ?? null);
    }
    hostCheck(options: { heal: boolean; graceMs?: number }) {
      return wire(() => this.check(options.heal, options.graceMs ?? 0));
    }

    private async check(heal: boolean, graceMs: number): Promise<RunCheck | null> {
      const s = this.sql.summary();
      if (s === undefined) return null;
      const now = storeClock();
      const lease = this.sql.leaseView(s.runId);
      const alarmAt = await this.ctx.storage.getAlarm();
      const hosted = this.sql.hosted();
      const runnable = s.status === "running" && s.custody === undefined;
      const live = lease !== null && lease.expiresAt > now;
      // Runnable since its last event, leaseless since its lease's expiry: stranded since the later.
      const since = Math.max(lease?.expiresAt ?? Number.NEGATIVE_INFINITY, s.updatedAt);
      const alarmDue = alarmAt !== null && alarmAt >= Date.now() - graceMs;
      const stranded = runnable && !live && now - since > graceMs && !(hosted && alarmDue);
      const healed: ("reported" | "armed")[] = [];
      if (heal) {
        if (s.indexedSeq < s.seq) {
          await this.report(true);
          healed.push("reported");
        }
        // Re-armed even within the grace period: an alarm is cheap, and one
        // that fires while a drive is under way makes it go round once more.
        if (hosted && runnable && !live && (alarmAt === null || alarmAt < Date.now())) {
          this.alarmClock.forget();
          await this.arm(Date.now());
          healed.push("armed");
        }
      }
      return { runId: s.runId, status: s.status, seq: s.seq, updatedAt: s.updatedAt, lease, alarmAt, hosted, now, stranded, healed };
    }

    /** Heals the index, and resumes a run whose driver vanished. */
    override async alarm(): Promise<void> {
      this.alarmClock.forget(); // it fired: what is set now is read again
      // The spans go beside the report and the drive, not after them (a drive may take the whole run).
      const exported = this.spans.alarm().catch((e: unknown) => console.error(`isoagent: a run's spans could not be exported: ${e instanceof Error ? e.message : String(e)}`));
      let reported = true;
      try {
        await this.report(true);
      } catch (e) {
        reported = false;
        console.error(`isoagent: run object could not report to the index: ${e instanceof Error ? e.message : String(e)}`);
      }
      const s = this.sql.summary();
      if (s !== undefined && s.status === "running" && this.sql.hosted() && s.custody === undefined) {
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
      await exported;
    }
  };
}
