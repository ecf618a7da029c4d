/**
 * A conversation's rules (v5), as reduce.ts applies them: a message opens
 * a turn, only between turns; a turn ends answered, stopped or at a limit,
 * closing the calls it leaves; the last turn may be run again from its
 * message; a closed conversation is over. Every other event of a turn
 * (a decision, a call's progress, a compaction) needs a turn in progress.
 */
import { JournalError } from "./errors.js";
import type { JournalEvent, RunClosed, TurnEnded, TurnRegenerated, UserMessageEvent } from "./events.js";
import type { CallState, ConversationState, RunState } from "./state.js";

/** The events that belong to a turn: in a conversation, each needs one in progress. */
const TURN_EVENTS: ReadonlySet<JournalEvent["type"]> = new Set([
  "step.decided",
  "call.permission",
  "call.rejected",
  "approval.requested",
  "call.started",
  "call.reconciled",
  "call.reopened",
  "context.compacted",
  "output.rejected",
]);

/** Whether a conversation took a message of this id (own keys only: a client's id is never looked up on a prototype). */
export function messageSeq(c: ConversationState, messageId: string): number | undefined {
  return Object.hasOwn(c.messages, messageId) ? c.messages[messageId] : undefined;
}

function conversationOf(state: RunState, e: JournalEvent): ConversationState {
  if (state.conversation === undefined) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} (${e.type}) is a conversation's, and run ${state.runId} is not one`);
  return state.conversation;
}

/** Refuses an event of a turn when no turn is in progress (a conversation between turns, or closed). */
export function checkInTurn(state: RunState, e: JournalEvent): void {
  const c = state.conversation;
  if (c === undefined || c.open || !TURN_EVENTS.has(e.type)) return;
  throw new JournalError("JOURNAL_INVALID", `event ${e.seq} (${e.type}) belongs to a turn, and run ${state.runId} is between turns`);
}

/** A message opens the next turn; it is shown to the agent. */
export function takeMessage(state: RunState, e: UserMessageEvent): void {
  const c = conversationOf(state, e);
  if (c.open) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} is a message in the middle of turn ${c.turn}`);
  if (e.turn !== c.turn + 1) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} opens turn ${e.turn} after turn ${c.turn}`);
  if (messageSeq(c, e.messageId) !== undefined) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} takes message ${JSON.stringify(e.messageId)} again`);
  Object.defineProperty(c.messages, e.messageId, { value: e.seq, enumerable: true, writable: true, configurable: true });
  c.turn = e.turn;
  c.open = true;
  c.fromStep = state.step;
  c.at = state.transcript.length;
  state.consecutiveFailures = 0;
  delete state.takeovers;
  if (e.outputSchema === undefined) delete c.outputSchema;
  else c.outputSchema = e.outputSchema;
  state.transcript.push({ type: "user", turn: e.turn, messageId: e.messageId, text: e.text, ...(e.files === undefined ? {} : { files: e.files }) });
}

/**
 * A turn ends. A stopped one lists the calls it closed, which must be
 * exactly the calls of the step not yet observed: each is observed as
 * listed, and an approval it waited for is void.
 */
export function endTurn(state: RunState, e: TurnEnded, observe: (call: CallState, e: NonNullable<TurnEnded["closed"]>[number]["observation"]) => void): void {
  const c = conversationOf(state, e);
  if (!c.open || e.turn !== c.turn) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} ends turn ${e.turn}, and turn ${c.turn} is ${c.open ? "in progress" : "over"}`);
  const open = state.current?.done === false ? state.current.calls.filter((k) => k.status !== "done") : [];
  const closed = e.closed ?? [];
  if (closed.length !== open.length || open.some((k, i) => closed[i]!.callId !== k.callId)) {
    throw new JournalError("JOURNAL_INVALID", `event ${e.seq} closes calls [${closed.map((k) => k.callId).join(", ")}], and the step leaves [${open.map((k) => k.callId).join(", ")}]`);
  }
  for (let i = 0; i < open.length; i++) {
    const call = open[i]!;
    const approval = call.approvalId === undefined ? undefined : state.approvals[call.approvalId];
    if (approval !== undefined && (approval.status === "pending" || approval.status === "approved")) approval.status = "voided";
    observe(call, closed[i]!.observation);
  }
  if (e.output !== undefined) state.output = e.output;
  else if (e.reason === "answered" && state.current?.decision.kind === "final") state.output = state.current.decision.output;
  c.open = false;
  c.ended = { turn: e.turn, reason: e.reason, ...(e.detail === undefined ? {} : { detail: e.detail }) };
}

/** The last turn runs again from its message: what the agent was shown after it is cut away (the journal keeps it). */
export function regenerate(state: RunState, e: TurnRegenerated): void {
  const c = conversationOf(state, e);
  if (c.open || e.turn !== c.turn || c.turn < 1) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} runs turn ${e.turn} again, and the last turn is ${c.turn}${c.open ? ", in progress" : ""}`);
  if (c.at === undefined) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} runs turn ${e.turn} again, whose message a compaction folded away`);
  state.transcript.length = c.at + 1;
  c.open = true;
  c.fromStep = state.step;
  state.consecutiveFailures = 0;
  delete c.ended;
  delete state.lastUsage;
}

/** The conversation is closed: it ends completed, its output its last answer. */
export function close(state: RunState, e: RunClosed): void {
  const c = conversationOf(state, e);
  if (c.open) throw new JournalError("JOURNAL_INVALID", `event ${e.seq} closes the conversation in the middle of turn ${c.turn}`);
  state.status = "completed";
  state.closed = e.reason === undefined ? { by: e.by } : { by: e.by, reason: e.reason };
}

/** Where the current turn's message sits after a compaction replaced items `[from, to)` by `n` others: moved, or gone. */
export function compacted(state: RunState, from: number, to: number, n: number): void {
  const c = state.conversation;
  if (c?.at === undefined) return;
  if (c.at >= to) c.at += n - (to - from);
  else if (c.at >= from) delete c.at;
}
