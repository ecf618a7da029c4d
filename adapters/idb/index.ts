/**
 * isoagent/idb: the Store port on IndexedDB, for in-browser agents and
 * offline-capable web apps.
 *
 * @module
 */
export { idbStore, type IdbStore, type IdbStoreOptions } from "./store.js";
export { DB_VERSION } from "./schema.js";
export { idbWorkspace, type IdbWorkspaceOptions } from "./workspace.js";
