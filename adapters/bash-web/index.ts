/**
 * isoagent/toolkit/bash/web (browsers): bash's interpreter in a Web Worker
 * of its own. isoagent/toolkit/bash already uses it by default in browsers;
 * this entry is for choosing it explicitly, e.g. to start the worker from
 * a script your bundler emitted.
 *
 * @module
 */
import type { BashRunner } from "../../src/toolkit/bash/index.js";
import { webRunnerOf, type WebWorkerRunnerOptions } from "./runner.js";

export type { WebWorkerRunnerOptions } from "./runner.js";

/**
 * A runner that starts each interpreter in a module Web Worker, terminated
 * at its command's deadline.
 *
 * @example
 * ```ts
 * import { bashTool } from "isoagent/toolkit/bash";
 * import { webWorkerRunner } from "isoagent/toolkit/bash/web";
 * const bash = bashTool({ workspace: ws, runner: webWorkerRunner({ create: () => new Worker("/bash-worker.js", { type: "module" }) }) });
 * ```
 */
export function webWorkerRunner(options: WebWorkerRunnerOptions = {}): BashRunner {
  // In the package this module is dist/browser/toolkit/bash/web.js; the worker's, dist/browser/toolkit/bash-worker.js.
  // Written as bundlers look for it (Vite, webpack 5): they then bundle the worker's module too.
  return webRunnerOf(options.create ?? (() => new Worker(new URL("../bash-worker.js", import.meta.url), { type: "module" })), options);
}
