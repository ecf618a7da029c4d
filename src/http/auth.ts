/**
 * Who may call the HTTP app, and how a browser proves it without handing a
 * cross-site page its ambient credentials:
 *
 * - API clients send `Authorization: Bearer <token>`.
 * - The console has its own session: a signed cookie (`isoagent_session`)
 *   holding an expiry and a random nonce, HMAC-SHA-256 under the token that
 *   logged it in. It is never the token itself, it expires, a logout clears
 *   it, and rotating the token ends every session made with the old one.
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

/** A new session cookie value for a token: `v1.<expiry ms>.<nonce>.<hmac>`. */
export async function newSession(token: string, now: number, ttlMs: number): Promise<string> {
  const payload = `v1.${Math.floor(now + ttlMs)}.${hex(randomBytes(16))}`;
  return `${payload}.${await signature(token, payload)}`;
}

/** Whether a session cookie value is one of ours, unexpired, signed under a token still accepted. */
export async function sessionOk(value: string | undefined, tokens: readonly string[], now: number): Promise<boolean> {
  if (value === undefined) return false;
  const m = /^(v1\.(\d{1,16})\.([0-9a-f]{32}))\.([0-9a-f]{64})$/.exec(value);
  if (m === null) return false;
  const [, payload, expiry, , sig] = m;
  if (Number(expiry) <= now) return false;
  let ok = false;
  for (const t of tokens) if (t !== "" && (await timingSafeEqual(sig!, await signature(t, payload!)))) ok = true;
  return ok;
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
