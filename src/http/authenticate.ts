/**
 * Who a request of the HTTP app is: `POST /login` (before authentication),
 * the middleware that lets through a bearer token of either scope or the
 * console's session cookie and refuses anything else (401, or the login
 * page for the console's own page), then `POST /logout` and `POST
 * /login/code`. It sets the request's {@link AppVariables}: how it
 * authenticated, with which scope, and who it is for idempotency keys
 * (which configured token it holds, never the token).
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { AppVariables } from "./app-options.js";
import { tokenIndex, UNSAFE_METHODS } from "./auth.js";
import { jsonOnly, requireOperator } from "./guards.js";
import type { consoleSessions } from "./session-routes.js";
import { errorBody, HttpError } from "./wire.js";

/** What authentication checks a request against. */
export interface Authentication {
  readonly tokens: () => readonly string[];
  readonly runTokens: (() => readonly string[]) | undefined;
  readonly sessions: ReturnType<typeof consoleSessions>;
  /** Refuses a write from another origin than the app's (see guards.ts). */
  readonly sameOriginOnly: (c: Context) => void;
  /** The JSON body's size limit. */
  readonly limit: MiddlewareHandler;
}

/** The bearer token of an `Authorization` header, if it has one. */
const bearerOf = (header: string | undefined): string | undefined => (header?.startsWith("Bearer ") === true ? header.slice(7).trim() : undefined);

// No credential, or none that holds: the console's page goes to the login page, anything else is 401.
const refuse = (c: Context) => {
  if (c.req.method === "GET" && c.req.path === "/") return c.redirect("/login", 302);
  c.header("WWW-Authenticate", 'Bearer realm="isoagent"');
  return c.json(errorBody("UNAUTHORIZED", "a valid bearer token is required"), 401);
};

/** Registers the login, the authentication of every later route, the logout and the login codes (see the module's comment). */
export function registerAuthentication(app: Hono<{ Variables: AppVariables }>, auth: Authentication): void {
  const { sessions, sameOriginOnly } = auth;
  app.post("/login", auth.limit, async (c) => {
    sameOriginOnly(c);
    jsonOnly(c);
    return sessions.login(c);
  });

  app.use("*", async (c, next) => {
    const bearer = bearerOf(c.req.header("authorization"));
    const tokens = auth.tokens();
    if (bearer !== undefined) {
      // Every list is compared in full (constant time per token), so the timing says nothing of which matched.
      const operator = await tokenIndex(bearer, tokens);
      const run = await tokenIndex(bearer, auth.runTokens?.() ?? []);
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
    if (c.get("auth") !== "bearer" || bearer === undefined)
      throw new HttpError("BEARER_REQUIRED", "a login code is made with an operator token (Authorization: Bearer), not with the console's session");
    requireOperator(c, "make login codes");
    return sessions.mintCode(c, bearer);
  });
}
