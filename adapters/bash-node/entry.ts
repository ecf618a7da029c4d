/**
 * isoagent/toolkit/bash as Node resolves it: the same shell, whose
 * interpreter runs by default in a worker thread of its own (terminated at
 * each command's deadline). `runner: "in_thread"` runs it in the calling
 * thread instead.
 *
 * @module
 */
import { bashTool as baseBashTool, type BashRunner, type BashToolOptions } from "../../src/toolkit/bash/index.js";
import { nodeRunnerAt } from "./runner.js";

export * from "../../src/toolkit/bash/index.js";

let shared: BashRunner | undefined;

/** bash, with its interpreter in a worker thread unless `runner` says otherwise (see the core's bashTool). */
export function bashTool(options: BashToolOptions): ReturnType<typeof baseBashTool> {
  // In the package this module is dist/node/toolkit/bash.js, beside the worker's module.
  return baseBashTool({ ...options, runner: options.runner ?? (shared ??= nodeRunnerAt(new URL("./bash-worker.js", import.meta.url))) });
}
