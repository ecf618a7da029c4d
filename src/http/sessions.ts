/**
 * Where the console's sessions and one-time login codes are kept, so that
 * a logout ends a session on the server and a code works once.
 *
 * The cookie and the code are signed (auth.ts), so nothing unsigned ever
 * reaches the ledger; the ledger only says which signed ones are still
 * open. It is an allowlist: a session or code the ledger does not hold is
 * refused, so a ledger that loses its contents (a restarted process with
 * the memory ledger) logs everyone out rather than letting a logged-out
 * cookie back in.
 */

/**
 * The console's sessions and login codes that are still open, by id. Every
 * app (every process, every isolate) that serves one console must share
 * one: the Worker keeps it in the run index's Durable Object
 * (`durableObjectSessions`); `memorySessions()` is one process's.
 *
 * @example
 * ```ts
 * const sessions = memorySessions() // one process; pass a shared one to several
 * const app = createHttpApp({ backend, tokens, sessions })
 * ```
 */
export interface SessionLedger {
  /** Keeps `id` open until `expiresAt` (milliseconds since the epoch, by the app's clock); what expired before `now` may be forgotten. */
  put(id: string, expiresAt: number, now: number): Promise<void>;
  /** Whether `id` is open at `now` (kept, and not expired). */
  has(id: string, now: number): Promise<boolean>;
  /**
   * Closes `id`: true when it was open at `now`. Of concurrent takes of one
   * id, exactly one gets true (a code is spent once).
   */
  take(id: string, now: number): Promise<boolean>;
}

/** Ids a memory ledger keeps at most: past it, the oldest are closed first (their sessions end). */
export const MEMORY_SESSIONS_MAX = 100_000;

/**
 * A ledger in this process's memory: the default of `createHttpApp`. Its
 * sessions end when the process does, and another process does not see
 * them (a console behind a balancer over several processes needs a shared
 * ledger: a table in their database, say).
 */
export function memorySessions(options: { readonly max?: number } = {}): SessionLedger {
  const max = options.max ?? MEMORY_SESSIONS_MAX;
  const open = new Map<string, number>();
  return {
    async put(id, expiresAt, now) {
      if (open.size >= max) {
        // The expired ones first; then the oldest, in the order they were opened.
        for (const [k, until] of open) if (until <= now) open.delete(k);
        for (const k of open.keys()) {
          if (open.size < max) break;
          open.delete(k);
        }
      }
      open.set(id, expiresAt);
    },
    async has(id, now) {
      const until = open.get(id);
      if (until === undefined) return false;
      if (until > now) return true;
      open.delete(id);
      return false;
    },
    async take(id, now) {
      const until = open.get(id);
      open.delete(id);
      return until !== undefined && until > now;
    },
  };
}
