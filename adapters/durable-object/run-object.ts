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
import type { ApprovalAnswer, ApprovalId, Driver, JournalEvent, JsonValue, RunId, RunStatus, Settlement, Store, UserMessage } from "../../src/index.js";
import type { RunCreated } from "../../src/journal/index.js";
import type { AppendGuard, ImportGuard, Lease, Snapshot } from "../../src/store/index.js";
import { Alarm } from "./alarm.js";
import type { OperatorOp, RunObjectApi } from "./api.js";
import type { RunBindings } from "./bindings.js";
import { checkRun, type CheckedObject } from "./check.js";
import { RETRY_MS, runHost, type HostedObject, type RunHost } from "./host.js";
import { localStore } from "./local-store.js";
import { moveExport, moveImport, moveRelease } from "./move.js";
import { RunExport } from "./otel.js";
import { RunSql } from "./sql.js";
import { runStreams, type RunStreams } from "./streams.js";
import { runWrites, type RunWrites, type WritingObject } from "./writes.js";
import { message, wire } from "./wire.js";

import type { RunObjectConfig } from "./config.js";

export { artifactShard, runObject, type HostFaultPoint, type OperatorOp, type OperatorPoint, type RunCheck, type RunNamespace, type RunObjectApi } from "./api.js";
export type { RunBindings } from "./bindings.js";
export type { HostContext, RunObjectConfig } from "./config.js";

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
    private readonly alarmClock: Alarm;
    /** The export of the run's spans, when the config asks for it (otel.ts). */
    private readonly spans: RunExport;
    /** What the object gives its writes, its host and its check. */
    private readonly parts: WritingObject & HostedObject<Env> & CheckedObject;
    /** Every write to the run, which the index, the streams and the span export hear of (writes.ts). */
    private readonly writes: RunWrites;
    /** The object driving its own run (host.ts). */
    private readonly hosting: RunHost<Env>;
    /** The live event streams the object holds (streams.ts). */
    private readonly streams: RunStreams;

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      const sql = (this.sql = new RunSql(ctx.storage, storeClock));
      this.alarmClock = new Alarm(ctx.storage);
      this.parts = {
        env,
        state: ctx,
        sql,
        boot: this.boot,
        ttl,
        clock: storeClock,
        alarm: this.alarmClock,
        store: (sync) => this.localStore(sync),
        onProgress: () => this.streams.tell("progress"),
        afterAppend: (guard) => {
          this.streams.tell("append");
          this.spans.afterAppend();
          return this.hosting.afterAppend(guard);
        },
        report: () => this.writes.report(true),
      };
      this.writes = runWrites(this.parts);
      this.hosting = runHost(config, this.parts);
      this.streams = runStreams(sql, (runId) => this.hosting.progress(runId));
      this.spans = new RunExport({
        options: () => config.otel?.(this.hosting.context()),
        run: () => sql.summary(),
        read: (runId) => sql.read(runId),
        storage: ctx.storage,
        arm: (at) => this.arm(at),
      });
    }

    // ---- the store, over RPC (its writes: writes.ts) ------------------------------------

    storeCreateRun(first: RunCreated) {
      return wire(async () => {
        await this.writes.create(first, false);
        return null;
      });
    }
    storeAppend(runId: RunId, events: readonly JournalEvent[], guard: AppendGuard, status: RunStatus) {
      return wire(() => this.writes.append(runId, events, guard, status));
    }
    storeImportEvents(runId: RunId, events: readonly JournalEvent[], guard: ImportGuard) {
      return wire(() => this.writes.importEvents(runId, events, guard, false));
    }
    storeCustody(runId: RunId) {
      return wire(() => this.sql.custody(runId) ?? null);
    }
    storeAbandonTransit(runId: RunId) {
      return wire(async () => {
        const abandoned = this.sql.abandonTransit(runId);
        if (abandoned) await this.writes.report(true, true);
        return abandoned;
      });
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

    // ---- live event streams (streams.ts) -----------------------------------------------

    hostStream(runId: RunId, fromSeq: number, keepAliveMs: number) {
      return wire(() => this.streams.open(runId, fromSeq, keepAliveMs));
    }
    hostStreams() {
      return wire(() => this.streams.counts());
    }

    // ---- moves and mirrors (isoagent/move: see move.ts) --------------------------------

    moveExport(runId: RunId, fromSeq: number) {
      return wire(() => moveExport(this.hosting.mover(), runId, fromSeq));
    }
    moveImport(body: ReadableStream<Uint8Array>, options: { role: "mirror" | "in_transit"; runId?: string; maxBytes: number }) {
      return wire(() => moveImport(this.hosting.mover(), body, options));
    }
    moveRelease(runId: RunId, to: string) {
      return wire(() => moveRelease(this.hosting.mover(), runId, to));
    }

    // ---- the alarm and the index -------------------------------------------------------

    /** Makes sure the alarm fires by `at` (see alarm.ts). */
    private arm(at: number): Promise<void> {
      return this.alarmClock.arm(at);
    }

    /** Heals the index, and resumes a run whose driver vanished. */
    override async alarm(): Promise<void> {
      this.alarmClock.forget(); // it fired: what is set now is read again
      // The spans go beside the report and the drive, not after them (a drive may take the whole run).
      const exported = this.spans.alarm().catch((e: unknown) => console.error(`isoagent: a run's spans could not be exported: ${message(e)}`));
      let reported = true;
      try {
        await this.writes.report(true);
      } catch (e) {
        reported = false;
        console.error(`isoagent: run object could not report to the index: ${message(e)}`);
      }
      const s = this.sql.summary();
      // (A drive that throws is tried again later, never left without an alarm.)
      if (s !== undefined && s.status === "running" && this.sql.hosted() && s.custody === undefined) await this.hosting.driveOrRetry();
      if (!reported) await this.arm(Date.now() + RETRY_MS);
      await exported;
    }

    hostCheck(options: { heal: boolean; graceMs?: number }) {
      return wire(() => checkRun(this.parts, options.heal, options.graceMs ?? 0));
    }

    // ---- hosting: the object drives its own run (host.ts) ------------------------------

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
          createHere: (first) => this.writes.create(first, hosted),
          appendHere: this.writes.append,
          importHere: (runId, events, guard) => this.writes.importEvents(runId, events, guard, hosted),
          sync: () => this.ctx.storage.sync(),
        },
        sync,
      );
    }

    host(runId: RunId, task: JsonValue, options: { conversation?: boolean; outputSchema?: JsonValue } = {}) {
      return wire(() => this.hosting.create(runId, task, options));
    }
    hostState(runId: RunId) {
      return wire(async () => (await this.hosting.driver()).state(runId));
    }
    /** An operator's (or a conversation's user's) operation through the host, answered with nothing but its success. */
    #operate(op: OperatorOp, append: (d: Driver) => Promise<unknown>) {
      return wire(async () => {
        await this.hosting.operate(op, append);
        return null;
      });
    }
    hostApprove(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return this.#operate("approve", (d) => d.approve(runId, approvalId, answer));
    }
    hostDeny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer) {
      return this.#operate("deny", (d) => d.deny(runId, approvalId, answer));
    }
    hostSettle(runId: RunId, approvalId: ApprovalId, answer: Settlement) {
      return this.#operate("settle", (d) => d.settle(runId, approvalId, answer));
    }
    hostCancel(runId: RunId, options: { by: string; reason?: string }) {
      return this.#operate("cancel", (d) => d.cancel(runId, options));
    }
    hostSend(runId: RunId, message: UserMessage, options: { by: string }) {
      return wire(async () => {
        const { seq, duplicate } = await this.hosting.operate("send", (d) => d.send(runId, message, options));
        return { seq, duplicate };
      });
    }
    hostStopTurn(runId: RunId, options: { by: string }) {
      return wire(async () => ({ status: (await this.hosting.operate("stop", (d) => d.stopTurn(runId, options))).status }));
    }
    hostRegenerate(runId: RunId, options: { by: string }) {
      return this.#operate("regenerate", (d) => d.regenerate(runId, options));
    }
    hostClose(runId: RunId, options: { by: string; reason?: string }) {
      return this.#operate("close", (d) => d.close(runId, options));
    }
    hostDrive() {
      return wire(() => this.hosting.drive());
    }
    hostProgress(runId: RunId) {
      return wire(() => this.hosting.progress(runId) ?? null);
    }
    hostProblem(_runId: RunId) {
      return wire(() => this.hosting.problem() ?? null);
    }
  };
}
