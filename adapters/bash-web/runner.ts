/**
 * bash's interpreter in a Web Worker: the worker is terminated at a
 * command's deadline, whatever the command does, and the page's event loop
 * never waits on it.
 */
import type { BashRunner, BashThread } from "../../src/toolkit/bash/index.js";

/** How `webWorkerRunner` starts the Web Worker the interpreter runs in. */
export interface WebWorkerRunnerOptions {
  /**
   * Starts the Web Worker that serves the interpreter: a module worker over
   * isoagent's `dist/browser/toolkit/bash-worker.js` (what the default
   * does), or your own build of `adapters/bash-web/thread.ts`. It must be a
   * script of the page's own origin (the CSP's `worker-src`, or
   * `script-src` when there is none, must allow it).
   *
   * @example
   * ```ts
   * create: () => new Worker("/assets/bash-worker.js", { type: "module" })
   * ```
   */
  readonly create?: (() => Worker) | undefined;
  /**
   * Told once when the worker cannot start (no Worker, its script not
   * found, refused by the CSP): commands then run in the page's thread,
   * under limits derived from their timeouts. Default: console.warn.
   */
  readonly onUnavailable?: ((error: unknown) => void) | undefined;
}

/** What a worker's error event says. */
function described(e: unknown): unknown {
  if (typeof e === "object" && e !== null && "message" in e && typeof (e as { message: unknown }).message === "string" && (e as { message: string }).message !== "")
    return new Error((e as { message: string }).message);
  return e instanceof Error ? e : new Error("the worker could not be started (its script failed to load or to run)");
}

/** The runner over the workers `create` starts. */
export function webRunnerOf(create: () => Worker, options: Pick<WebWorkerRunnerOptions, "onUnavailable"> = {}): BashRunner {
  return {
    start(): BashThread {
      const worker = create();
      return {
        postMessage: (m) => worker.postMessage(m),
        listen: (onMessage, onError) => {
          worker.addEventListener("message", (e) => onMessage(e.data));
          worker.addEventListener("messageerror", () => onError(new Error("a message from the worker could not be read")));
          worker.addEventListener("error", (e) => {
            e.preventDefault();
            onError(described(e));
          });
        },
        terminate: () => worker.terminate(),
      };
    },
    unavailable(error) {
      if (options.onUnavailable !== undefined) return options.onUnavailable(error);
      const why = error instanceof Error ? error.message : String(error);
      console.warn(
        `isoagent: bash's interpreter could not start in a Web Worker (${why}); commands run in the page's thread instead, under limits derived from their timeouts (see docs/tools/bash.md)`,
      );
    },
  };
}
