/**
 * isoagent/durable-object: one Durable Object per run (its store, over RPC,
 * and optionally its host), the index of runs, the Store client for drivers
 * elsewhere, and the HTTP app's backend on them.
 *
 * @module
 */
export { runObjectClass, artifactShard, type HostContext, type RunBindings, type RunNamespace, type RunObjectApi, type RunObjectClass, type RunObjectConfig, runObject } from "./run-object.js";
export { RunIndex } from "./index-object.js";
export { durableObjectStore, type DurableObjectStoreOptions } from "./client.js";
export { durableObjectBackend } from "./backend.js";
export { unwire, wire, type Wire } from "./wire.js";
export { workerApp, type WorkerEnv } from "./worker.js";
export { durableObjectSessions } from "./sessions.js";
export { sqlWorkspace, SQL_WORKSPACE_MAX_BYTES } from "./workspace.js";
export { sqlCursor, type RunObjectOtel } from "./otel.js";
