/**
 * The console's session ledger on Durable Objects: the run index's object
 * keeps the open sessions and login codes, so that a logout in one isolate
 * ends the session in every other, and a login code is spent once wherever
 * it is used.
 */
import type { SessionLedger } from "../../src/http/index.js";
import type { RunIndex } from "./index-object.js";

/**
 * @example
 * ```ts
 * const app = createHttpApp({ backend, tokens, sessions: durableObjectSessions(env.RUN_INDEX) })
 * ```
 */
export function durableObjectSessions(index: DurableObjectNamespace<RunIndex>): SessionLedger {
  const object = () => index.getByName("index");
  return {
    async put(id, expiresAt, now) {
      await object().sessionPut(id, expiresAt, now);
    },
    has: async (id, now) => object().sessionHas(id, now),
    take: async (id, now) => object().sessionTake(id, now),
  };
}
