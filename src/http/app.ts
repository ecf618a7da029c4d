/**
 * The runs API and the operator console, as one hono app: the same on
 * Workers (backed by Durable Objects) and in Node (backed by a driver).
 *
 * Every route but `GET /health` needs a token: `Authorization: Bearer <t>`,
 * or the console's cookie (set by opening `/?token=<t>` once). Tokens are
 * compared in constant time. Bodies go through the strict JSON boundary
 * under a size limit. Errors are `{ "error": { "code", "message" } }`, never
 * a stack or a path.
 */
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";
import { cors } from "hono/cors";
import { secureHeaders } from "hono/secure-headers";
import { streamSSE } from "hono/streaming";
import { timingSafeEqual } from "hono/utils/buffer";
import { isIsoagentError } from "../errors.js";
import { parseApprovalId, parseRunId, type ApprovalId, type RunId } from "../ids.js";
import { tryParseJson, type JsonValue } from "../json/index.js";
import { TERMINAL_STATUSES, type RunState, type RunStatus } from "../journal/index.js";
import { compileSchema, type CompiledSchema } from "../schema/index.js";
import type { LeaseView } from "../store/index.js";
import type { RunsBackend } from "./backend.js";
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from "./console.js";
import { after } from "../web.js";

export interface HttpAppOptions {
  readonly backend: RunsBackend;
  /** Accepted bearer tokens (a Worker secret, the local token). Called per request, so a rotated secret takes effect. */
  readonly tokens: () => readonly string[];
  /** Largest body accepted, in bytes (413 above). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Origins allowed to call the API from a browser. Default: none (CORS off). */
  readonly corsOrigins?: readonly string[];
  /** How often a live event stream looks for new events. Default 300 ms. */
  readonly pollMs?: number;
}

const COOKIE = "isoagent_token";
const STATUS: Record<string, number> = {
  JSON_SYNTAX: 400,
  JSON_TOO_DEEP: 400,
  JSON_INVALID_UTF8: 400,
  JSON_LONE_SURROGATE: 400,
  JSON_DUPLICATE_KEY: 400,
  JSON_NUMBER_OUT_OF_RANGE: 400,
  INVALID_BODY: 400,
  INVALID_ID: 400,
  DRIVER_INVALID: 400,
  ANSWER_REQUIRED: 400,
  UNAUTHORIZED: 401,
  RUN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  NOT_FOUND: 404,
  APPROVAL_HASH_MISMATCH: 409,
  APPROVAL_NOT_PENDING: 409,
  RUN_NOT_ACTIVE: 409,
  RUN_EXISTS: 409,
  BODY_TOO_LARGE: 413,
};

class HttpError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

const string = (description: string) => ({ type: "string", minLength: 1, maxLength: 4096, description });
const BODIES: Record<string, () => CompiledSchema> = {};
function body(name: string, schema: object): () => CompiledSchema {
  let compiled: CompiledSchema | undefined;
  BODIES[name] = () => (compiled ??= compileSchema(schema));
  return BODIES[name]!;
}
const CREATE = body("create", { type: "object", additionalProperties: false, required: ["task"], properties: { task: true } });
const ANSWER = body("answer", {
  type: "object",
  additionalProperties: false,
  required: ["decision", "requestHash"],
  properties: { decision: { enum: ["approve", "deny"] }, requestHash: { type: "string", pattern: "^[0-9a-f]{64}$" }, by: string("Who answers"), reason: string("Why"), answer: string("A person's answer, for a request that wants one") },
});
const CANCEL = body("cancel", { type: "object", additionalProperties: false, properties: { by: string("Who cancels"), reason: string("Why") } });
const RECONCILE = body("reconcile", {
  type: "object",
  additionalProperties: false,
  required: ["approvalId", "requestHash", "resolution"],
  properties: {
    approvalId: string("The interrupted side effect's approval"),
    requestHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
    resolution: { enum: ["run_again", "record_result", "record_failure"] },
    content: true,
    by: string("Who answers"),
    reason: string("Why"),
  },
});

/** Reads a body through the strict JSON boundary, then its schema. */
async function readBody(c: Context, schema: () => CompiledSchema): Promise<Record<string, JsonValue>> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const parsed = tryParseJson(bytes.length === 0 ? new Uint8Array([0x7b, 0x7d]) : bytes);
  if (!parsed.ok) throw new HttpError(parsed.error.code, `the body is not valid JSON: ${parsed.error.message}`);
  const r = schema().validate(parsed.value);
  if (!r.valid) throw new HttpError("INVALID_BODY", `the body is not what this route takes: ${r.issues.map((i) => (i.instanceLocation === "" ? i.message : `at ${i.instanceLocation}: ${i.message}`)).join("; ")}`);
  return parsed.value as Record<string, JsonValue>;
}

function ids<T>(parse: (v: unknown) => T, value: string | undefined): T {
  try {
    return parse(value);
  } catch {
    throw new HttpError("INVALID_ID", `${JSON.stringify(value)} is not an id`);
  }
}

/**
 * The state of a run as the API shows it, with its lease (who drives it and
 * until when, by the store's clock; null when nobody holds it): the lease is
 * store state, not journal state.
 */
function view(s: RunState, lease: LeaseView | null): Record<string, unknown> {
  return {
    runId: s.runId,
    status: s.status,
    seq: s.seq,
    step: s.step,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    task: s.task,
    ...(s.output !== undefined ? { output: s.output } : {}),
    ...(s.failure !== undefined ? { failure: s.failure } : {}),
    ...(s.cancelled !== undefined ? { cancelled: s.cancelled } : {}),
    approvals: Object.values(s.approvals).filter((a) => a.status === "pending"),
    lease,
  };
}

async function tokenOk(given: string | undefined, tokens: readonly string[]): Promise<boolean> {
  if (given === undefined || given === "") return false;
  let ok = false;
  // Every token is compared (in constant time), so the answer's timing says nothing.
  for (const t of tokens) if (t !== "" && (await timingSafeEqual(given, t))) ok = true;
  return ok;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => void after(ms, r));

/**
 * The runs API and the operator console.
 *
 * @example
 * ```ts
 * const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [process.env.ISOAGENT_TOKEN!] })
 * export default app // a Worker, or serve app.fetch from Node
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const { backend } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const pollMs = options.pollMs ?? 300;
  const app = new Hono();

  app.onError((e, c) => {
    if (e instanceof HttpError) return c.json(errorBody(e.code, e.message), (STATUS[e.code] ?? 400) as 400);
    if (isIsoagentError(e)) return c.json(errorBody(e.code, e.message), (STATUS[e.code] ?? 400) as 400);
    // Anything else is a bug: say nothing of it but that it happened.
    return c.json(errorBody("INTERNAL", "internal error"), 500);
  });
  app.notFound((c) => c.json(errorBody("NOT_FOUND", "no such route"), 404));

  app.get("/health", (c) => c.json({ ok: true }));

  if (options.corsOrigins !== undefined && options.corsOrigins.length > 0) {
    app.use("/runs/*", cors({ origin: [...options.corsOrigins], allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID"], allowMethods: ["GET", "POST"] }));
    app.use("/runs", cors({ origin: [...options.corsOrigins], allowHeaders: ["Authorization", "Content-Type"], allowMethods: ["GET", "POST"] }));
  }

  // The console's one-time login: /?token=<t> sets an HttpOnly, SameSite=Strict cookie.
  app.get("/", async (c, next) => {
    const token = c.req.query("token");
    if (token === undefined) return next();
    if (!(await tokenOk(token, options.tokens()))) return c.json(errorBody("UNAUTHORIZED", "a valid token is required"), 401);
    setCookie(c, COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/", secure: c.req.url.startsWith("https:") });
    return c.redirect("/", 302);
  });

  app.use("*", async (c, next) => {
    const header = c.req.header("authorization");
    const bearer = header?.startsWith("Bearer ") === true ? header.slice(7).trim() : undefined;
    if (await tokenOk(bearer ?? getCookie(c, COOKIE), options.tokens())) return next();
    c.header("WWW-Authenticate", 'Bearer realm="isoagent"');
    return c.json(errorBody("UNAUTHORIZED", "a valid bearer token is required"), 401);
  });

  app.use(
    "*",
    bodyLimit({ maxSize: maxBodyBytes, onError: (c) => c.json(errorBody("BODY_TOO_LARGE", `the body is larger than ${maxBodyBytes} bytes`), 413) }),
  );

  // ---- the console ----------------------------------------------------------
  const csp = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
  });
  app.get("/", csp, (c) => c.html(CONSOLE_HTML));
  app.get("/console.js", csp, (c) => c.body(CONSOLE_JS, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/console.css", csp, (c) => c.body(CONSOLE_CSS, 200, { "content-type": "text/css; charset=utf-8" }));

  // ---- the runs API -----------------------------------------------------------
  app.post("/runs", async (c) => {
    const b = await readBody(c, CREATE);
    const runId = await backend.create(b["task"]!);
    return c.json({ runId }, 201);
  });

  app.get("/runs", async (c) => {
    const status = c.req.query("status")?.split(",").filter((s) => s !== "") as RunStatus[] | undefined;
    const limit = c.req.query("limit");
    const runs = await backend.list({ status, limit: limit === undefined ? undefined : Math.max(1, Math.min(500, Number(limit) || 50)) });
    return c.json({ runs });
  });

  app.get("/runs/:id", async (c) => {
    const runId = ids(parseRunId, c.req.param("id"));
    const state = await backend.state(runId);
    return c.json({ run: view(state, await backend.lease(runId)) });
  });

  app.get("/runs/:id/approvals", async (c) => {
    const state = await backend.state(ids(parseRunId, c.req.param("id")));
    return c.json({ approvals: Object.values(state.approvals).filter((a) => a.status === "pending") });
  });

  app.get("/runs/:id/events", async (c) => {
    const runId = ids(parseRunId, c.req.param("id"));
    const lastEventId = Number(c.req.header("last-event-id") ?? NaN);
    const from = Number.isInteger(lastEventId) && lastEventId >= 0 ? lastEventId + 1 : Math.max(1, Number(c.req.query("from") ?? 1) || 1);
    if (!(c.req.header("accept") ?? "").includes("text/event-stream")) {
      return c.json({ events: await backend.events(runId, from) });
    }
    await backend.state(runId); // 404 before the stream starts
    return streamSSE(c, async (stream) => {
      let next = from;
      let closed = false;
      let shown = 0;
      stream.onAbort(() => {
        closed = true;
      });
      while (!closed) {
        const events = await backend.events(runId, next);
        for (const e of events) {
          await stream.writeSSE({ id: String(e.seq), event: "journal", data: JSON.stringify(e) });
          next = e.seq + 1;
        }
        if (events.length === 0) {
          // What the agent streams while it decides: shown, never journaled.
          const progress = await backend.progress?.(runId);
          if (progress !== undefined && progress.version !== shown) {
            shown = progress.version;
            await stream.writeSSE({ event: "progress", data: JSON.stringify({ step: progress.step, text: progress.text, calls: progress.calls }) });
          }
          const state = await backend.state(runId);
          if (TERMINAL_STATUSES.has(state.status) && state.seq < next) {
            await stream.writeSSE({ event: "end", data: JSON.stringify({ status: state.status }) });
            return;
          }
          await stream.writeSSE({ event: "ping", data: "" });
          await sleep(pollMs);
        }
      }
    });
  });

  app.post("/runs/:id/approvals/:approvalId", async (c) => {
    const runId = ids(parseRunId, c.req.param("id"));
    const approvalId: ApprovalId = ids(parseApprovalId, c.req.param("approvalId"));
    const b = await readBody(c, ANSWER);
    const answer = {
      requestHash: String(b["requestHash"]),
      by: String(b["by"] ?? "operator (API)"),
      ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }),
      ...(b["answer"] === undefined ? {} : { answer: String(b["answer"]) }),
    };
    if (b["decision"] === "approve") await backend.approve(runId, approvalId, answer);
    else await backend.deny(runId, approvalId, answer);
    return c.json({ ok: true });
  });

  app.post("/runs/:id/cancel", async (c) => {
    const runId: RunId = ids(parseRunId, c.req.param("id"));
    const b = await readBody(c, CANCEL);
    await backend.cancel(runId, { by: String(b["by"] ?? "operator (API)"), ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }) });
    return c.json({ ok: true });
  });

  app.post("/runs/:id/reconcile", async (c) => {
    const runId = ids(parseRunId, c.req.param("id"));
    const b = await readBody(c, RECONCILE);
    const approvalId = ids(parseApprovalId, String(b["approvalId"]));
    await backend.settle(runId, approvalId, {
      requestHash: String(b["requestHash"]),
      by: String(b["by"] ?? "operator (API)"),
      resolution: b["resolution"] as "run_again" | "record_result" | "record_failure",
      ...(b["content"] === undefined ? {} : { content: b["content"] }),
      ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }),
    });
    return c.json({ ok: true });
  });

  return app;
}
