/**
 * The refusals a route makes before it reads anything, named once for
 * every file of routes: a body past its size limit (413), a body that is
 * not JSON (415), a cookie write from another origin (403 CSRF_REFUSED),
 * and a run token where the operator scope is needed (403
 * OPERATOR_SCOPE_REQUIRED).
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isJson, sameOrigin } from "./auth.js";
import { errorBody, HttpError } from "./wire.js";

/** Middleware refusing (413 BODY_TOO_LARGE) a body larger than `maxBytes`. */
export const bodyCap = (maxBytes: number) => bodyLimit({ maxSize: maxBytes, onError: (c) => c.json(errorBody("BODY_TOO_LARGE", `the body is larger than ${maxBytes} bytes`), 413) });

/** Refuses (415) a body not sent as JSON. */
export function jsonOnly(c: Context): void {
  if (!isJson(c.req.header("content-type"))) throw new HttpError("UNSUPPORTED_MEDIA_TYPE", "the body must be JSON, sent with content-type: application/json");
}

/** Writes made with the cookie come from the console's own pages only: refuses (403) a request from another origin than `originOf` says. */
export const sameOriginOnly =
  (originOf: (c: Context) => string) =>
  (c: Context): void => {
    if (!sameOrigin(c.req.raw.headers, originOf(c))) throw new HttpError("CSRF_REFUSED", "a write with the console's session must come from the console's own origin");
  };

/** Refuses (403) a caller without the operator scope; `what` says what a run token may not do. */
export function requireOperator(c: Context, what: string): void {
  if (c.get("scope") !== "operator") throw new HttpError("OPERATOR_SCOPE_REQUIRED", `this token may create and read runs, not ${what}: that needs an operator token`);
}

/** Middleware letting only the operator scope through (see {@link requireOperator}). */
export const operatorOnly =
  (what: string) =>
  async (c: Context, next: () => Promise<void>): Promise<void> => {
    requireOperator(c, what);
    await next();
  };
