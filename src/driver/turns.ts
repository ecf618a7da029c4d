/**
 * A conversation's operations (v5), appended without the run's lease as an
 * operator's answers are: a user's message (taken once by its id, only
 * between turns), a stop of the turn in progress that no session of this
 * driver is running, a regeneration of the last turn, closing. The session
 * (session.ts) ends the turns it drives; a stop it is running is handed to
 * it (driver.ts), so the model call and the tools it is waiting on are
 * aborted.
 */
import { canonicalJson, cloneJson, type JsonValue } from "../json/index.js";
import { wellFormed } from "../json/well-formed.js";
import { isId, type RunId } from "../ids.js";
import { apply, JOURNAL_VERSION, seal, TERMINAL_STATUSES, type ConversationState, type MessageFile, type RunState, type UnsealedEvent, type UserMessageEvent } from "../journal/index.js";
import { messageSeq } from "../journal/turns.js";
import { closedCalls } from "./closed.js";
import type { DriverContext } from "./context.js";
import { operatorAppend } from "./operator.js";
import { triesAgain } from "../store/conflict.js";
import { DriverError } from "./types.js";
import { outputSchemaOf, type OutputSchema } from "./output.js";

/** A user's message to a conversation, as the application hands it to `Driver.send`. */
export interface UserMessage {
  /** The client's id for it (an id as isoagent's own: 1 to 128 of letters, digits, "_", ".", ":" or "-"): sending it again appends nothing. */
  readonly id: string;
  /** What the user wrote (at most {@link MESSAGE_LIMITS}.textChars characters; may be empty when files come with it). */
  readonly text: string;
  /** Files sent with it: each stored as an artifact by its SHA-256, and shown to agents that take files. */
  readonly files?: readonly { readonly mediaType: string; readonly data: Uint8Array; readonly name?: string }[];
  /** The client's own data about the message: journaled, never shown to the agent. */
  readonly metadata?: JsonValue;
  /** The JSON Schema (or Standard Schema) this turn's answer must match, instead of the run's: see {@link OutputSchema}. */
  readonly outputSchema?: OutputSchema;
}

/** What a send did: whether the message was taken before (a resend, which appended nothing), the event that holds it, and the conversation's turn after it. */
export interface Sent {
  readonly duplicate: boolean;
  /** The event that holds the message. */
  readonly seq: number;
  /** The turn it opened (or, for a resend, the conversation's turn now). */
  readonly turn: number;
}

/** The caps a message is held to (MESSAGE_TOO_LARGE past any of them). */
export const MESSAGE_LIMITS = Object.freeze({ idChars: 128, textChars: 100_000, files: 8, fileBytes: 5 * 1024 * 1024, filesBytes: 20 * 1024 * 1024, metadataBytes: 4096, byChars: 256 });

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

const invalid = (message: string): DriverError => new DriverError("MESSAGE_INVALID", message);
const tooLarge = (message: string): DriverError => new DriverError("MESSAGE_TOO_LARGE", message);

function checkText(name: string, s: unknown, max: number): string {
  if (typeof s !== "string") throw invalid(`${name} must be a string`);
  if (s.length > max) throw tooLarge(`${name} is ${s.length} characters, more than ${max.toLocaleString("en")}`);
  if (!wellFormed(s)) throw invalid(`${name} holds a lone surrogate: it is not text`);
  return s;
}

/** A message checked: its id, text, files and metadata, each within its cap; refused whole otherwise, before anything is stored. */
export function checkMessage(m: UserMessage): { id: string; text: string; files: NonNullable<UserMessage["files"]>; metadata: JsonValue | undefined; outputSchema: JsonValue | undefined } {
  if (typeof m !== "object" || m === null) throw invalid("a message must be an object with an id and a text");
  if (!isId(m.id)) throw invalid(`a message's id must be 1 to 128 of letters, digits, "_", ".", ":" or "-", not ${JSON.stringify(String(m.id).slice(0, 40))}`);
  const text = checkText("a message's text", m.text, MESSAGE_LIMITS.textChars);
  const files = m.files ?? [];
  if (!Array.isArray(files)) throw invalid("a message's files must be a list");
  if (files.length > MESSAGE_LIMITS.files) throw tooLarge(`a message takes at most ${MESSAGE_LIMITS.files} files, not ${files.length}`);
  let total = 0;
  for (const [k, f] of files.entries()) {
    if (typeof f !== "object" || f === null || !(f.data instanceof Uint8Array)) throw invalid(`file ${k + 1} of the message has no bytes (data: a Uint8Array)`);
    if (typeof f.mediaType !== "string" || !MEDIA_TYPE.test(f.mediaType)) throw invalid(`file ${k + 1} of the message has no media type of the form type/subtype, lowercase`);
    if (f.name !== undefined) checkText(`the name of file ${k + 1}`, f.name, 256);
    if (f.data.length > MESSAGE_LIMITS.fileBytes) throw tooLarge(`file ${k + 1} of the message is ${f.data.length} bytes, more than ${MESSAGE_LIMITS.fileBytes.toLocaleString("en")}`);
    total += f.data.length;
  }
  if (total > MESSAGE_LIMITS.filesBytes) throw tooLarge(`the message's files are ${total} bytes together, more than ${MESSAGE_LIMITS.filesBytes.toLocaleString("en")}`);
  if (text.trim() === "" && files.length === 0) throw invalid("a message needs a text or a file");
  let metadata: JsonValue | undefined;
  if (m.metadata !== undefined) {
    try {
      metadata = cloneJson(m.metadata);
    } catch (e) {
      throw invalid(`a message's metadata must be JSON: ${e instanceof Error ? e.message : "unknown"}`);
    }
    const size = canonicalJson(metadata).length;
    if (size > MESSAGE_LIMITS.metadataBytes) throw tooLarge(`a message's metadata is ${size} characters of JSON, more than ${MESSAGE_LIMITS.metadataBytes}`);
  }
  return { id: m.id, text, files, metadata, outputSchema: m.outputSchema === undefined ? undefined : outputSchemaOf(m.outputSchema) };
}

/** The conversation a turn control is for, or the refusal: a task run, or one that ended. */
export function conversationOf(state: RunState): ConversationState {
  if (state.conversation === undefined) throw new DriverError("NOT_A_CONVERSATION", `run ${state.runId} is a task, not a conversation: it takes no messages and has no turns`);
  if (TERMINAL_STATUSES.has(state.status)) throw new DriverError("RUN_NOT_ACTIVE", `conversation ${state.runId} is ${state.status}${state.closed === undefined ? "" : " (closed)"}`);
  return state.conversation;
}

/** What a message's content is, to tell a resend from a reuse of its id with other content. */
const contentOf = (e: Pick<UserMessageEvent, "text" | "files" | "metadata" | "outputSchema">): string =>
  canonicalJson({ text: e.text, files: (e.files ?? []) as unknown as JsonValue, metadata: e.metadata ?? null, outputSchema: e.outputSchema ?? null });

const base = (ctx: DriverContext) => ({ v: JOURNAL_VERSION, at: ctx.clock.now() });

/** The message event a send appends, or the event that took its id already (a resend); refused when the id holds other content or a turn is in progress. */
async function nextMessage(
  ctx: DriverContext,
  state: RunState,
  runId: RunId,
  id: string,
  content: Pick<UserMessageEvent, "text" | "files" | "metadata" | "outputSchema">,
  by: string | undefined,
): Promise<UnsealedEvent | { taken: number }> {
  const c = conversationOf(state);
  const taken = messageSeq(c, id);
  if (taken !== undefined) {
    const original = (await ctx.store.read(runId, taken))[0];
    if (original?.type !== "user.message" || contentOf(original) !== contentOf(content)) {
      throw new DriverError("MESSAGE_ID_REUSED", `message ${JSON.stringify(id)} of conversation ${runId} was sent at event ${taken} with other content: give a new message a new id`);
    }
    return { taken };
  }
  if (c.open) throw new DriverError("TURN_IN_PROGRESS", `conversation ${runId} is in the middle of turn ${c.turn}: wait for its answer, or stop it, before sending`);
  return { ...base(ctx), type: "user.message", turn: c.turn + 1, messageId: id, ...content, ...(by === undefined ? {} : { by }) };
}

/**
 * Sends a user's message: it opens the conversation's next turn. A message
 * whose id was taken is not appended again: the same content is a resend
 * (`duplicate`), other content is refused (MESSAGE_ID_REUSED, naming the
 * event that holds the original). A message in the middle of a turn is
 * refused (TURN_IN_PROGRESS): stop the turn, or wait for its end.
 */
export async function send(ctx: DriverContext, runId: RunId, message: UserMessage, by: string | undefined): Promise<Sent> {
  const m = checkMessage(message);
  if (by !== undefined) checkText("by", by, MESSAGE_LIMITS.byChars);
  const files: MessageFile[] = [];
  for (const f of m.files) {
    const ref = await ctx.store.putArtifact(f.data);
    files.push({ sha256: ref.sha256, mediaType: f.mediaType, size: ref.size, ...(f.name === undefined ? {} : { name: f.name }) });
  }
  const content = {
    text: m.text,
    ...(files.length === 0 ? {} : { files }),
    ...(m.metadata === undefined ? {} : { metadata: m.metadata }),
    ...(m.outputSchema === undefined ? {} : { outputSchema: m.outputSchema }),
  };
  for (let attempt = 0; ; attempt++) {
    // The state this driver's last drive of the run ended with, advanced by what was appended since: a send reads the tail, not the run.
    const { state, snapshotSeq } = await ctx.states.take(ctx.store, runId);
    let judged: UnsealedEvent | { taken: number };
    try {
      judged = await nextMessage(ctx, state, runId, m.id, content, by);
    } catch (e) {
      // A refusal changed nothing: the state goes back as it was.
      ctx.states.keep(state, snapshotSeq);
      throw e;
    }
    if ("taken" in judged) {
      ctx.states.keep(state, snapshotSeq);
      return { duplicate: true, seq: judged.taken, turn: state.conversation!.turn };
    }
    const event = judged;
    const sealed = seal(event, state.seq + 1, state.hash);
    apply(state, sealed);
    try {
      await ctx.store.append(runId, [sealed], { expectedSeq: sealed.seq - 1 }, state.status);
    } catch (e) {
      if (!triesAgain(e, attempt)) throw e;
      continue;
    }
    ctx.states.keep(state, snapshotSeq);
    ctx.notify(runId, "append");
    return { duplicate: false, seq: sealed.seq, turn: state.conversation!.turn };
  }
}

/** The stop of a turn when no session of this driver runs it (it waits for an approval, or another driver holds it). A conversation between turns is left as it is. */
export function stopTurn(ctx: DriverContext, runId: RunId, by: string): Promise<RunState> {
  return operatorAppend(ctx, runId, async (s) => {
    const c = conversationOf(s);
    if (!c.open) return [];
    return [{ ...base(ctx), type: "turn.ended", turn: c.turn, reason: "stopped", by, closed: closedCalls(ctx, s) } satisfies UnsealedEvent];
  });
}

/**
 * Runs the last turn again from its message (what useChat's `regenerate`
 * expects: the whole answer goes). Its calls go through the gate again;
 * effects of the first answer are not undone. Only between turns
 * (TURN_IN_PROGRESS otherwise), and after a first one (NO_TURN).
 */
export function regenerate(ctx: DriverContext, runId: RunId, by: string | undefined): Promise<RunState> {
  return operatorAppend(ctx, runId, async (s) => {
    const c = conversationOf(s);
    if (c.open) throw new DriverError("TURN_IN_PROGRESS", `conversation ${runId} is in the middle of turn ${c.turn}: stop it before regenerating`);
    if (c.turn === 0) throw new DriverError("NO_TURN", `conversation ${runId} has no turn to regenerate yet`);
    if (c.at === undefined) throw new DriverError("NO_TURN", `the message of turn ${c.turn} of conversation ${runId} was folded into a summary: it cannot be regenerated`);
    return [{ ...base(ctx), type: "turn.regenerated", turn: c.turn, ...(by === undefined ? {} : { by }) }];
  });
}

/** Closes a conversation between turns: it ends completed (TURN_IN_PROGRESS in the middle of one: stop it first). */
export function close(ctx: DriverContext, runId: RunId, by: string, reason: string | undefined): Promise<RunState> {
  return operatorAppend(ctx, runId, async (s) => {
    const c = conversationOf(s);
    if (c.open) throw new DriverError("TURN_IN_PROGRESS", `conversation ${runId} is in the middle of turn ${c.turn}: stop it before closing`);
    return [{ ...base(ctx), type: "run.closed", by, ...(reason === undefined ? {} : { reason }) }];
  });
}
