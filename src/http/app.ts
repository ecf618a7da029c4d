/**
 * The runs API and the operator console, as one hono app: the same on
 * Workers (backed by Durable Objects) and in Node (backed by a driver).
 *
 * Every route but `GET /health`, the login page and the static assets needs
 * a token: `Authorization: Bearer <t>`, or the console's session cookie
 * (see auth.ts: signed, expiring, never the token). A write authenticated by
 * the cookie must be same-origin (403 CSRF_REFUSED); a body must be JSON
 * with `content-type: application/json` (415) under a size limit (413), and
 * goes through the strict JSON boundary. Errors are
 * `{ "error": { "code", "message" } }`, never a stack or a path. Every
 * answer carries `X-Content-Type-Options: nosniff` and `Cache-Control:
 * no-store`.
 */
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { secureHeaders } from "hono/secure-headers";
import { systemClock, type Clock } from "../clock.js";
import { isIsoagentError } from "../errors.js";
import { decodeUtf8Fatal } from "../web.js";
import { parseApprovalId, parseRunId, type ApprovalId, type RunId } from "../ids.js";
import { pendingApprovals } from "../journal/index.js";
import { journalSpans, otlpJson } from "../otel/index.js";
import { DEFAULT_LOGIN_CODE_TTL_MS, DEFAULT_SESSION_TTL_MS, isJson, sameOrigin, tokenIndex, UNSAFE_METHODS, type Signed } from "./auth.js";
import { consoleSessions } from "./session-routes.js";
import { memorySessions, type SessionLedger } from "./sessions.js";
import type { RunsBackend } from "./backend.js";
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from "./console.js";
import { LOGIN_HTML, LOGIN_JS } from "./login.js";
import { createIdempotent, IDEMPOTENCY_KEY, idempotentRunId } from "./idempotency.js";
import { verifyJournal } from "./verify.js";
import { ANSWER, CANCEL, checkFrom, CREATE, errorBody, fromQuery, HttpError, idParam, listQuery, pageCursor, readBody, RECONCILE, STATUS, streamFrom, view } from "./wire.js";
import { registerMoveRoutes } from "./move-routes.js";

/** What a caller's token lets it do: "run" creates and reads runs; "operator" also answers approvals, reconciles and cancels. */
export type Scope = "run" | "operator";

/** An MCP endpoint the app serves at `/mcp`, behind its tokens (isoagent/mcp's `mcpServer` or `mcpRunsServer`). */
export interface McpEndpoint {
  fetch(request: never, caller: { readonly scope: Scope; readonly by?: string }): Promise<unknown>;
}

/** What the HTTP app serves: its backend, the tokens of each scope, and the origins, limits and timings of the API. */
export interface HttpAppOptions {
  readonly backend: RunsBackend;
  /**
   * Operator tokens (a Worker secret, the local token): both scopes, and the
   * only tokens that open a console session. A deployment with one token
   * has it here and keeps working as before. Called per request, so a
   * rotated secret takes effect (and ends the old token's console sessions).
   */
  readonly tokens: () => readonly string[];
  /**
   * Run tokens: the run scope only. A caller holding one creates runs and
   * reads them (state, events, pending approvals, live events), and is
   * refused (403 OPERATOR_SCOPE_REQUIRED) on answering an approval,
   * reconciling and cancelling: an agent holding only a run token can never
   * answer an approval, its own least. Default: none.
   */
  readonly runTokens?: () => readonly string[];
  /** Serves MCP at `/mcp` behind the same tokens, telling it the caller's scope. */
  readonly mcp?: McpEndpoint;
  /** Largest body accepted, in bytes (413 above). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Largest run bundle `POST /runs/import` and `/runs/:id/mirror` accept, streamed (413 past it). Default 256 MiB. */
  readonly maxImportBytes?: number;
  /** Origins allowed to call the API from a browser, with a bearer token. Default: none (CORS off). */
  readonly corsOrigins?: readonly string[];
  /**
   * How often a live event stream with nothing to say sends a keep-alive
   * ping (which keeps proxies from closing it). Events are pushed as they
   * are appended, never polled for. Default 15,000 ms.
   */
  readonly keepAliveMs?: number;
  /** The app's public origin (`https://agents.example.com`), when a proxy in front changes the scheme or host the app sees. Default: the request's own. */
  readonly origin?: string;
  /** How long a console session lasts. Default 12 hours. */
  readonly sessionTtlMs?: number;
  /** How long a one-time login code (`POST /login/code`) may wait to be used. Default one minute. */
  readonly loginCodeTtlMs?: number;
  /**
   * Where the console's open sessions and login codes are kept, so that a
   * logout ends a session on the server and a code works once. Every app
   * serving one console (processes behind a balancer, a Worker's isolates)
   * must share one. Default: `memorySessions()`, this app's alone (a
   * restart logs everyone out; another process does not see its sessions).
   */
  readonly sessions?: SessionLedger;
  /** The clock sessions expire by. Default: the system clock. */
  readonly clock?: Clock;
}

/** What a request's authentication tells the routes: how, with which scope, who (for idempotency keys), and the console's session when it is one. */
export interface AppVariables {
  auth: "bearer" | "session";
  scope: Scope;
  caller: string;
  session?: Signed;
}

const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    decodeUtf8Fatal(bytes);
    return true;
  } catch {
    return false;
  }
};

const NO_OAUTH = 'this server has no OAuth: give the token as Authorization: Bearer <token> (see docs/mcp.md, "The inspector")';

/** The origin a request names itself by: scheme, host and port of its URL. */
const bearerOf = (header: string | undefined): string | undefined => (header?.startsWith("Bearer ") === true ? header.slice(7).trim() : undefined);

const ownOrigin = (url: string): string => {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)/i.exec(url);
  return m === null ? "" : m[1]!.toLowerCase();
};

/**
 * The runs API and the operator console.
 *
 * @example
 * ```ts
 * const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [process.env.ISOAGENT_TOKEN!] })
 * export default app // a Worker, or serve app.fetch from Node
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono<{ Variables: AppVariables }> {
  const { backend } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  if (!(Number.isFinite(keepAliveMs) && keepAliveMs > 0)) throw new TypeError(`keepAliveMs must be a number above 0, not ${String(keepAliveMs)}`);
  const clock = options.clock ?? systemClock;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const originOf = (c: Context): string => (options.origin ?? ownOrigin(c.req.url)).toLowerCase().replace(/\/$/, "");
  const app = new Hono<{ Variables: AppVariables }>();
  const sessions = consoleSessions({
    ledger: options.sessions ?? memorySessions(),
    tokens: options.tokens,
    clock,
    sessionTtlMs,
    loginCodeTtlMs: options.loginCodeTtlMs ?? DEFAULT_LOGIN_CODE_TTL_MS,
    originOf,
  });

  app.onError((e, c) => {
    if (isIsoagentError(e, "HTTP_REFUSED")) return c.json(errorBody((e as HttpError).apiCode, e.message), (STATUS[(e as HttpError).apiCode] ?? 400) as 400);
    // A simulated crash (the testkit's) is no refusal: it is answered as any other failure.
    if (isIsoagentError(e) && !isIsoagentError(e, "CRASH")) return c.json(errorBody(e.code, e.message), (STATUS[e.code] ?? 400) as 400);
    // Anything else is a bug: say nothing of it but that it happened.
    return c.json(errorBody("INTERNAL", "internal error"), 500);
  });
  app.notFound((c) => c.json(errorBody("NOT_FOUND", "no such route"), 404));

  // Every answer: no sniffing, no caching (runs, approvals and pages change; tokens and sessions pass through).
  app.use("*", async (c, next) => {
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-store");
  });

  app.get("/health", (c) => c.json({ ok: true }));

  // No OAuth here: a bearer token is the credential. A client that met a 401
  // looks for an authorization server (RFC 9728's protected-resource
  // metadata, RFC 8414's and OpenID's server metadata, each also after the
  // endpoint's path, then the default endpoints of MCP's 2025-03-26
  // revision); each is told there is none, before authentication, so that
  // it stops instead of registering itself and sending its user to a login page.
  const noOAuth = (c: Context) => c.json(errorBody("NOT_FOUND", NO_OAUTH), 404);
  for (const path of ["/.well-known/*", "/mcp/.well-known/*", "/register", "/authorize", "/token"]) app.all(path, noOAuth);

  if (options.corsOrigins !== undefined && options.corsOrigins.length > 0) {
    // One policy for /runs and everything under it ("/runs/*" matches /runs too).
    app.use("/runs/*", cors({ origin: [...options.corsOrigins], allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID", "Idempotency-Key"], exposeHeaders: ["Idempotent-Replayed"], allowMethods: ["GET", "POST"] }));
  }

  // ---- the console's pages and assets (no secrets in them) --------------------------
  const csp = secureHeaders({
    referrerPolicy: "no-referrer",
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
  app.get("/console.js", csp, (c) => c.body(CONSOLE_JS, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/console.css", csp, (c) => c.body(CONSOLE_CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  app.get("/login.js", csp, (c) => c.body(LOGIN_JS, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/login", csp, (c) => c.html(LOGIN_HTML));
  // The printed link of older versions (/?token=...): the page takes the token
  // from the address, wipes it from history at once, and posts it; the server
  // never logs anyone in on a GET.
  app.get("/", csp, async (c, next) => (c.req.query("token") === undefined ? next() : c.html(LOGIN_HTML)));

  // Writes made with the cookie come from the console's own pages only.
  const sameOriginOnly = (c: Context): void => {
    if (!sameOrigin(c.req.raw.headers, originOf(c))) throw new HttpError("CSRF_REFUSED", "a write with the console's session must come from the console's own origin");
  };
  const jsonOnly = (c: Context): void => {
    if (!isJson(c.req.header("content-type"))) throw new HttpError("UNSUPPORTED_MEDIA_TYPE", "the body must be JSON, sent with content-type: application/json");
  };
  const limit = bodyLimit({ maxSize: maxBodyBytes, onError: (c) => c.json(errorBody("BODY_TOO_LARGE", `the body is larger than ${maxBodyBytes} bytes`), 413) });

  app.post("/login", limit, async (c) => {
    sameOriginOnly(c);
    jsonOnly(c);
    return sessions.login(c);
  });

  // No credential, or none that holds: the console's page goes to the login page, anything else is 401.
  const refuse = (c: Context) => {
    if (c.req.method === "GET" && c.req.path === "/") return c.redirect("/login", 302);
    c.header("WWW-Authenticate", 'Bearer realm="isoagent"');
    return c.json(errorBody("UNAUTHORIZED", "a valid bearer token is required"), 401);
  };
  app.use("*", async (c, next) => {
    const bearer = bearerOf(c.req.header("authorization"));
    const tokens = options.tokens();
    if (bearer !== undefined) {
      // Every list is compared in full (constant time per token), so the timing says nothing of which matched.
      const operator = await tokenIndex(bearer, tokens);
      const run = await tokenIndex(bearer, options.runTokens?.() ?? []);
      if (operator >= 0 || run >= 0) {
        c.set("auth", "bearer");
        c.set("scope", operator >= 0 ? "operator" : "run");
        // Who asks, for binding an idempotency key: which configured token it
        // holds, never the token itself (a run id derived from a secret would
        // let anyone who can list runs and knows a key test guesses offline).
        c.set("caller", operator >= 0 ? `bearer\noperator\n${operator}` : `bearer\nrun\n${run}`);
        return next();
      }
    } else {
      const session = await sessions.session(c);
      if (session === undefined) return refuse(c);
      c.set("auth", "session");
      c.set("session", session);
      c.set("scope", "operator");
      // Console sessions share one key space: a key retried after logging in again names the same run (the console's keys are random).
      c.set("caller", "session");
      if (UNSAFE_METHODS.has(c.req.method)) sameOriginOnly(c);
      return next();
    }
    return refuse(c);
  });

  app.post("/logout", (c) => sessions.logout(c, c.get("session")));
  // Only an operator's bearer token makes a login code: a session that could would renew itself for ever.
  app.post("/login/code", (c) => {
    const bearer = bearerOf(c.req.header("authorization"));
    if (c.get("auth") !== "bearer" || bearer === undefined) throw new HttpError("BEARER_REQUIRED", "a login code is made with an operator token (Authorization: Bearer), not with the console's session");
    if (c.get("scope") !== "operator") throw new HttpError("OPERATOR_SCOPE_REQUIRED", "this token may create and read runs, not make login codes: that needs an operator token");
    return sessions.mintCode(c, bearer);
  });

  // MCP has its own wire rules (bodies, sizes, DELETE without a body): it is served before the API's.
  if (options.mcp !== undefined) {
    const mcp = options.mcp;
    app.all("/mcp", (c) => mcp.fetch(c.req.raw as never, { scope: c.get("scope") }) as Promise<never>);
  }
  // Moves and mirrors (isoagent/move): bundles are JSON lines under their own cap, so they come before the JSON rules.
  if (backend.move !== undefined) {
    // An export from past the journal's end is refused before the export starts (its own check runs in a stream, whose refusal a Worker loses).
    app.get("/runs/:id/export", async (c, next) => {
      const runId = idParam(parseRunId, c.req.param("id"));
      const from = fromQuery(c.req.query("from"));
      if (from > 1) checkFrom(runId, from, (await backend.state(runId)).seq);
      return next();
    });
  }
  if (backend.move !== undefined) registerMoveRoutes(app, backend.move, { maxBodyBytes, ...(options.maxImportBytes === undefined ? {} : { maxImportBytes: options.maxImportBytes }) });

  app.use("*", async (c, next) => {
    if (UNSAFE_METHODS.has(c.req.method)) jsonOnly(c);
    return next();
  });
  app.use("*", limit);

  app.get("/", csp, (c) => c.html(CONSOLE_HTML));

  // Answers, reconciliations and cancellations need the operator scope.
  const operatorOnly = async (c: Context, next: () => Promise<void>): Promise<void> => {
    if (c.get("scope") !== "operator") throw new HttpError("OPERATOR_SCOPE_REQUIRED", "this token may create and read runs, not answer approvals, reconcile or cancel: that needs an operator token");
    await next();
  };
  app.post("/runs/:id/approvals/:approvalId", operatorOnly);
  app.post("/runs/:id/cancel", operatorOnly);
  app.post("/runs/:id/reconcile", operatorOnly);

  // ---- the runs API -----------------------------------------------------------
  // With an Idempotency-Key, a retried create returns the run the first try
  // made (see idempotency.ts): the key, bound to which token the caller
  // holds (or to console sessions), names the run; the same key with another task is 409.
  app.post("/runs", async (c) => {
    const b = await readBody(c, CREATE);
    const key = c.req.header("idempotency-key");
    if (key === undefined) return c.json({ runId: await backend.create(b["task"]!) }, 201);
    if (!IDEMPOTENCY_KEY.test(key)) throw new HttpError("IDEMPOTENCY_KEY_INVALID", "the Idempotency-Key header must be 1 to 255 visible ASCII characters");
    const task = b["task"]!;
    const made = await createIdempotent(
      idempotentRunId(c.get("caller"), key),
      task,
      (runId) => backend.create(task, { runId }),
      async (runId) => (await backend.state(runId)).task,
    );
    if (made.replayed) c.header("Idempotent-Replayed", "true");
    return c.json({ runId: made.runId }, 201);
  });

  // A page: with ?limit=, one more is asked for, and `next` (the cursor of ?before=) says there is a page after.
  app.get("/runs", async (c) => {
    const q = listQuery(c);
    const runs = await backend.list(q.limit === undefined ? q : { ...q, limit: q.limit + 1 });
    if (q.limit === undefined || runs.length <= q.limit) return c.json({ runs });
    const page = runs.slice(0, q.limit);
    return c.json({ runs: page, next: pageCursor(page[q.limit - 1]!) });
  });

  app.get("/runs/:id", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const state = await backend.state(runId);
    const run = view(state, await backend.lease(runId), await backend.problem?.(runId));
    // Whether this place owns the run (null), or keeps a copy of it (isoagent/move).
    if (backend.move !== undefined) run["custody"] = (await backend.move.custody(runId)) ?? null;
    return c.json({ run });
  });

  // The run's trace: spans derived from its journal, as OTLP/JSON (content not captured).
  app.get("/runs/:id/trace", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    await backend.state(runId); // 404 for an unknown run
    return c.json(otlpJson(journalSpans(await backend.events(runId, 1))));
  });

  // The whole hash chain, re-verified here from the first event: ok with the head, or the first seq where it breaks.
  app.get("/runs/:id/verify", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    return c.json(verifyJournal(await backend.events(runId, 1)));
  });

  // An artifact of the run (an output kept whole, an elided one), only when its journal names it.
  app.get("/runs/:id/artifacts/:sha256", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const sha256 = c.req.param("sha256");
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new HttpError("INVALID_ID", `${JSON.stringify(sha256.slice(0, 80))} is not a SHA-256 in hex`);
    const bytes = await backend.artifact(runId, sha256);
    if (bytes === null) throw new HttpError("ARTIFACT_NOT_FOUND", `run ${runId}'s journal names no artifact ${sha256}`);
    // Shown as text when it is UTF-8, else downloaded; never run as a page (a sandbox with nothing allowed).
    const text = isUtf8(bytes);
    return c.body(bytes as never, 200, {
      "content-type": text ? "text/plain; charset=utf-8" : "application/octet-stream",
      ...(text ? {} : { "content-disposition": `attachment; filename="${sha256}.bin"` }),
      "content-security-policy": "default-src 'none'; sandbox",
    });
  });

  app.get("/runs/:id/approvals", async (c) => {
    const state = await backend.state(idParam(parseRunId, c.req.param("id")));
    return c.json({ approvals: pendingApprovals(state) });
  });

  app.get("/runs/:id/events", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const from = streamFrom(c.req.header("last-event-id"), c.req.query("from"));
    if (!(c.req.header("accept") ?? "").includes("text/event-stream")) {
      if (from === 1) return c.json({ events: await backend.events(runId, 1) });
      // Read from the event before: when it is there, from is at most the last seq + 1, with no second call.
      const read = await backend.events(runId, from - 1);
      if (read[0]?.seq === from - 1) return c.json({ events: read.slice(1) });
      checkFrom(runId, from, (await backend.state(runId)).seq);
      // Appended since the read (a journal only grows).
      return c.json({ events: await backend.events(runId, from) });
    }
    if (from > 1) checkFrom(runId, from, (await backend.state(runId)).seq);
    // Pushed by whoever appends to the run (see stream.ts): 404 before the stream starts.
    const stream = await backend.stream(runId, from, { keepAliveMs });
    const session = c.get("session");
    const body = session === undefined ? stream : sessions.guard(stream, session, keepAliveMs);
    return c.body(body as never, 200, { "content-type": "text/event-stream; charset=utf-8" });
  });

  app.post("/runs/:id/approvals/:approvalId", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const approvalId: ApprovalId = idParam(parseApprovalId, c.req.param("approvalId"));
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
    const runId: RunId = idParam(parseRunId, c.req.param("id"));
    const b = await readBody(c, CANCEL);
    await backend.cancel(runId, { by: String(b["by"] ?? "operator (API)"), ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }) });
    return c.json({ ok: true });
  });

  // Only an interrupted side effect is reconciled here (409 APPROVAL_NOT_RECONCILABLE for a call's approval).
  app.post("/runs/:id/reconcile", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const b = await readBody(c, RECONCILE);
    const approvalId = idParam(parseApprovalId, String(b["approvalId"]));
    await backend.settle(runId, approvalId, {
      requestHash: String(b["requestHash"]),
      by: String(b["by"] ?? "operator (API)"),
      resolution: b["resolution"] as "run_again" | "record_result" | "record_failure" | "mark_unknown",
      ...(b["content"] === undefined ? {} : { content: b["content"] }),
      ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }),
    });
    return c.json({ ok: true });
  });

  return app;
}
