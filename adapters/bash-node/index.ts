/**
 * isoagent/toolkit/bash/node (Node only): bash's interpreter in a worker
 * thread of its own. isoagent/toolkit/bash already uses it by default in
 * Node; this entry is for choosing it explicitly (another module URL,
 * memory limits), e.g. when isoagent is bundled into one file.
 *
 * @module
 */
import type { BashRunner } from "../../src/toolkit/bash/index.js";
import { nodeRunnerAt, type NodeWorkerRunnerOptions } from "./runner.js";

export type { NodeWorkerRunnerOptions } from "./runner.js";

/**
 * A runner that starts each interpreter in a node:worker_threads Worker,
 * terminated at its command's deadline.
 *
 * @example
 * ```ts
 * import { bashTool } from "isoagent/toolkit/bash";
 * import { nodeWorkerRunner } from "isoagent/toolkit/bash/node";
 * const bash = bashTool({ workspace: ws, runner: nodeWorkerRunner({ url: new URL("./bash-worker.js", import.meta.url) }) });
 * ```
 */
export function nodeWorkerRunner(options: NodeWorkerRunnerOptions = {}): BashRunner {
  // In the package this module is dist/node/toolkit/bash/node.js; the worker's, dist/node/toolkit/bash-worker.js.
  return nodeRunnerAt(options.url ?? new URL("../bash-worker.js", import.meta.url), options);
}
