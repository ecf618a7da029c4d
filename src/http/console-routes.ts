/**
 * The console's pages and assets on the HTTP app, each under one strict
 * content security policy (scripts, styles and connections from the app's
 * own origin only; never framed): the script, the style sheet, the login
 * page and its script, registered before authentication (no secrets in
 * them), and the console's own page, registered after it.
 */
import type { Env, Hono, MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from "./console.js";
import { LOGIN_HTML, LOGIN_JS } from "./login.js";

/** Registers the assets and the login page; answers the policy, for {@link registerConsolePage}. */
export function registerConsoleAssets<E extends Env>(app: Hono<E>): MiddlewareHandler {
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
  return csp;
}

/** Registers the console's page at `/` (after authentication: a caller without a credential is sent to the login page). */
export function registerConsolePage<E extends Env>(app: Hono<E>, csp: MiddlewareHandler): void {
  app.get("/", csp, (c) => c.html(CONSOLE_HTML));
}
