/**
 * Time in tests. No test waits on a fixed wall-clock budget that a busy
 * machine can miss: tests wait on states and events (`until`), and the
 * timeouts that remain (vitest's, playwright's, `until`'s) are all scaled by
 * one setting, ISOAGENT_TEST_TIMEOUT_SCALE (default 1; e.g. 3 on a loaded
 * machine or a slow CI runner).
 */

function readScale(): number {
  const raw = typeof process === "undefined" ? undefined : process.env["ISOAGENT_TEST_TIMEOUT_SCALE"];
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`ISOAGENT_TEST_TIMEOUT_SCALE must be a number above 0, not ${JSON.stringify(raw)}`);
  return n;
}

/** ISOAGENT_TEST_TIMEOUT_SCALE. */
export const TIMEOUT_SCALE = readScale();

/** A timeout, scaled by ISOAGENT_TEST_TIMEOUT_SCALE. */
export function scaled(ms: number): number {
  return Math.round(ms * TIMEOUT_SCALE);
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it returns something other than undefined or false,
 * and returns that. Gives up after `timeoutMs` (scaled; default 60 s),
 * throwing with `what` (called then, so it can say what was last seen): a
 * deadline, not a budget the test counts on (a passing test returns as soon
 * as the state is reached).
 */
export async function until<T>(what: string | (() => string), probe: () => Promise<T | undefined | false> | T | undefined | false, options: { timeoutMs?: number; everyMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + scaled(options.timeoutMs ?? 60_000);
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${scaled(options.timeoutMs ?? 60_000)} ms waiting for ${typeof what === "string" ? what : what()}`);
    await pause(options.everyMs ?? 50);
  }
}
