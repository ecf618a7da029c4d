import { systemClock } from "../clock.js";
import { randomIds, type ApprovalId, type RunId } from "../ids.js";
import { cloneJson, type JsonValue } from "../json/index.js";
import { JOURNAL_VERSION, journalNames, seal, type JournalEvent, type Limits, type RunCreated, type RunState } from "../journal/index.js";
import { allowAll } from "../policy/index.js";
import { memoryStore, type LeaseView, type RunFilter, type RunSummary } from "../store/index.js";
import { compileTools, type Tool } from "../tools/index.js";
import { randomUuid, type AbortSignalLike } from "../web.js";
import { shapeHash } from "../tools/shape.js";
import { shapeChecker, type DriverContext, type ToolEntry } from "./context.js";
import { loadState } from "../store/load.js";
import { approve, cancel, checkBy, deny, settle, type ApprovalAnswer, type Settlement } from "./operator.js";
import { close, regenerate, send, stopTurn, type Sent, type UserMessage } from "./turns.js";
import { outputSchemaOf, type OutputSchema } from "./output.js";
import { ProgressBoard, type StepProgress } from "./progress.js";
import { clean } from "../call/hygiene.js";
import { redactor } from "../call/redact.js";
import { outcomeOf } from "./outcome.js";
import { Session } from "./session.js";
import { RunStates } from "./states.js";
import type { ContextOptions } from "./compaction.js";
import { DEFAULT_LIMITS, DriverError, type DriverOptions, type RunOutcome } from "./types.js";

/** How {@link Driver.create} makes a run. */
export interface CreateOptions {
  /** The run's id (a fresh one by default). */
  readonly runId?: RunId;
  /** A conversation: it waits for its user's messages, turn after turn, until it is closed. */
  readonly conversation?: boolean;
  /**
   * The JSON Schema (a builder's, or a Standard Schema with Standard JSON
   * Schema) the final answer must match: a task's answer, or every turn's
   * of a conversation (a message may name its own). An answer that does
   * not is refused and the agent asked again (`output.rejected`), under
   * `maxConsecutiveFailures`; the model adapters use the provider's
   * structured-output mode. Refused with OUTPUT_SCHEMA_INVALID when the
   * compiler does not take it.
   */
  readonly outputSchema?: OutputSchema;
}

/** A driver: advances runs in its store, one lease at a time. */
export interface Driver {
  /**
   * Creates a run for `task` without driving it (any driver sharing the
   * store may then take it). With `conversation: true`, a conversation: it
   * waits (`idle`) for its user's messages ({@link Driver.send}), and
   * `task` is what the agent is told before the first (its instructions,
   * the context; `null` for none).
   */
  create(task: JsonValue, options?: CreateOptions): Promise<RunId>;
  /** Creates a run for `task` and drives it until it ends, waits for an operator, or must stop. */
  start(task: JsonValue, options?: { runId?: RunId; signal?: AbortSignalLike; outputSchema?: OutputSchema }): Promise<RunOutcome>;
  /**
   * Sends a user's message to a conversation: it opens the next turn,
   * which {@link Driver.resume} then drives to its answer. Only between
   * turns (TURN_IN_PROGRESS otherwise). A message whose id was taken is
   * not appended again: the same content is a resend (`duplicate`), other
   * content is refused (MESSAGE_ID_REUSED).
   *
   * @example
   * ```ts
   * const chat = await driver.create("You answer questions about notes/.", { conversation: true })
   * await driver.send(chat, { id: "m1", text: "What is in notes/todo.md?" })
   * const outcome = await driver.resume(chat) // status "idle": answered, waiting for the next message
   * ```
   */
  send(runId: RunId, message: UserMessage, options?: { by?: string }): Promise<Sent>;
  /**
   * Stops a conversation's turn in progress; the conversation stays open.
   * A model call this driver is waiting on is aborted, and what it had
   * streamed is kept with the stop (`partial`, not shown to the agent); a
   * tool in flight is interrupted (told by its side effect); a call not
   * started, or waiting for an approval, is closed without running. When
   * another driver runs the turn, it sees the stop at its next write (an
   * outcome it brings later is kept, as late). Resolves once the turn has
   * ended; a conversation between turns is left as it is.
   */
  stopTurn(runId: RunId, options: { by: string }): Promise<RunState>;
  /**
   * Runs a conversation's last turn again from its message: what the agent
   * said after it is superseded (the journal keeps it), and the turn is
   * driven anew by the next {@link Driver.resume}. Its calls go through the
   * gate again; effects of the first answer are not undone.
   */
  regenerate(runId: RunId, options?: { by?: string }): Promise<RunState>;
  /** Closes a conversation between turns: it ends `completed`, its output its last answer. */
  close(runId: RunId, options: { by: string; reason?: string }): Promise<RunState>;
  /** Drives an existing run (after a crash, a reload, an answer). `stopped: "busy"` when another driver holds it. */
  resume(runId: RunId, options?: { signal?: AbortSignalLike }): Promise<RunOutcome>;
  /** Drives every runnable run in the store; runs held by other drivers are skipped. */
  driveAll(options?: { signal?: AbortSignalLike; concurrency?: number }): Promise<RunOutcome[]>;
  /** Approves a pending request (quoting its hash). A call may then start; an interrupted side effect is run again. */
  approve(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState>;
  /** Denies a pending request: the agent is told the call was declined; an interrupted side effect is recorded as not done. */
  deny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<RunState>;
  /** Settles a pending request with an explicit resolution (run again, record a result, record a failure). */
  settle(runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<RunState>;
  /** Cancels a run: it ends CANCELLED; a call in flight is not recalled, its outcome is appended late. */
  cancel(runId: RunId, options: { by: string; reason?: string }): Promise<RunState>;
  /**
   * The run's state, from its journal: the latest snapshot and the events
   * after it, the whole transcript included (rebuilt from the journal when
   * the snapshot left it out, as snapshots of a driver without a context
   * budget do).
   */
  state(runId: RunId): Promise<RunState>;
  /** Runs in the store, most recently updated first, each with its lease. */
  listRuns(filter?: RunFilter): Promise<RunSummary[]>;
  /** Who holds the run's lease and until when, by the store's clock (in the past once expired); null when none is held. */
  lease(runId: RunId): Promise<LeaseView | null>;
  /** The run's events from `fromSeq`. */
  events(runId: RunId, fromSeq?: number): Promise<JournalEvent[]>;
  /** What a streaming agent has said so far in the step this driver is deciding for the run (not journaled). */
  progress(runId: RunId): StepProgress | undefined;
  /**
   * An artifact's bytes, only when the run's journal names it (an output it
   * kept, a compaction that elided one): the store's artifacts are shared
   * by its runs, so one run's reader never gets another's. Null otherwise.
   */
  artifact(runId: RunId, sha256: string): Promise<Uint8Array | null>;
  /**
   * Hears a run change through this driver: `"append"` once the store took
   * events this driver wrote (its steps, an operator's answer), `"progress"`
   * when what {@link Driver.progress} shows moved. A signal to read again,
   * not the events. Appends by another driver sharing the store are heard
   * too when the store tells them (`Store.watch`: `memoryStore` does), not
   * otherwise. Returns the function that stops listening.
   *
   * @example
   * ```ts
   * const stop = driver.watch(runId, (what) => { if (what === "append") void show(runId) })
   * ```
   */
  watch(runId: RunId, listener: (what: "append" | "progress") => void): () => void;
}

function positive(name: string, value: number | undefined, fallback: number, zero = ""): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new DriverError("DRIVER_INVALID", `${name} must be a finite number >= 0${zero}, not ${String(value)}`);
  return value;
}

function resolveLimits(limits: Partial<Limits> | undefined): Limits {
  return Object.freeze({
    maxSteps: positive("limits.maxSteps", limits?.maxSteps, DEFAULT_LIMITS.maxSteps, " (0: no limit)"),
    maxConsecutiveFailures: positive("limits.maxConsecutiveFailures", limits?.maxConsecutiveFailures, DEFAULT_LIMITS.maxConsecutiveFailures, " (0: no limit)"),
    runTimeoutMs: positive("limits.runTimeoutMs", limits?.runTimeoutMs, DEFAULT_LIMITS.runTimeoutMs, " (0: no limit)"),
  });
}

function checkContext(c: ContextOptions | undefined): ContextOptions | undefined {
  if (c === undefined) return undefined;
  if (typeof c !== "object" || c === null || typeof c.budgetTokens !== "number" || !Number.isSafeInteger(c.budgetTokens) || c.budgetTokens < 256) {
    throw new DriverError("DRIVER_INVALID", "context.budgetTokens must be a whole number of tokens, at least 256");
  }
  const k = c.strategy?.kind;
  if (k !== undefined && k !== "trim" && k !== "summarize") throw new DriverError("DRIVER_INVALID", "context.strategy must be trimContext() or summarizeContext()");
  return c;
}

/**
 * Creates a driver. Every tool is checked as `compileTool` (isoagent/tools) checks it
 * (the same errors), a name used twice is refused, and a tool whose
 * permission is deny is never offered to the agent.
 *
 * @example
 * ```ts
 * const driver = createDriver({ store: memoryStore(), agent, tools: [readFile, writeFile] })
 * const outcome = await driver.start({ goal: "tidy notes/" })
 * if (outcome.status === "waiting") {
 *   const [request] = outcome.approvals
 *   await driver.approve(outcome.runId, request.approvalId, { requestHash: request.requestHash, by: "ana" })
 *   await driver.resume(outcome.runId)
 * }
 * ```
 */
export function createDriver(options: DriverOptions): Driver {
  if (typeof options !== "object" || options === null || typeof options.agent?.decide !== "function") {
    throw new DriverError("DRIVER_INVALID", "createDriver needs an agent with a decide function");
  }
  if (!Array.isArray(options.tools)) throw new DriverError("DRIVER_INVALID", "createDriver needs a list of tools");
  for (const t of options.tools) {
    if (typeof (t as { call?: unknown })?.call !== "function") throw new DriverError("DRIVER_INVALID", `tool ${JSON.stringify((t as { name?: unknown })?.name)} has no call function`);
  }
  const compiled = compileTools(options.tools);
  const tools = new Map<string, ToolEntry>(compiled.map((c, k) => [c.name, { compiled: c, tool: options.tools[k]! }]));
  const offered = compiled.filter((c) => c.permission !== "deny");
  const shapes = offered.map((c) => ({ name: c.name, specHash: shapeHash(c) }));
  const ids = options.ids ?? randomIds();
  const clock = options.clock ?? systemClock;
  const limits = resolveLimits(options.limits);
  const policyVersion = options.policyVersion;
  if (policyVersion !== undefined && (typeof policyVersion !== "string" || policyVersion === "" || policyVersion.length > 256)) {
    throw new DriverError("DRIVER_INVALID", "policyVersion must be a non-empty string of at most 256 characters");
  }
  const context = checkContext(options.context);
  const watchers = new Map<RunId, Set<(what: "append" | "progress") => void>>();
  // Appends are heard from the store when it can tell them (every driver sharing it), else from this driver.
  const notify = (runId: RunId, what: "append" | "progress", created = false): void => {
    if (what === "append" && !created && ctx.store.watch !== undefined) return;
    for (const w of watchers.get(runId) ?? []) {
      try {
        w(what);
      } catch {
        // A watcher's failure is its own.
      }
    }
  };
  // The description is model-facing text: cleaned (the shape hash keeps the tool's own, so cleaning never reads as a change).
  const exposed = offered.map((c) => ({ name: c.name, description: clean(c.description), inputSchema: c.inputSchema, ...(c.prompt === undefined ? {} : { prompt: c.prompt }) }));
  const ctx: DriverContext = {
    store: options.store ?? memoryStore({ clock }),
    agent: options.agent,
    policy: options.policy ?? allowAll,
    policyVersion,
    clock,
    limits,
    reconcile: options.reconcile,
    recovery: {
      maxInterruptions: positive("recovery.maxInterruptions", options.recovery?.maxInterruptions, 2, " (0: no limit)"),
      maxResumesWithoutProgress: positive("recovery.maxResumesWithoutProgress", options.recovery?.maxResumesWithoutProgress, 3, " (0: no limit)"),
    },
    redact: redactor(options.secrets ?? []),
    owner: options.owner ?? `driver_${randomUuid()}`,
    leaseTtlMs: positive("leaseTtlMs", options.leaseTtlMs, 30_000) || 30_000,
    snapshotEvery: positive("snapshotEvery", options.snapshotEvery, 128) || 128,
    context,
    toolsTokens: Math.ceil(JSON.stringify(exposed).length / 4),
    faults: options.faults,
    progress: new ProgressBoard((runId, step, p) => {
      notify(runId, "progress");
      options.onProgress?.(runId, step, p);
    }),
    notify,
    tools,
    exposed,
    exposedNames: offered.map((c) => c.name),
    shapes,
    checkShapes: shapeChecker(shapes),
    states: new RunStates(),
  };

  const idle = async (runId: RunId, stopped: RunOutcome["stopped"]): Promise<RunOutcome> => {
    const outcome = outcomeOf(await loadState(ctx.store, runId), stopped);
    // A busy run says who holds it, and until when.
    const lease = stopped === "busy" ? await ctx.store.lease(runId) : undefined;
    return lease === undefined ? outcome : { ...outcome, lease };
  };

  // The sessions this driver runs, by run: a stop of a conversation's turn is handed to the one that runs it.
  const live = new Map<RunId, { session: Session; done: Promise<unknown> }>();
  const resume = async (runId: RunId, opts: { signal?: AbortSignalLike } = {}): Promise<RunOutcome> => {
    const session = await Session.open(ctx, runId, opts.signal);
    if (session === null) return idle(runId, "busy");
    const done = session.drive();
    live.set(runId, { session, done });
    try {
      return await done;
    } finally {
      if (live.get(runId)?.session === session) live.delete(runId);
    }
  };

  const create = async (task: JsonValue, opts: CreateOptions = {}): Promise<RunId> => {
    let value: JsonValue;
    try {
      value = cloneJson(task);
    } catch (e) {
      throw new DriverError("DRIVER_INVALID", `the task must be JSON: ${e instanceof Error ? e.message : "unknown"}`);
    }
    const runId = opts.runId ?? ids.runId();
    const conversation = opts.conversation === true ? { conversation: true as const } : {};
    const output = opts.outputSchema === undefined ? {} : { outputSchema: outputSchemaOf(opts.outputSchema) };
    const first = seal({ v: JOURNAL_VERSION, at: clock.now(), type: "run.created", runId, task: value, tools: shapes, limits, ...conversation, ...output }, 1, "") as RunCreated;
    await ctx.store.createRun(first);
    notify(runId, "append", true);
    return runId;
  };

  return {
    create,
    async start(task, opts = {}) {
      const runId = await create(task, { ...(opts.runId === undefined ? {} : { runId: opts.runId }), ...(opts.outputSchema === undefined ? {} : { outputSchema: opts.outputSchema }) });
      return resume(runId, opts.signal === undefined ? {} : { signal: opts.signal });
    },
    resume,
    async driveAll(opts = {}) {
      // A copy of a run owned elsewhere (a mirror, a run in transit, one that moved away) is not this store's to drive.
      const runs = (await ctx.store.listRuns({ status: ["running"] })).filter((r) => r.custody === undefined);
      const queue = runs.map((r) => r.runId);
      const out: RunOutcome[] = [];
      const workers = Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, queue.length)) }, async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          if (opts.signal?.aborted === true) return;
          out.push(await resume(id, opts.signal === undefined ? {} : { signal: opts.signal }));
        }
      });
      await Promise.all(workers);
      return out;
    },
    approve: (runId, approvalId, answer) => approve(ctx, runId, approvalId, answer),
    deny: (runId, approvalId, answer) => deny(ctx, runId, approvalId, answer),
    settle: (runId, approvalId, answer) => settle(ctx, runId, approvalId, answer),
    cancel: (runId, opts) => cancel(ctx, runId, opts),
    send: async (runId, message, opts = {}) => send(ctx, runId, message, opts.by),
    async stopTurn(runId, opts) {
      const by = checkBy(opts?.by);
      const running = live.get(runId);
      if (running !== undefined) {
        running.session.requestStop(by);
        await running.done.catch(() => {});
      }
      // Whatever is left of the turn (no session here ran it, or it stopped before it could end it) is ended without the lease.
      return stopTurn(ctx, runId, by);
    },
    regenerate: async (runId, opts = {}) => regenerate(ctx, runId, opts.by === undefined ? undefined : checkBy(opts.by)),
    close: async (runId, opts) => close(ctx, runId, checkBy(opts?.by), opts.reason),
    // Whole, the transcript included (a snapshot may have left it out).
    state: (runId) => loadState(ctx.store, runId, { transcript: true }),
    listRuns: (filter) => ctx.store.listRuns(filter),
    lease: (runId) => ctx.store.lease(runId),
    events: (runId, fromSeq) => ctx.store.read(runId, fromSeq),
    progress: (runId) => ctx.progress.get(runId),
    artifact: async (runId, sha256) => (journalNames(await ctx.store.read(runId), sha256) ? ctx.store.getArtifact(sha256) : null),
    watch(runId, listener) {
      const set = watchers.get(runId) ?? new Set();
      watchers.set(runId, set.add(listener));
      const unheard = ctx.store.watch?.(runId, () => listener("append"));
      return () => {
        unheard?.();
        // (The set is dropped with its last listener, so a run watched once costs nothing after.)
        if (set.delete(listener) && set.size === 0) watchers.delete(runId);
      };
    },
  };
}

export type { Tool };
