/**
 * isoagent/http: the runs API and the operator console, as a hono app that
 * is the same on Workers and in Node.
 *
 * @module
 */
export { createHttpApp, type AppVariables, type HttpAppOptions, type McpEndpoint, type Scope } from "./app.js";
export { driverBackend, type RunProblem, type RunsBackend } from "./backend.js";
export { DEFAULT_LOGIN_CODE_TTL_MS, DEFAULT_SESSION_TTL_MS, SESSION_COOKIE } from "./auth.js";
export { MEMORY_SESSIONS_MAX, memorySessions, type SessionLedger } from "./sessions.js";
export { createIdempotent, IDEMPOTENCY_KEY, idempotentRunId } from "./idempotency.js";
export { journalStream, type EventStreamBody, type JournalFeed, type JournalStreamOptions } from "./stream.js";
export { registerMoveRoutes, type MoveBackend } from "./move-routes.js";
export { storeMoveBackend, type StoreMoveOptions } from "./move-backend.js";
