/**
 * isoagent/idb: the Store port on IndexedDB, for in-browser agents and
 * offline-capable web apps, and isoagent/otel's export cursor beside it.
 *
 * @module
 */
export { idbStore, type IdbStore, type IdbStoreOptions } from "./store.js";
export { DB_VERSION } from "./schema.js";
export { idbWorkspace, type IdbWorkspaceOptions } from "./workspace.js";
export { idbCursor, CURSOR_DB_VERSION, type IdbCursor, type IdbCursorOptions } from "./cursor.js";
