/**
 * isoagent/toolkit/bash as browsers resolve it: the same shell, whose
 * interpreter runs by default in a Web Worker of its own (terminated at
 * each command's deadline), when the page can start one. `runner:
 * "in_thread"` runs it in the page's thread instead.
 *
 * @module
 */
import { bashTool as baseBashTool, type BashRunner, type BashToolOptions } from "../../src/toolkit/bash/index.js";
import { webRunnerOf } from "./runner.js";

export * from "../../src/toolkit/bash/index.js";

let shared: BashRunner | undefined;

/** bash, with its interpreter in a Web Worker unless `runner` says otherwise, or the page has no Worker (see the core's bashTool). */
export function bashTool(options: BashToolOptions): ReturnType<typeof baseBashTool> {
  if (options.runner === undefined && typeof Worker === "function") {
    // In the package this module is dist/browser/toolkit/bash.js, beside the worker's module; written as bundlers look for it.
    shared ??= webRunnerOf(() => new Worker(new URL("./bash-worker.js", import.meta.url), { type: "module" }));
    return baseBashTool({ ...options, runner: shared });
  }
  return baseBashTool(options);
}
