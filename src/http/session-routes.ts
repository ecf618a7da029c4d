/**
 * The console's session on the HTTP app: logging in (with the token, or a
 * one-time login code), checking a request's cookie, logging out, and
 * minting login codes. What is open lives in a {@link SessionLedger}:
 *
 * - `POST /login {token}` or `{code}` (same-origin JSON) opens a session:
 *   a signed cookie, open in the ledger until it expires (12 h) or is
 *   logged out.
 * - A cookie is accepted while it is signed under a token still accepted,
 *   unexpired, and open in the ledger: a logout or a rotated token ends it
 *   at once, for every copy of it.
 * - `POST /login/code` (an operator's bearer token) makes a code that logs
 *   in once, within a minute: what a printed login link carries instead of
 *   the token, which a browser would keep in its history files.
 * - A live event stream opened with a session ends, at its next ping, once
 *   the session has.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Clock } from "../clock.js";
import { newLoginCode, newSession, readLoginCode, readSession, SESSION_COOKIE, tokenOk, type Signed } from "./auth.js";
import type { SessionLedger } from "./sessions.js";
import type { EventStreamBody } from "./stream.js";
import { HttpError, LOGIN, readBody } from "./wire.js";

export interface SessionRules {
  readonly ledger: SessionLedger;
  readonly tokens: () => readonly string[];
  readonly clock: Clock;
  readonly sessionTtlMs: number;
  readonly loginCodeTtlMs: number;
  /** The app's origin (for the cookie's Secure flag and the code's link). */
  readonly originOf: (c: Context) => string;
}

const CODE_INVALID = "this login link was used already, or has expired (a link works once, within a minute of being made): make a new one, or log in with the token";

/** The console's session rules over a ledger (see the module's comment). */
export function consoleSessions(rules: SessionRules) {
  const { ledger, clock } = rules;
  const secure = (c: Context): boolean => rules.originOf(c).startsWith("https:");
  return {
    /** `POST /login`: a token or a code for a session cookie (the caller checked the origin and the content type). */
    async login(c: Context) {
      const b = await readBody(c, LOGIN);
      const now = clock.now();
      const tokens = rules.tokens();
      let token: string;
      if (typeof b["code"] === "string") {
        const code = await readLoginCode(b["code"], tokens, now);
        // Spent here, once: of two logins with one code, one gets the session.
        if (code === undefined || !(await ledger.take(code.id, now))) throw new HttpError("LOGIN_CODE_INVALID", CODE_INVALID);
        token = code.token;
      } else {
        if (!(await tokenOk(String(b["token"]), tokens))) throw new HttpError("UNAUTHORIZED", "a valid token is required");
        token = String(b["token"]);
      }
      const session = await newSession(token, now, rules.sessionTtlMs);
      await ledger.put(session.id, session.expiresAt, now);
      setCookie(c, SESSION_COOKIE, session.value, { httpOnly: true, sameSite: "Strict", path: "/", secure: secure(c), maxAge: Math.floor(rules.sessionTtlMs / 1000) });
      return c.body(null, 204);
    },

    /** The request's session, when its cookie is signed, unexpired, under a token still accepted, and open. */
    async session(c: Context): Promise<Signed | undefined> {
      const now = clock.now();
      const s = await readSession(getCookie(c, SESSION_COOKIE), rules.tokens(), now);
      return s !== undefined && (await ledger.has(s.id, now)) ? s : undefined;
    },

    /** `POST /logout`: closes the request's session (any copy of the cookie is refused from now on) and clears the cookie. */
    async logout(c: Context, session: Signed | undefined) {
      const now = clock.now();
      // With a bearer token, the cookie sent beside it (if it is one of ours) ends too.
      const s = session ?? (await readSession(getCookie(c, SESSION_COOKIE), rules.tokens(), now));
      if (s !== undefined) await ledger.take(s.id, now);
      deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict", secure: secure(c) });
      return c.body(null, 204);
    },

    /** `POST /login/code`: a one-time login code for the operator token the request bears (the caller checked it is one). */
    async mintCode(c: Context, token: string) {
      const now = clock.now();
      const code = await newLoginCode(token, now, rules.loginCodeTtlMs);
      await ledger.put(code.id, code.expiresAt, now);
      return c.json({ code: code.value, expiresAt: code.expiresAt, login: `${rules.originOf(c)}/login#code=${code.value}` }, 201);
    },

    /**
     * A live stream opened with `session`, ended once the session is: it
     * looks at the ledger at most every `everyMs` (the keep-alive period,
     * so a quiet stream still looks), before it passes a chunk on.
     */
    guard(body: EventStreamBody, session: Signed, everyMs: number): EventStreamBody {
      const open = async (): Promise<boolean> => {
        const now = clock.now();
        return now < session.expiresAt && rules.tokens().includes(session.token) && (await ledger.has(session.id, now));
      };
      return whileOpen(body, open, everyMs, () => clock.now());
    },
  };
}

interface Reader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}
interface Controller {
  enqueue(chunk: Uint8Array): void;
  close(): void;
}
type Streams = new (source: { pull(c: Controller): Promise<void>; cancel(reason?: unknown): Promise<void> }, strategy: { highWaterMark: number }) => EventStreamBody;

/** `body`, ended (its source cancelled) at the first chunk read after `open()` says no, asked at most every `everyMs`. */
function whileOpen(body: EventStreamBody, open: () => Promise<boolean>, everyMs: number, now: () => number): EventStreamBody {
  const reader = (body as unknown as { getReader(): Reader }).getReader();
  const RS = (globalThis as unknown as { ReadableStream: Streams }).ReadableStream;
  let checked = now();
  return new RS(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) return controller.close();
        if (now() - checked >= everyMs) {
          checked = now();
          if (!(await open())) {
            await reader.cancel("the session ended");
            return controller.close();
          }
        }
        controller.enqueue(next.value!);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
