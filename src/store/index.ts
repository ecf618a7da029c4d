/**
 * The Store port and the in-memory store.
 *
 * @module
 */
export * from "./port.js";
export { memoryStore, type MemoryStoreOptions } from "./memory.js";
export { checkBatch, checkFirst, checkLease, leaseAcquire, leaseHeld, leaseRelease, leaseRenew, leaseView, listedAfter, taskTitle } from "./checks.js";
export { checkOwned, checkSeal, type Custody } from "./custody.js";
