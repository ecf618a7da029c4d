/**
 * Who may call the HTTP app, and how a browser proves it without handing a
 * cross-site page its ambient credentials:
 *
 * - API clients send `Authorization: Bearer <token>`.
 * - The console has its own session: a signed cookie (`isoagent_session`)
 *   holding an expiry and a random nonce, HMAC-SHA-256 under the token that
 *   logged it in, and open in the session ledger (sessions.ts) until it
 *   expires or is logged out. It is never the token itself, and rotating
 *   the token ends every session made with the old one.
 * - A one-time login code (`c1....`, signed the same way, open in the
 *   ledger for a minute) is what a login link carries instead of the token:
 *   the login page exchanges it for a session, once.
 * - A write authenticated by the cookie must come from the app's own origin
 *   (`Origin` equal to it, or, without Origin, `Sec-Fetch-Site:
 *   same-origin`); anything else is 403 CSRF_REFUSED. SameSite=Strict alone
 *   lets another port or a sibling subdomain of the same site through.
 */
import { timingSafeEqual } from "hono/utils/buffer";
import { encodeUtf8, hmacSha256, randomBytes } from "../web.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "isoagent_session";
/** How long a console session lasts by default: 12 hours. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

async function signature(token: string, payload: string): Promise<string> {
  return hex(await hmacSha256(encodeUtf8(token), encodeUtf8(`isoagent-session.${payload}`)));
}

/** A signed value of ours, read: its id in the session ledger, the token that signed it, its expiry. */
export interface Signed {
  readonly id: string;
  readonly token: string;
  readonly expiresAt: number;
}

/** How long a one-time login code lasts by default: one minute. */
export const DEFAULT_LOGIN_CODE_TTL_MS = 60_000;

/** `<kind>.<expiry ms>.<nonce>.<hmac>`, signed under the token: `v1` a session cookie, `c1` a login code. */
async function sign(kind: "v1" | "c1", token: string, now: number, ttlMs: number): Promise<Signed & { readonly value: string }> {
  const nonce = hex(randomBytes(16));
  const expiresAt = Math.floor(now + ttlMs);
  const payload = `${kind}.${expiresAt}.${nonce}`;
  return { value: `${payload}.${await signature(token, payload)}`, id: `${kind === "v1" ? "session" : "code"}:${nonce}`, token, expiresAt };
}

/** Reads a signed value of `kind`: undefined unless it is ours, unexpired at `now` and signed under one of `tokens`. */
async function verify(kind: "v1" | "c1", value: string | undefined, tokens: readonly string[], now: number): Promise<Signed | undefined> {
  if (value === undefined) return undefined;
  const m = /^([vc]1)\.(\d{1,16})\.([0-9a-f]{32})\.([0-9a-f]{64})$/.exec(value);
  if (m === null || m[1] !== kind) return undefined;
  const [, , expiry, nonce, sig] = m;
  if (Number(expiry) <= now) return undefined;
  const payload = `${kind}.${expiry}.${nonce}`;
  // Every token is tried (constant time per token), so the timing says nothing of which signed it.
  let by: string | undefined;
  for (const t of tokens) if (t !== "" && (await timingSafeEqual(sig!, await signature(t, payload))) && by === undefined) by = t;
  return by === undefined ? undefined : { id: `${kind === "v1" ? "session" : "code"}:${nonce}`, token: by, expiresAt: Number(expiry) };
}

/** A new session cookie value for a token: `v1.<expiry ms>.<nonce>.<hmac>`, with its id in the ledger. */
export const newSession = (token: string, now: number, ttlMs: number): Promise<Signed & { readonly value: string }> => sign("v1", token, now, ttlMs);

/** A session cookie value, read: undefined unless it is ours, unexpired and signed under a token still accepted (open or not: the ledger says). */
export const readSession = (value: string | undefined, tokens: readonly string[], now: number): Promise<Signed | undefined> => verify("v1", value, tokens, now);

/** A new one-time login code for a token: `c1.<expiry ms>.<nonce>.<hmac>`, with its id in the ledger. */
export const newLoginCode = (token: string, now: number, ttlMs: number): Promise<Signed & { readonly value: string }> => sign("c1", token, now, ttlMs);

/** A login code, read, as {@link readSession} reads a cookie. */
export const readLoginCode = (value: string | undefined, tokens: readonly string[], now: number): Promise<Signed | undefined> => verify("c1", value, tokens, now);

/** Whether `given` is one of the tokens, compared in constant time (every token is compared, so the timing says nothing). */
export async function tokenOk(given: string | undefined, tokens: readonly string[]): Promise<boolean> {
  return (await tokenIndex(given, tokens)) >= 0;
}

/** Which of `tokens` is `given` (its first place), or -1; every token is compared (constant time per token). */
export async function tokenIndex(given: string | undefined, tokens: readonly string[]): Promise<number> {
  if (given === undefined || given === "") return -1;
  let found = -1;
  for (let k = 0; k < tokens.length; k++) if (tokens[k] !== "" && (await timingSafeEqual(given, tokens[k]!)) && found < 0) found = k;
  return found;
}

/** Methods that change something: a cookie-authenticated one must be same-origin. */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Whether a request comes from `origin` itself: its Origin header equals it,
 * or (a browser that sends no Origin) Sec-Fetch-Site says same-origin. A
 * request with neither is refused: every browser that sends cookies sends one
 * of them on a write.
 */
export function sameOrigin(headers: { get(name: string): string | null | undefined }, origin: string): boolean {
  const o = headers.get("origin");
  if (o !== null && o !== undefined) return o === origin;
  return headers.get("sec-fetch-site") === "same-origin";
}

/** Whether a content type is JSON (`application/json`, with or without parameters). */
export function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}
