/**
 * Safe retries of a run's creation: an idempotency key names the run.
 *
 * The run's id is derived from the caller (which configured token it holds,
 * never the token's value; or "a console session") and the key, so a retried create names the same run, and the
 * store's own atomic createRun decides a race: of two concurrent creates
 * with one key, one creates the run and the other finds it (RUN_EXISTS) and
 * returns it. There is no table of keys to keep consistent, to expire or to
 * grow: the run is the record of its key, kept as long as the run is (runs
 * are never deleted), so keys are bounded by the runs themselves. A key
 * reused with another task is refused (IDEMPOTENCY_KEY_REUSED), never
 * answered with a run made for something else.
 *
 * @module
 */
import { IsoagentError, isIsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import { canonicalJson, sha256HexSync, type JsonValue } from "../json/index.js";
import { encodeUtf8 } from "../web.js";

/** An idempotency key: 1 to 255 visible ASCII characters (a UUID is the usual choice). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The run a key names for a caller: `run_` and 40 hex digits of the SHA-256
 * of the caller and the key (a random run id has a UUID's hyphens, so the two
 * never meet). `caller` says who asks (a token, a session, a tab's app): the
 * same key from another caller names another run.
 */
export function idempotentRunId(caller: string, key: string): RunId {
  if (!IDEMPOTENCY_KEY.test(key)) throw new IsoagentError("IDEMPOTENCY_KEY_INVALID", "an idempotency key is 1 to 255 visible ASCII characters");
  return parseRunId(`run_${sha256HexSync(encodeUtf8(`isoagent idempotency\n${caller}\n${key}`)).slice(0, 40)}`);
}

/**
 * Creates the run `runId` for `task`, or finds it made by an earlier try
 * with the same key: `replayed` then. The same key with another task is
 * refused with IDEMPOTENCY_KEY_REUSED (409 over HTTP). `create` must refuse
 * an existing id with RUN_EXISTS (every store does); `taskOf` reads the
 * existing run's task.
 *
 * @example
 * ```ts
 * const runId = idempotentRunId(`tab:${appName}`, key)
 * const { replayed } = await createIdempotent(runId, task, (id) => driver.create(task, { runId: id }), async (id) => (await driver.state(id)).task)
 * ```
 */
export async function createIdempotent(
  runId: RunId,
  task: JsonValue,
  create: (runId: RunId) => Promise<RunId>,
  taskOf: (runId: RunId) => Promise<JsonValue>,
): Promise<{ runId: RunId; replayed: boolean }> {
  let made: RunId;
  try {
    made = await create(runId);
  } catch (e) {
    if (!isIsoagentError(e, "RUN_EXISTS")) throw e;
    if (canonicalJson(await taskOf(runId)) !== canonicalJson(task)) {
      throw new IsoagentError("IDEMPOTENCY_KEY_REUSED", "this idempotency key already created a run with another task; use a new key for a new run");
    }
    return { runId, replayed: true };
  }
  // A backend that ignored the id would make every retry another run.
  if (made !== runId) throw new IsoagentError("DRIVER_INVALID", `the backend created run ${made} when asked for ${runId}: it must create the run it is given`);
  return { runId, replayed: false };
}
