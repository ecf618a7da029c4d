/**
 * isoagent/toolkit/bash: a sandboxed shell over the run's Workspace. The
 * interpreter (just-bash, a simulated bash with built-in commands and no
 * processes) loads lazily, in a chunk of its own, on the first command;
 * this entry itself is small. Its contract is in docs/tools/bash.md.
 *
 * @module
 */
export { bashTool, BASH_COMMANDS, commandResources, type BashNetworkOptions, type BashToolOptions } from "./tool.js";
export { BASH_MAX_BYTES, BASH_MAX_LINES } from "./output.js";
export { analyzeCommand, type CommandAnalysis, type NamedPath, type PathOperation } from "./words.js";
export type { BashRunner, BashThread, InterpreterEndpoint } from "./protocol.js";
export { inThreadDeadline, inThreadLimits, THREAD_LIMITS } from "./limits.js";
