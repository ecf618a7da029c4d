/**
 * A run object hosting its run: the driver it drives the run with (made
 * once per incarnation), the drive that goes round once more when asked for
 * while it finishes, the operators' answers, why the last drive failed, and
 * what the moves that hand a run here need of the host. The object
 * (run-object.ts) gives it its store, its alarm and its streams.
 *
 * Most of what keeps a hosted run from stranding (runObjectClass says the
 * rule) is here: a drive and an operator's answer arm the alarm before they
 * write.
 */
import { placeKeys, toolShapes, type PlaceKeys } from "../../src/move/index.js";
import { createDriver, isIsoagentError, type Driver, type JsonValue, type RunId, type RunOutcome, type StepProgress, type Store } from "../../src/index.js";
import { TERMINAL_STATUSES } from "../../src/journal/index.js";
import { StoreError, type AppendGuard } from "../../src/store/index.js";
import type { Alarm } from "./alarm.js";
import type { HostFaultPoint, OperatorOp } from "./api.js";
import type { RunBindings } from "./bindings.js";
import type { HostContext, RunObjectConfig } from "./config.js";
import { DEFAULT_PLACE, type MoveHost } from "./move.js";
import type { RunSql } from "./sql.js";
import { message } from "./wire.js";

/** How soon a run that is running but not driven (busy, the agent unreachable, an error) is tried again. */
export const RETRY_MS = 5_000;
/** How soon the alarm armed before an operator's answer fires, when no drive takes the run first. */
export const SOON_MS = 1_000;

/** What the host needs of its object. */
export interface HostedObject<Env> {
  readonly env: Env;
  readonly state: DurableObjectState;
  readonly sql: RunSql;
  /** This incarnation of the object: `host:<boot>` is its host's lease owner. */
  readonly boot: string;
  /** The lease's time to live. */
  readonly ttl: number;
  /** The store's clock, which judges leases (alarms are set by the platform's). */
  readonly clock: () => number;
  /** The object's alarm (alarm.ts). */
  readonly alarm: Alarm;
  /** The run's store for its own host (local-store.ts); with `sync`, each side effect waits for `storage.sync()`. */
  store(sync: boolean): Store;
  /** The driver's progress in a step changed: the streams are told. */
  onProgress(): void;
}

/** The hosting of one incarnation of a run object. */
export interface RunHost<Env> {
  /** What the run's agent has streamed so far in the step it decides (undefined before the driver is made). */
  progress(runId: RunId): StepProgress | undefined;
  /**
   * Why the last drive failed (TOOL_SHAPE_CHANGED: the deployment's tools
   * are not the run's), shown to the operator; cleared by a drive that
   * works. Kept in memory: after an eviction the alarm's next try finds
   * it again.
   */
  problem(): { code: string; message: string } | undefined;
  /** What the hosted run is given, for the run the object holds (RUN_NOT_FOUND when it holds none). */
  context(): HostContext<Env>;
  /** After an append: an operator's (unleased) meets its fault point, which the append waits for. */
  afterAppend(guard: AppendGuard): Promise<void> | undefined;
  /** The host's driver, made once per incarnation (its tools may take a round trip: an MCP server's listing). */
  driver(): Promise<Driver>;
  /**
   * Drives the run until it ends, waits or must stop; the alarm is set to
   * come back when it must. A call while a drive is under way makes that
   * drive go round once more, and answers when it is done.
   */
  drive(): Promise<RunOutcome | null>;
  /**
   * Drives the run; a drive that throws (a tool set whose shapes changed, a
   * store failure) is logged and tried again later, never left without an
   * alarm.
   */
  driveOrRetry(): Promise<void>;
  /** Creates the run here, hosted, and starts driving it. */
  create(runId: RunId, task: JsonValue, options: { conversation?: boolean; outputSchema?: JsonValue }): Promise<RunId>;
  /**
   * An operator's answer or cancellation: the alarm is armed before the
   * append, so that whatever happens after it, the run is driven again
   * (and the index told) by the alarm if not by the drive started here.
   */
  operate<T>(op: OperatorOp, append: (driver: Driver) => Promise<T>): Promise<T>;
  /** What the moves (move.ts) need of this host. */
  mover(): MoveHost;
}

/** The hosting of one incarnation of the object `object`, by `config`. */
export function runHost<Env extends RunBindings>(config: RunObjectConfig<Env>, object: HostedObject<Env>): RunHost<Env> {
  const { env, state, sql, boot, ttl, clock, alarm } = object;
  /** The driver, once made (see driver()), and its making under way. */
  let made: Driver | undefined;
  let driverReady: Promise<Driver> | undefined;
  /** Why the last drive failed (see problem()). */
  let problem: { code: string; message: string } | undefined;
  let driving: Promise<RunOutcome | null> | undefined;
  /** A drive was asked for while one was under way: it goes round again. */
  let again = false;
  /** The operator's operation under way, for fault injection at its append. */
  let operating: OperatorOp | undefined;
  /** This place's keys, imported once per incarnation (see mover()). */
  let keysReady: Promise<PlaceKeys> | undefined;

  /** What a hosted run is given, for the run `runId` with `task`. */
  const contextOf = (runId: RunId, task: JsonValue): HostContext<Env> => ({ env, runId, task, storage: state.storage, state });

  const context = (): HostContext<Env> => {
    const summary = sql.summary();
    if (summary === undefined) throw new StoreError("RUN_NOT_FOUND", "this object holds no run");
    return contextOf(summary.runId, sql.task() ?? null);
  };

  /** The fault injection of the tests, at one of the host's await points. */
  const fault = async (point: HostFaultPoint): Promise<void> => {
    if (config.hostFaults !== undefined) await config.hostFaults(context())?.at(point);
  };

  const makeDriver = async (hc: HostContext<Env>): Promise<Driver> => {
    const faults = config.faults?.(hc);
    const reconcile = config.reconcile?.(hc);
    const policy = config.policy?.(hc);
    const secrets = config.secrets?.(env);
    made = createDriver({
      store: object.store(config.durability?.(hc) === "sync"),
      agent: config.agent(hc),
      tools: await config.tools(hc),
      owner: `host:${boot}`,
      leaseTtlMs: ttl,
      onProgress: () => object.onProgress(),
      ...(config.limits === undefined ? {} : { limits: config.limits }),
      ...(faults === undefined ? {} : { faults }),
      ...(reconcile === undefined ? {} : { reconcile }),
      ...(policy === undefined ? {} : { policy }),
      ...(secrets === undefined ? {} : { secrets }),
    });
    return made;
  };

  const driver = (): Promise<Driver> => {
    if (made !== undefined) return Promise.resolve(made);
    let hc: HostContext<Env>;
    try {
      hc = context();
    } catch (e) {
      return Promise.reject(e);
    }
    driverReady ??= makeDriver(hc).catch((e: unknown) => {
      driverReady = undefined;
      throw e;
    });
    return driverReady;
  };

  const driveOnce = async (): Promise<RunOutcome | null> => {
    const summary = sql.summary();
    // A copy of a run owned elsewhere (isoagent/move) is not driven here.
    if (summary === undefined || TERMINAL_STATUSES.has(summary.status) || !sql.hosted() || summary.custody !== undefined) return null;
    // The alarm first: a drive cut short (a reset, a killed process) is
    // resumed by it, and the dead drive's lease is known dead then.
    await alarm.arm(Date.now() + ttl);
    let outcome: RunOutcome;
    try {
      outcome = await (await driver()).resume(summary.runId);
      problem = undefined;
    } catch (e) {
      if (isIsoagentError(e) && !isIsoagentError(e, "CRASH")) problem = { code: e.code, message: e.message };
      throw e;
    }
    if (outcome.status === "running") {
      // Busy (a lease still held), the agent unreachable, a lost lease:
      // come back later. The alarm survives a reset of the object.
      const held = outcome.stopped === "busy" ? outcome.lease : undefined;
      // (The lease's expiry is by the store's clock; the alarm, the platform's.)
      await alarm.arm(held !== undefined && held !== null ? Date.now() + Math.max(0, held.expiresAt - clock()) + 50 : Date.now() + RETRY_MS);
    }
    return outcome;
  };

  const drive = (): Promise<RunOutcome | null> => {
    if (driving !== undefined) {
      again = true;
      return driving;
    }
    const d = (async () => {
      try {
        let outcome: RunOutcome | null;
        do {
          again = false;
          outcome = await driveOnce();
          await fault("drive/finished");
        } while (again);
        return outcome;
      } finally {
        driving = undefined;
      }
    })();
    driving = d;
    return d;
  };

  /** Sets the alarm to try the run again later. */
  const retry = (): Promise<void> => alarm.arm(Date.now() + RETRY_MS);

  const driveOrRetry = async (): Promise<void> => {
    try {
      await drive();
    } catch (e) {
      console.error(`isoagent: run ${sql.summary()?.runId} could not be driven: ${message(e)}`);
      await retry();
    }
  };

  return {
    progress: (runId) => made?.progress(runId),
    problem: () => problem,
    context,
    afterAppend: (guard) => (guard.lease === undefined && operating !== undefined ? fault(`${operating}/appended`) : undefined),
    driver,
    drive,
    driveOrRetry,
    async create(runId, task, options) {
      if (sql.summary() !== undefined) throw new StoreError("RUN_EXISTS", `run ${runId} already exists`);
      const hc = contextOf(runId, task);
      const d = createDriver({
        store: object.store(false),
        agent: config.agent(hc),
        tools: await config.tools(hc),
        owner: `host:${boot}`,
        ...(config.limits === undefined ? {} : { limits: config.limits }),
      });
      const id = await d.create(task, {
        runId,
        ...(options.conversation === true ? { conversation: true } : {}),
        ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
      });
      // (Its alarm was armed before the run was created: a drive that fails is tried again by it.)
      void drive().catch((e: unknown) => console.error(`isoagent: run ${runId} could not be driven: ${message(e)}`));
      return id;
    },
    async operate(op, append) {
      await fault(`${op}/begin`);
      await alarm.arm(Date.now() + SOON_MS);
      await fault(`${op}/armed`);
      operating = op;
      let answer: Awaited<ReturnType<typeof append>>;
      try {
        answer = await append(await driver());
      } catch (e) {
        // An approval asked under another policy: the drive decides the call again, under the current one.
        if (isIsoagentError(e, "APPROVAL_STALE")) void drive().catch(retry);
        throw e;
      } finally {
        operating = undefined;
      }
      await fault(`${op}/reported`);
      void driveOrRetry();
      await fault(`${op}/driving`);
      return answer;
    },
    mover: () => ({
      place: env.ISOAGENT_PLACE ?? DEFAULT_PLACE,
      store: () => object.store(false),
      task: () => sql.task(),
      tools: async (runId, task) => toolShapes(await config.tools(contextOf(runId, task))),
      workspace: (runId, task) => config.workspace?.(contextOf(runId, task)),
      // Imported once per incarnation (a bad key is refused at the first move, BUNDLE_KEY_INVALID, and again at the next).
      keys: () =>
        (keysReady ??= Promise.resolve(config.keys?.(env) ?? placeKeys({ signingKey: env.ISOAGENT_SIGNING_KEY, trustedKeys: env.ISOAGENT_TRUSTED_KEYS })).catch((e: unknown) => {
          keysReady = undefined;
          throw e;
        })),
      drive: () => void drive().catch(retry),
      fault,
    }),
  };
}
