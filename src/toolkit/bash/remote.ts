/**
 * The owning thread's side of an interpreter that runs in a thread of its
 * own: it starts (or reuses) a thread, hands it the command, serves its
 * file operations on the command's WorkspaceFs and curl's requests through
 * the command's fetch (each decided here, by the same code as in-thread),
 * and stops the thread at the deadline. The owning thread's event loop is
 * never blocked by the command: timers, lease renewals and other runs go
 * on while it runs.
 */
import { after, type AbortSignalLike } from "../../web.js";
import { wireError, type WorkspaceFs } from "./fs.js";
import type { InterpretJob, Interpreted } from "./interpret.js";
import type { JbSecureFetch } from "./just-bash.js";
import { fetchArgs, fsArgs, interpreted, ProtocolError, wireFetchResult, type BashRunner, type BashThread, type ToThread } from "./protocol.js";

/** How a command in a thread came out. */
export type RemoteOutcome =
  | { readonly kind: "done"; readonly result: Interpreted }
  /** Stopped at the deadline: the thread was terminated. */
  | { readonly kind: "stopped" }
  /** Cancelled: the thread was terminated. */
  | { readonly kind: "cancelled" }
  /** No thread could start: run it in the owning thread instead. */
  | { readonly kind: "unavailable" }
  /** The thread died, failed in the interpreter, or broke the protocol. */
  | { readonly kind: "failed" };

const IDLE_MAX = 2;

interface Lane {
  readonly thread: BashThread;
  /** True once the interpreter said it is ready; false when it never will be. */
  readonly ready: Promise<boolean>;
  handler: ((m: unknown) => void) | undefined;
  died: ((e: unknown) => void) | undefined;
  dead: boolean;
}

interface Pool {
  readonly idle: Lane[];
  unavailable: boolean;
}

const pools = new WeakMap<BashRunner, Pool>();

function poolOf(runner: BashRunner): Pool {
  let p = pools.get(runner);
  if (p === undefined) pools.set(runner, (p = { idle: [], unavailable: false }));
  return p;
}

/** Whether this runner could not start a thread before (the shell then runs in the owning thread). */
export function runnerUnavailable(runner: BashRunner): boolean {
  return poolOf(runner).unavailable;
}

function startLane(runner: BashRunner): Lane {
  let resolveReady!: (ok: boolean) => void;
  const ready = new Promise<boolean>((r) => (resolveReady = r));
  let thread: BashThread;
  try {
    thread = runner.start();
  } catch (e) {
    const lane: Lane = { thread: { postMessage() {}, listen() {}, terminate() {} }, ready: Promise.resolve(false), handler: undefined, died: undefined, dead: true };
    markUnavailable(runner, e);
    return lane;
  }
  const lane: Lane = { thread, ready, handler: undefined, died: undefined, dead: false };
  let started = false;
  thread.listen(
    (m) => {
      if (!started) {
        started = true;
        const ok = typeof m === "object" && m !== null && (m as { t?: unknown }).t === "ready";
        if (!ok) {
          lane.dead = true;
          thread.terminate();
          markUnavailable(runner, new Error(`the interpreter's thread could not load the shell: ${String((m as { message?: unknown } | null)?.message ?? "no reason given")}`));
        }
        resolveReady(ok);
        return;
      }
      lane.handler?.(m);
    },
    (e) => {
      lane.dead = true;
      if (!started) {
        started = true;
        markUnavailable(runner, e);
        resolveReady(false);
        return;
      }
      lane.died?.(e);
    },
  );
  return lane;
}

function markUnavailable(runner: BashRunner, e: unknown): void {
  const pool = poolOf(runner);
  if (pool.unavailable) return;
  pool.unavailable = true;
  try {
    runner.unavailable?.(e);
  } catch {
    // a report, not a decision
  }
}

let nextRun = 0;

/**
 * Runs `job` in a thread of `runner`, serving its file operations on `fs`
 * and its requests through `fetch`; the thread is terminated at `stopAfterMs`
 * (from now) or when `signal` aborts.
 */
export async function runRemote(
  runner: BashRunner,
  job: InterpretJob,
  fs: WorkspaceFs,
  fetch: JbSecureFetch | undefined,
  signal: AbortSignalLike | undefined,
  stopAfterMs: number,
): Promise<RemoteOutcome> {
  const pool = poolOf(runner);
  if (pool.unavailable) return { kind: "unavailable" };
  let lane = pool.idle.pop();
  while (lane?.dead === true) lane = pool.idle.pop();
  lane ??= startLane(runner);
  const l = lane;
  l.thread.keepAlive?.(true);
  const run = ++nextRun;
  const allowed = new Set([...job.commands, "yes", ...(job.network ? ["curl"] : [])]);
  return new Promise<RemoteOutcome>((resolve) => {
    let settled = false;
    // Until the command is handed over, the thread runs nothing of it: stopped or cancelled then, it is kept (a cold start is not lost).
    let posted = false;
    const end = (outcome: RemoteOutcome, keep: boolean): void => {
      if (settled) return;
      settled = true;
      cancelTimer();
      signal?.removeEventListener("abort", onAbort);
      l.handler = undefined;
      l.died = undefined;
      if (keep && !l.dead && pool.idle.length < IDLE_MAX) {
        l.thread.keepAlive?.(false);
        pool.idle.push(l);
      } else {
        l.dead = true;
        l.thread.terminate();
        // A thread stopped at a deadline is replaced at once, in the background: the next command does not wait for a cold start.
        if ((outcome.kind === "stopped" || outcome.kind === "cancelled") && !pool.unavailable && pool.idle.length < IDLE_MAX) {
          const spare = startLane(runner);
          spare.thread.keepAlive?.(false);
          pool.idle.push(spare);
        }
      }
      resolve(outcome);
    };
    const cancelTimer = after(stopAfterMs, () => end({ kind: "stopped" }, !posted));
    const onAbort = (): void => end({ kind: "cancelled" }, !posted);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted === true) return onAbort();
    const reply = (m: ToThread): void => {
      if (!settled) l.thread.postMessage(m);
    };
    const serve = (id: number, work: () => Promise<unknown>): void => {
      work().then(
        (value) => reply({ t: "reply", run, id, ok: true, value }),
        (e: unknown) => reply({ t: "reply", run, id, ok: false, error: wireError(e) }),
      );
    };
    l.died = () => end({ kind: "failed" }, false);
    l.handler = (raw) => {
      try {
        if (typeof raw !== "object" || raw === null) throw new ProtocolError("a message is not an object");
        const m = raw as Record<string, unknown>;
        // What an earlier command's late continuation still asks is not this command's.
        if (m["run"] !== run) {
          if (typeof m["run"] === "number" && m["run"] < run) return;
          throw new ProtocolError("a message names no command that runs");
        }
        if (typeof m["id"] !== "number" && (m["t"] === "fs" || m["t"] === "fetch")) throw new ProtocolError("a request has no id");
        switch (m["t"]) {
          case "fs": {
            const { method, args } = fsArgs(m["method"], m["args"]);
            serve(m["id"] as number, async () => (fs[method] as (...a: unknown[]) => Promise<unknown>).apply(fs, args));
            return;
          }
          case "fetch": {
            if (fetch === undefined) throw new ProtocolError("a request without a network");
            const { url, options } = fetchArgs(m["url"], m["options"]);
            serve(m["id"] as number, async () => wireFetchResult(await fetch(url, options)));
            return;
          }
          case "done":
            return end({ kind: "done", result: interpreted(m["result"], allowed) }, true);
          case "failed":
            return end({ kind: "failed" }, false);
          default:
            throw new ProtocolError("not a message of the protocol");
        }
      } catch {
        // A thread that breaks the protocol is not used again, and its command ends.
        end({ kind: "failed" }, false);
      }
    };
    void l.ready.then((ok) => {
      if (settled) return;
      if (!ok) return end({ kind: "unavailable" }, false);
      posted = true;
      l.thread.postMessage({ t: "run", run, job } satisfies ToThread);
    });
  });
}
