/**
 * just-bash's execution limits, by where the interpreter runs.
 *
 * In a thread of its own the command is stopped at its deadline from the
 * outside (the thread is terminated), so the limits only bound memory and
 * keep a runaway loop's output finite.
 *
 * In the owning thread (workerd, or a runner whose thread could not start)
 * nothing can stop a statement that never yields: just-bash checks its
 * deadline between statements only, and one statement (a sed branch loop,
 * an awk loop, a bash loop whose body never waits) runs for as long as its
 * limits let it. Those limits are derived from the call's timeout here, so
 * that each looping command's worst case at them ends within half the
 * timeout on the machine the bench measured, unloaded (bench/bash-deadline.ts
 * records each one's worst case ÷ timeout), and the interpreter's own
 * deadline is the other half: a command that starts just before it still
 * ends within the timeout. The rates below are per millisecond of that
 * half, measured there.
 */

/** The most simple commands (and loop iterations) one command may run in a thread of its own. */
export const MAX_COMMANDS_RUN = 1_000_000;

/** The limits of an interpreter in a thread of its own (stopped from outside at its deadline). */
export const THREAD_LIMITS: Readonly<Record<string, number>> = {
  maxCommandCount: MAX_COMMANDS_RUN,
  maxLoopIterations: MAX_COMMANDS_RUN,
  maxOutputSize: 64 * 1024 * 1024,
};

/** The in-thread interpreter's own deadline: half the timeout (the other half bounds the statement running at it). */
export function inThreadDeadline(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / 2));
}

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, Math.floor(v)));

/**
 * The limits of an interpreter in the owning thread, for a call of
 * `timeoutMs`; `b` below is half of it, in ms. Why each (costs measured by
 * bench/bash-deadline.ts on a 2-core machine, in Node, with the deadline out
 * of the way as in workerd):
 *
 * - maxCommandCount, maxLoopIterations: a bash loop costs 0.1 to 0.5 ms a
 *   command here, and grows quadratically when its body grows a string or
 *   an array it reads (`a+=(x)`, `s=$s.a; [[ $s == *b* ]]`): so √b.
 * - maxSedIterations (per input line) and maxAwkIterations (per loop): a
 *   sed branch loop that grows its buffer (the finding: `s/a/aa/; ba`) and
 *   an awk loop that grows and scans a string are quadratic: √b.
 * - maxStringLength: an awk gsub loop that doubles a string costs about
 *   5 µs per character up to the cap (and `yes` writes at most this much
 *   here): linear, 50 bytes per ms of b, 16 KiB at least.
 * - maxJqIterations, maxArrayElements, maxBraceExpansionResults: linear.
 */
export function inThreadLimits(timeoutMs: number): Readonly<Record<string, number>> {
  const b = inThreadDeadline(timeoutMs);
  const root = Math.sqrt(b);
  return {
    maxCommandCount: clamp(35 * root, 500, MAX_COMMANDS_RUN),
    maxLoopIterations: clamp(30 * root, 200, MAX_COMMANDS_RUN),
    maxSedIterations: clamp(100 * root, 200, 100_000),
    maxAwkIterations: clamp(200 * root, 1000, 100_000),
    maxJqIterations: clamp(100 * b, 10_000, 10_000_000),
    maxStringLength: clamp(50 * b, 16 * 1024, 64 * 1024 * 1024),
    maxArrayElements: clamp(50 * b, 10_000, 1_000_000),
    maxBraceExpansionResults: clamp(20 * b, 1000, 100_000),
    maxOutputSize: 64 * 1024 * 1024,
  };
}
