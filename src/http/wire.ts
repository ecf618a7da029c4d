/**
 * The HTTP app's wire: error codes and their statuses, request bodies (their
 * schemas and the strict JSON boundary), query parameters, and the run as
 * the API shows it.
 */
import type { Context } from "hono";
import { IsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import { tryParseJson, type JsonValue } from "../json/index.js";
import { RUN_STATUSES, type RunState, type RunStatus } from "../journal/index.js";
import { runSummary } from "../journal/summary.js";
import { compileSchema, type CompiledSchema } from "../schema/index.js";
import type { LeaseView } from "../store/index.js";

export const STATUS: Record<string, number> = {
  JSON_SYNTAX: 400,
  JSON_TOO_DEEP: 400,
  JSON_INVALID_UTF8: 400,
  JSON_LONE_SURROGATE: 400,
  JSON_DUPLICATE_KEY: 400,
  JSON_NUMBER_OUT_OF_RANGE: 400,
  INVALID_BODY: 400,
  INVALID_ID: 400,
  INVALID_QUERY: 400,
  FROM_PAST_END: 400,
  DRIVER_INVALID: 400,
  MESSAGE_INVALID: 400,
  ANSWER_REQUIRED: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  UNAUTHORIZED: 401,
  LOGIN_CODE_INVALID: 401,
  CSRF_REFUSED: 403,
  OPERATOR_SCOPE_REQUIRED: 403,
  BEARER_REQUIRED: 403,
  RUN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  ARTIFACT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  APPROVAL_HASH_MISMATCH: 409,
  APPROVAL_NOT_PENDING: 409,
  APPROVAL_NOT_RECONCILABLE: 409,
  APPROVAL_STALE: 409,
  TOOL_SHAPE_CHANGED: 409,
  RUN_NOT_ACTIVE: 409,
  NOT_A_CONVERSATION: 409,
  TURN_IN_PROGRESS: 409,
  NO_TURN: 409,
  MESSAGE_ID_REUSED: 409,
  RUN_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  // A copy of a run owned elsewhere takes no write (isoagent/move).
  RUN_MOVED: 409,
  RUN_IN_TRANSIT: 409,
  RUN_MIRROR: 409,
  BODY_TOO_LARGE: 413,
  MESSAGE_TOO_LARGE: 413,
  OUTPUT_SCHEMA_INVALID: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

/** A refusal of a route: code `HTTP_REFUSED`, answered with `apiCode` (a code of the HTTP API) and its status in {@link STATUS}. */
export class HttpError extends IsoagentError {
  constructor(
    readonly apiCode: string,
    message: string,
  ) {
    super("HTTP_REFUSED", message);
  }
}

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

const string = (description: string) => ({ type: "string", minLength: 1, maxLength: 4096, description });
/** A route's body schema, compiled on first use. */
export function body(schema: object): () => CompiledSchema {
  let compiled: CompiledSchema | undefined;
  return () => (compiled ??= compileSchema(schema));
}
export const CREATE = body({
  type: "object",
  additionalProperties: false,
  required: ["task"],
  properties: {
    task: true,
    conversation: { type: "boolean", description: "A conversation: it waits for its user's messages (POST /runs/:id/messages)" },
    outputSchema: { type: ["object", "boolean"], description: "The JSON Schema the final answer must match (every turn's, for a conversation)" },
  },
});
// The token, or a one-time login code (POST /login/code): exactly one of them.
export const LOGIN = body({
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: { token: { type: "string", maxLength: 4096 }, code: { type: "string", maxLength: 200, pattern: "^c1\\.[0-9]{1,16}\\.[0-9a-f]{32}\\.[0-9a-f]{64}$" } },
});
export const ANSWER = body({
  type: "object",
  additionalProperties: false,
  required: ["decision", "requestHash"],
  properties: {
    decision: { enum: ["approve", "deny"] },
    requestHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
    by: string("Who answers"),
    reason: string("Why"),
    answer: string("A person's answer, for a request that wants one"),
  },
});
export const CANCEL = body({ type: "object", additionalProperties: false, properties: { by: string("Who cancels"), reason: string("Why") } });
export const RECONCILE = body({
  type: "object",
  additionalProperties: false,
  required: ["approvalId", "requestHash", "resolution"],
  properties: {
    approvalId: string("The interrupted side effect's approval"),
    requestHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
    resolution: { enum: ["run_again", "record_result", "record_failure", "mark_unknown"] },
    content: true,
    by: string("Who answers"),
    reason: string("Why"),
  },
});

/** Reads a body through the strict JSON boundary, then its schema. */
export async function readBody(c: Context, schema: () => CompiledSchema): Promise<Record<string, JsonValue>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const parsed = tryParseJson(bytes.length === 0 ? new Uint8Array([0x7b, 0x7d]) : bytes);
  if (!parsed.ok) throw new HttpError(parsed.error.code, `the body is not valid JSON: ${parsed.error.message}`);
  const r = schema().validate(parsed.value);
  if (!r.valid)
    throw new HttpError("INVALID_BODY", `the body is not what this route takes: ${r.issues.map((i) => (i.instanceLocation === "" ? i.message : `at ${i.instanceLocation}: ${i.message}`)).join("; ")}`);
  return parsed.value as Record<string, JsonValue>;
}

/** A path parameter parsed as an id, or 400 INVALID_ID. */
export function idParam<T>(parse: (v: unknown) => T, value: string | undefined): T {
  try {
    return parse(value);
  } catch {
    throw new HttpError("INVALID_ID", `${JSON.stringify(value)} is not an id`);
  }
}

/**
 * `?from=` of a route that reads a run's journal: a whole number from 1 (a
 * seq), 1 when absent; 400 INVALID_QUERY for anything else (a sign, a
 * fraction, an exponent, spaces, more than 15 digits).
 */
export function fromQuery(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new HttpError("INVALID_QUERY", "from must be a whole number from 1 (a seq of the run's journal)");
  return Number(raw);
}

/** The first seq a live stream sends: after `Last-Event-ID` (a seq it sent before) when the client gives one, else `?from=`. */
export function streamFrom(lastEventId: string | undefined, from: string | undefined): number {
  if (lastEventId === undefined) return fromQuery(from);
  if (!/^\d{1,15}$/.test(lastEventId)) throw new HttpError("INVALID_QUERY", "Last-Event-ID must be a whole number (the seq of the last event the stream sent)");
  return Number(lastEventId) + 1;
}

/** 400 FROM_PAST_END unless `from` is at most the run's last seq + 1 (which is an empty tail). */
export function checkFrom(runId: string, from: number, lastSeq: number): void {
  if (from > lastSeq + 1) throw new HttpError("FROM_PAST_END", `from ${from} is past the end of run ${runId}'s journal: its last event is ${lastSeq}, so from may be at most ${lastSeq + 1}`);
}

/** A page of a run listing: what GET /runs reads from its query. */
export interface ListQuery {
  status?: RunStatus[];
  limit?: number;
  before?: { updatedAt: number; runId: RunId };
}

/** The cursor of the page after a listed run (`?before=`): its update time and id, `<updatedAt>:<runId>`. */
export const pageCursor = (r: { readonly updatedAt: number; readonly runId: string }): string => `${r.updatedAt}:${r.runId}`;

/**
 * `?status=` as distinct known statuses (400 for an unknown one), `?limit=`
 * as 1..500, and `?before=` as a page cursor (what the previous page's
 * `next` said); 400 INVALID_QUERY for anything else.
 */
export function listQuery(c: Context): ListQuery {
  const raw = c.req.query("status");
  const out: ListQuery = {};
  if (raw !== undefined && raw !== "") {
    const wanted = new Set<RunStatus>();
    for (const s of raw.split(",")) {
      const t = s.trim();
      if (t === "") continue;
      if (!RUN_STATUSES.includes(t as RunStatus)) throw new HttpError("INVALID_QUERY", `status ${JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t)} is not one of ${RUN_STATUSES.join(", ")}`);
      wanted.add(t as RunStatus);
    }
    if (wanted.size > 0) out.status = [...wanted];
  }
  const limit = c.req.query("limit");
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d{1,4}$/.test(limit) || n < 1 || n > 500) throw new HttpError("INVALID_QUERY", "limit must be a whole number from 1 to 500");
    out.limit = n;
  }
  const before = c.req.query("before");
  if (before !== undefined) {
    const m = /^(\d{1,15}):(.{1,128})$/.exec(before);
    let runId: RunId | undefined;
    try {
      runId = m === null ? undefined : parseRunId(m[2]);
    } catch {
      runId = undefined;
    }
    if (m === null || runId === undefined) throw new HttpError("INVALID_QUERY", "before must be a page cursor, <updatedAt>:<runId>, as the previous page's next says");
    out.before = { updatedAt: Number(m[1]), runId };
  }
  return out;
}

/** The state of a run as the API shows it. */
export function view(s: RunState, lease: LeaseView | null, problem: { code: string; message: string } | undefined): Record<string, unknown> {
  return {
    ...runSummary(s),
    step: s.step,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    task: s.task,
    ...(s.cancelled !== undefined ? { cancelled: s.cancelled } : {}),
    // A conversation (v5): its turns, whether one is in progress, and how the last ended; and who closed it.
    ...(s.conversation !== undefined ? { conversation: { turn: s.conversation.turn, open: s.conversation.open, ...(s.conversation.ended === undefined ? {} : { ended: s.conversation.ended }) } } : {}),
    ...(s.closed !== undefined ? { closed: s.closed } : {}),
    ...(problem !== undefined ? { problem } : {}),
    // The OTLP trace id of the run's spans (GET /runs/:id/trace).
    traceId: s.createdHash.slice(0, 32),
    // Who drives it and until when, by the store's clock (null: nobody holds it): store state, not journal state.
    lease,
  };
}
