/**
 * What every answer of the HTTP app shares, registered first: errors as
 * `{ "error": { "code", "message" } }` (never a stack or a path), 404 for
 * a route that is not one, `X-Content-Type-Options: nosniff` and
 * `Cache-Control: no-store` on everything, `GET /health`, the answers
 * telling an OAuth client there is no OAuth here, and the API's CORS
 * policy when it has one. None of it needs a token.
 */
import type { Context, Env, Hono } from "hono";
import { cors } from "hono/cors";
import { isIsoagentError } from "../errors.js";
import { errorBody, STATUS, type HttpError } from "./wire.js";

const NO_OAUTH = 'this server has no OAuth: give the token as Authorization: Bearer <token> (see docs/mcp.md, "The inspector")';

/** Registers the error answers, the headers of every answer, `/health`, the no-OAuth answers and (with `corsOrigins`) CORS on `/runs`. */
export function registerBase<E extends Env>(app: Hono<E>, corsOrigins: readonly string[] | undefined): void {
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

  if (corsOrigins !== undefined && corsOrigins.length > 0) {
    // One policy for /runs and everything under it ("/runs/*" matches /runs too).
    app.use(
      "/runs/*",
      cors({ origin: [...corsOrigins], allowHeaders: ["Authorization", "Content-Type", "Last-Event-ID", "Idempotency-Key"], exposeHeaders: ["Idempotent-Replayed"], allowMethods: ["GET", "POST"] }),
    );
  }
}
