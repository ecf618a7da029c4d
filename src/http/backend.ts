/**
 * What the HTTP app needs of wherever runs live: in this process (a driver
 * and its store), or in Durable Objects (one per run, each driving its own).
 */
import { answerThenDrive, type Driver, type StepProgress } from "../driver/index.js";
import type { ApprovalAnswer, Sent, Settlement, UserMessage } from "../driver/index.js";
import { isIsoagentError } from "../errors.js";
import type { ApprovalId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { JournalEvent, RunState } from "../journal/index.js";
import type { LeaseView, RunFilter, RunSummary } from "../store/index.js";
import { journalStream, type EventStreamBody } from "./stream.js";
import type { MoveBackend } from "./move-routes.js";

/** Why a run cannot be driven on (its tools changed shape, ...), for the operator. */
export interface RunProblem {
  readonly code: string;
  readonly message: string;
}

/** What the HTTP app asks of where runs live and are driven (one process, or Durable Objects): create, list, read and stream runs, answer their approvals, and cancel them. */
export interface RunsBackend {
  /**
   * Creates a run and starts driving it. With `runId` (a run an idempotency
   * key names), the run gets that id, and an id already taken is refused
   * with RUN_EXISTS, atomically: of two creates of one id, exactly one
   * creates it.
   */
  create(task: JsonValue, options?: { readonly runId?: RunId; readonly conversation?: boolean; readonly outputSchema?: JsonValue }): Promise<RunId>;
  list(filter: RunFilter): Promise<RunSummary[]>;
  /** The run's state; RUN_NOT_FOUND (404) for an unknown run, without creating anything for it. */
  state(runId: RunId): Promise<RunState>;
  /** Who holds the run's lease and until when (by the store's clock), or null. */
  lease(runId: RunId): Promise<LeaseView | null>;
  events(runId: RunId, fromSeq: number): Promise<JournalEvent[]>;
  /**
   * The run's journal from `fromSeq` on as a live SSE body, pushed as it is
   * appended (`journalStream` builds one from a read and a watch), with a
   * ping every `keepAliveMs` while nothing changes; it ends with the run.
   * RUN_NOT_FOUND (404) for an unknown run, before anything is streamed.
   */
  stream(runId: RunId, fromSeq: number, options: { keepAliveMs: number }): Promise<EventStreamBody>;
  /** An artifact's bytes, only when the run's journal names it (artifacts are shared between runs); null otherwise. */
  artifact(runId: RunId, sha256: string): Promise<Uint8Array | null>;
  /** Answers an approval; the run is then driven on. */
  approve(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<void>;
  deny(runId: RunId, approvalId: ApprovalId, answer: ApprovalAnswer): Promise<void>;
  /** Settles an interrupted side effect (only those). */
  settle(runId: RunId, approvalId: ApprovalId, answer: Settlement): Promise<void>;
  cancel(runId: RunId, options: { by: string; reason?: string | undefined }): Promise<void>;
  /** A user's message to a conversation (Driver.send); a new one opens a turn, which is then driven. */
  send(runId: RunId, message: UserMessage, options: { by: string }): Promise<Pick<Sent, "seq" | "duplicate">>;
  /** Stops a conversation's turn in progress (Driver.stopTurn): the status after it. */
  stopTurn(runId: RunId, options: { by: string }): Promise<Pick<RunState, "status">>;
  /** Runs a conversation's last turn again (Driver.regenerate), then drives it. */
  regenerate(runId: RunId, options: { by: string }): Promise<void>;
  /** Closes a conversation between turns (Driver.close). */
  close(runId: RunId, options: { by: string; reason?: string }): Promise<void>;
  /** What a streaming agent has said so far in the step being decided (not journaled), when the backend can tell. */
  progress?(runId: RunId): Promise<StepProgress | undefined>;
  /** Why the run could not be driven the last time it was tried, when it could not (its tools changed shape, ...). */
  problem?(runId: RunId): Promise<RunProblem | undefined>;
  /** Moves and mirrors of runs (isoagent/move): with it, the app serves export, import, move and mirror. */
  readonly move?: MoveBackend;
}

/**
 * A backend on a driver in this process (Node, a test, a single Worker with
 * the memory store): runs are driven in the background after each change.
 */
export function driverBackend(driver: Driver, options: { onError?: (e: unknown) => void; move?: (drive: (runId: RunId) => void) => MoveBackend } = {}): RunsBackend {
  const problems = new Map<RunId, RunProblem>();
  const drive = (runId: RunId): void => {
    void driver.resume(runId).then(
      () => problems.delete(runId),
      (e: unknown) => {
        if (isIsoagentError(e) && !isIsoagentError(e, "CRASH")) problems.set(runId, { code: e.code, message: e.message });
        options.onError?.(e);
      },
    );
  };
  return {
    async create(task, opts) {
      const runId = await driver.create(task, {
        ...(opts?.runId === undefined ? {} : { runId: opts.runId }),
        ...(opts?.conversation === true ? { conversation: true } : {}),
        ...(opts?.outputSchema === undefined ? {} : { outputSchema: opts.outputSchema }),
      });
      // A conversation waits for its first message: nothing to drive yet.
      if (opts?.conversation !== true) drive(runId);
      return runId;
    },
    list: (filter) => driver.listRuns(filter),
    state: (runId) => driver.state(runId),
    lease: (runId) => driver.lease(runId),
    events: (runId, fromSeq) => driver.events(runId, fromSeq),
    // Pushed: the driver says when it appended (or its progress moved); appends by another driver on the same store are not heard.
    async stream(runId, fromSeq, { keepAliveMs }) {
      const { status } = await driver.state(runId);
      return journalStream({ read: (from) => driver.events(runId, from), progress: () => driver.progress(runId), watch: (l) => driver.watch(runId, l) }, { from: fromSeq, status, keepAliveMs });
    },
    artifact: (runId, sha256) => driver.artifact(runId, sha256),
    approve: (runId, approvalId, answer) =>
      answerThenDrive(
        () => driver.approve(runId, approvalId, answer),
        () => drive(runId),
      ),
    deny: (runId, approvalId, answer) =>
      answerThenDrive(
        () => driver.deny(runId, approvalId, answer),
        () => drive(runId),
      ),
    settle: (runId, approvalId, answer) =>
      answerThenDrive(
        () => driver.settle(runId, approvalId, answer),
        () => drive(runId),
      ),
    async cancel(runId, opts) {
      await driver.cancel(runId, { by: opts.by, ...(opts.reason === undefined ? {} : { reason: opts.reason }) });
    },
    async send(runId, message, opts) {
      const sent = await driver.send(runId, message, opts);
      if (!sent.duplicate) drive(runId);
      return sent;
    },
    stopTurn: (runId, opts) => driver.stopTurn(runId, opts),
    async regenerate(runId, opts) {
      await driver.regenerate(runId, opts);
      drive(runId);
    },
    async close(runId, opts) {
      await driver.close(runId, opts);
    },
    progress: async (runId) => driver.progress(runId),
    problem: async (runId) => problems.get(runId),
    ...(options.move === undefined ? {} : { move: options.move(drive) }),
  };
}
