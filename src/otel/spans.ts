/**
 * Spans derived from a run's journal, after the fact, following the
 * OpenTelemetry GenAI semantic conventions: no span buffer in memory (the
 * journal already holds every fact a trace needs, durably, redacted and
 * timestamped by the store's clock), so a trace survives a crash, an
 * eviction or a reload, and is exported whenever the runtime gets a chance.
 *
 * - `invoke_agent` for the run (the root);
 * - `chat` for each model decision (and for a summarizing model's call),
 *   with the provider, the model, the finish reason and the token usage the
 *   journal recorded;
 * - `execute_tool` for each call, with the tool's name, the call's id, its
 *   side-effect class, and `error.type` when it did not succeed;
 * - span events for approvals, reconciliations, compactions and lease
 *   changes.
 *
 * Ids are derived from the run and the events' hashes (no randomness), so
 * deriving twice gives the same ids and a collector can drop a span it has.
 */
import type { CallId } from "../ids.js";
import type { JournalEvent, Observation } from "../journal/index.js";

/** An attribute value, as OTLP carries it. */
export type SpanValue = string | number | boolean | readonly string[];

/** A span event. */
export interface SpanEvent {
  readonly name: string;
  readonly timeMs: number;
  readonly attributes: Readonly<Record<string, SpanValue>>;
}

/** A span, derived; times are the journal's (ms since the epoch, by the store's clock). */
export interface Span {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP span kinds: 1 internal, 3 client (a call to a model). */
  readonly kind: 1 | 3;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, SpanValue>>;
  readonly events: readonly SpanEvent[];
  /** OTLP status codes: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: 0 | 1 | 2; readonly message?: string };
  /** The seq of the event that ended the span: exporters resume after it. */
  readonly endSeq: number;
}

/** What `journalSpans` puts in spans: content (off by default) and how much of it. */
export interface JournalSpansOptions {
  /**
   * Put prompts, arguments and results in spans (`gen_ai.output.messages`,
   * `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`): the journal's
   * own text, already redacted, each cut at `contentMaxChars`. Default false.
   */
  readonly captureContent?: boolean;
  /** Default 16,384 characters. */
  readonly contentMaxChars?: number;
  /** `gen_ai.agent.name`. Default "isoagent". */
  readonly agentName?: string;
}

const A = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheRead: "gen_ai.usage.cache_read.input_tokens",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversation: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
} as const;

/** The GenAI attribute names the spans use (checked against @opentelemetry/semantic-conventions by the tests). */
export const GENAI_ATTRIBUTES: Readonly<Record<keyof typeof A, string>> = A;

/** Completed spans only are derived: an open span (a run going on, a call in flight) comes with a later export. */
interface OpenCall {
  readonly callId: CallId;
  readonly name: string;
  readonly args: string;
  readonly spanId: string;
  startMs: number;
  started: boolean;
  sideEffect?: string;
  events: SpanEvent[];
}

const OBSERVED_ERROR: Record<Observation["type"], string | undefined> = {
  result: undefined,
  tool_error: "tool_error",
  invalid_decision: "invalid_decision",
  denied: "denied",
  interrupted: "interrupted",
};

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max)}…`);

/**
 * The spans of a run's journal (from its first event), each once it is
 * complete, in the order they ended.
 *
 * @example
 * ```ts
 * const spans = journalSpans(await store.read(runId))
 * const body = otlpJson(spans, { serviceName: "notes-agent" })
 * ```
 */
export function journalSpans(events: readonly JournalEvent[], options: JournalSpansOptions = {}): Span[] {
  const first = events[0];
  if (first === undefined || first.type !== "run.created") return [];
  const capture = options.captureContent === true;
  const max = options.contentMaxChars ?? 16_384;
  // The same as RunState.createdHash.slice(0, 32): the trace id the API shows.
  const traceId = first.hash.slice(0, 32);
  const rootId = first.hash.slice(32, 48);
  const runId = first.runId;
  const spans: Span[] = [];
  const rootEvents: SpanEvent[] = [];
  // The calls of the current step (a call's events all come before the next decision).
  const calls = new Map<CallId, OpenCall>();
  let decisions = new Map<CallId, { name: string; args: string }>();
  let step = 0;
  let lastMs = first.at;
  const child = (
    spanId: string,
    name: string,
    kind: 1 | 3,
    startMs: number,
    endMs: number,
    attributes: Record<string, SpanValue>,
    endSeq: number,
    status: Span["status"] = { code: 0 },
    spanEvents: SpanEvent[] = [],
  ): void => {
    spans.push({ traceId, spanId, parentSpanId: rootId, name, kind, startMs, endMs: Math.max(startMs, endMs), attributes, events: spanEvents, status, endSeq });
  };
  const callOf = (callId: CallId, e: JournalEvent): OpenCall | undefined => {
    let c = calls.get(callId);
    const decided = decisions.get(callId);
    if (c === undefined && decided !== undefined) {
      // The first event naming the call after its decision: its hash names the span.
      c = { callId, name: decided.name, args: decided.args, spanId: e.hash.slice(0, 16), startMs: e.at, started: false, events: [] };
      calls.set(callId, c);
    }
    return c;
  };
  const finish = (c: OpenCall, o: Observation, e: JournalEvent): void => {
    calls.delete(c.callId);
    const error = OBSERVED_ERROR[o.type];
    const failure = o.type === "tool_error" && o.failure !== "error" ? o.failure : error;
    const attributes: Record<string, SpanValue> = { [A.operation]: "execute_tool", [A.toolName]: c.name, [A.toolCallId]: c.callId, [A.toolType]: "function", "isoagent.call.started": c.started };
    if (c.sideEffect !== undefined) attributes["isoagent.tool.side_effect"] = c.sideEffect;
    if (failure !== undefined) attributes[A.errorType] = failure;
    if (capture) {
      attributes[A.toolArguments] = cut(c.args, max);
      attributes[A.toolResult] = cut(o.type === "result" ? (typeof o.content === "string" ? o.content : JSON.stringify(o.content)) : o.error, max);
    }
    child(c.spanId, `execute_tool ${c.name}`, 1, c.startMs, e.at, attributes, e.seq, failure === undefined ? { code: 1 } : { code: 2, message: failure }, c.events);
  };
  for (const e of events) {
    switch (e.type) {
      case "run.created":
        break;
      case "run.resumed":
        rootEvents.push({ name: "isoagent.lease.acquired", timeMs: e.at, attributes: { "isoagent.lease.owner": e.owner, "isoagent.lease.token": e.token } });
        break;
      case "step.decided": {
        step = e.step;
        calls.clear();
        decisions = new Map(e.decision.kind === "calls" ? e.decision.calls.map((c) => [c.callId, { name: c.name, args: c.args }]) : []);
        const a = e.answer;
        const attributes: Record<string, SpanValue> = { [A.operation]: "chat", "isoagent.step": e.step };
        if (a !== undefined) {
          attributes[A.provider] = a.provider;
          attributes[A.requestModel] = a.model;
          attributes[A.responseModel] = a.model;
          if (a.finishReason !== undefined) attributes[A.finishReasons] = [a.finishReason];
          if (a.usage !== undefined) {
            attributes[A.inputTokens] = a.usage.input;
            attributes[A.outputTokens] = a.usage.output;
            if (a.usage.cached !== undefined) attributes[A.cacheRead] = a.usage.cached;
          }
        }
        if (capture) attributes[A.outputMessages] = cut(JSON.stringify(e.decision), max);
        child(e.hash.slice(0, 16), a === undefined ? "chat" : `chat ${a.model}`, 3, lastMs, e.at, attributes, e.seq, { code: 1 });
        break;
      }
      case "call.permission": {
        const c = callOf(e.callId, e);
        if (c === undefined) break;
        if (e.sideEffect !== undefined) c.sideEffect = e.sideEffect;
        c.events.push({
          name: "isoagent.permission",
          timeMs: e.at,
          attributes: { "isoagent.permission": e.permission, "isoagent.permission.source": e.source, ...(e.reason === undefined ? {} : { "isoagent.permission.reason": e.reason }) },
        });
        break;
      }
      case "approval.requested": {
        const c = callOf(e.request.callId, e);
        if (c === undefined) break;
        if (c.sideEffect === undefined) c.sideEffect = e.request.sideEffect;
        c.events.push({ name: "isoagent.approval.requested", timeMs: e.at, attributes: { "isoagent.approval.id": e.approvalId, "isoagent.approval.kind": e.request.kind } });
        break;
      }
      case "approval.resolved": {
        for (const c of calls.values()) {
          if (c.events.some((x) => x.attributes["isoagent.approval.id"] === e.approvalId)) {
            c.events.push({
              name: "isoagent.approval.resolved",
              timeMs: e.at,
              attributes: { "isoagent.approval.id": e.approvalId, "isoagent.approval.decision": e.decision, "isoagent.approval.by": e.by },
            });
          }
        }
        break;
      }
      case "call.started": {
        const c = callOf(e.callId, e);
        if (c === undefined) break;
        if (!c.started) c.startMs = e.at;
        c.started = true;
        c.events.push({ name: "isoagent.call.started", timeMs: e.at, attributes: { "isoagent.call.attempt": e.attempt } });
        break;
      }
      case "call.rejected": {
        const c = callOf(e.callId, e);
        if (c !== undefined) finish(c, e.observation, e);
        break;
      }
      case "call.finished": {
        if (e.late === true) {
          rootEvents.push({ name: "isoagent.call.finished_late", timeMs: e.at, attributes: { [A.toolCallId]: e.callId } });
          break;
        }
        const c = callOf(e.callId, e);
        if (c !== undefined) finish(c, e.observation, e);
        break;
      }
      case "call.reconciled": {
        const c = callOf(e.callId, e);
        if (c === undefined) break;
        c.events.push({ name: "isoagent.call.reconciled", timeMs: e.at, attributes: { "isoagent.reconciliation": e.resolution, "isoagent.reconciliation.by": e.by } });
        if (e.observation !== undefined && e.resolution !== "ask_operator") finish(c, e.observation, e);
        break;
      }
      case "call.reopened": {
        const c = callOf(e.callId, e);
        c?.events.push({ name: "isoagent.call.reopened", timeMs: e.at, attributes: { "isoagent.reopened.reason": e.reason } });
        break;
      }
      case "context.compacted": {
        rootEvents.push({
          name: "isoagent.context.compacted",
          timeMs: e.at,
          attributes: {
            "isoagent.context.strategy": e.strategy,
            "isoagent.context.reason": e.reason,
            "isoagent.context.tokens.before": e.tokens.before,
            "isoagent.context.tokens.after": e.tokens.after,
          },
        });
        if (e.answer !== undefined) {
          const a = e.answer;
          const attributes: Record<string, SpanValue> = { [A.operation]: "chat", [A.provider]: a.provider, [A.requestModel]: a.model, [A.responseModel]: a.model, "isoagent.purpose": "summary" };
          if (a.usage !== undefined) {
            attributes[A.inputTokens] = a.usage.input;
            attributes[A.outputTokens] = a.usage.output;
          }
          child(e.hash.slice(0, 16), `chat ${a.model}`, 3, lastMs, e.at, attributes, e.seq, { code: 1 });
        }
        break;
      }
      case "run.completed":
      case "run.closed":
      case "run.failed":
      case "run.cancelled": {
        const status: Span["status"] = e.type === "run.completed" || e.type === "run.closed" ? { code: 1 } : e.type === "run.failed" ? { code: 2, message: e.reason } : { code: 0 };
        const attributes: Record<string, SpanValue> = {
          [A.operation]: "invoke_agent",
          [A.agentName]: options.agentName ?? "isoagent",
          [A.agentId]: runId,
          [A.conversation]: runId,
          "isoagent.run.status": e.type.slice(4),
          "isoagent.run.steps": step,
        };
        if (e.type === "run.failed") attributes[A.errorType] = e.reason;
        if (e.type === "run.cancelled") rootEvents.push({ name: "isoagent.run.cancelled", timeMs: e.at, attributes: { "isoagent.cancelled.by": e.by } });
        spans.push({
          traceId,
          spanId: rootId,
          name: `invoke_agent ${options.agentName ?? "isoagent"}`,
          kind: 1,
          startMs: first.at,
          endMs: e.at,
          attributes,
          events: [...rootEvents],
          status,
          endSeq: e.seq,
        });
        break;
      }
      case "user.message":
        rootEvents.push({ name: "isoagent.turn.message", timeMs: e.at, attributes: { "isoagent.turn": e.turn } });
        break;
      case "turn.ended":
        rootEvents.push({ name: "isoagent.turn.ended", timeMs: e.at, attributes: { "isoagent.turn": e.turn, "isoagent.turn.reason": e.reason } });
        break;
      case "turn.regenerated":
        rootEvents.push({ name: "isoagent.turn.regenerated", timeMs: e.at, attributes: { "isoagent.turn": e.turn } });
        break;
      case "output.rejected":
        rootEvents.push({ name: "isoagent.output.rejected", timeMs: e.at, attributes: { "isoagent.step": e.step } });
        break;
      case "run.moved":
        rootEvents.push({ name: "isoagent.run.moved", timeMs: e.at, attributes: { "isoagent.moved.from": e.from, "isoagent.moved.to": e.to, "isoagent.moved.epoch": e.epoch } });
        break;
      default: {
        const never: never = e;
        void never;
      }
    }
    lastMs = e.at;
  }
  return spans;
}
