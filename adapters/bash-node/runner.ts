/**
 * bash's interpreter in a Node worker thread (node:worker_threads): the
 * thread is terminated at a command's deadline, whatever the command does,
 * and the calling thread's event loop never waits on it.
 */
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { BashRunner, BashThread } from "../../src/toolkit/bash/index.js";

/** How `nodeWorkerRunner` starts the worker thread the interpreter runs in: its module and its memory limits. */
export interface NodeWorkerRunnerOptions {
  /**
   * The worker thread's module: isoagent's `dist/node/toolkit/bash-worker.js`
   * (the default), or your own build of `adapters/bash-node/thread.ts` when
   * you bundle isoagent into one file.
   */
  readonly url?: URL | string | undefined;
  /** The thread's memory limits (node:worker_threads' resourceLimits). Default: Node's. */
  readonly resourceLimits?: ResourceLimits | undefined;
  /**
   * Told once when the thread cannot start: commands then run in the calling
   * thread, under limits derived from their timeouts. Default: a process
   * warning (`process.emitWarning`).
   */
  readonly onUnavailable?: ((error: unknown) => void) | undefined;
}

/** The runner over the worker module at `url`. */
export function nodeRunnerAt(url: URL | string, options: NodeWorkerRunnerOptions = {}): BashRunner {
  return {
    start(): BashThread {
      const worker = new Worker(url, options.resourceLimits === undefined ? {} : { resourceLimits: options.resourceLimits });
      return {
        postMessage: (m) => worker.postMessage(m),
        listen: (onMessage, onError) => {
          worker.on("message", onMessage);
          worker.on("error", onError);
          worker.on("messageerror", onError);
          worker.on("exit", (code) => onError(new Error(`the interpreter's worker thread exited (code ${code})`)));
        },
        terminate: () => void worker.terminate(),
        keepAlive: (busy) => (busy ? worker.ref() : worker.unref()),
      };
    },
    unavailable(error) {
      if (options.onUnavailable !== undefined) return options.onUnavailable(error);
      const why = error instanceof Error ? error.message : String(error);
      process.emitWarning(
        `bash's interpreter could not start in a worker thread (${why}); commands run in the calling thread instead, under limits derived from their timeouts (see docs/tools/bash.md)`,
        { code: "ISOAGENT_BASH_IN_THREAD" },
      );
    },
  };
}
