/**
 * isoagent/store: the Store port whole, for store authors. The port and its
 * records (leases, guards, snapshots, artifacts, custody), its error codes,
 * the in-memory store, the shared checks every store makes the same way
 * (`checkBatch`, the one lease rule `leaseAcquire` / `leaseRenew` /
 * `leaseRelease`, `listedAfter`, `taskTitle`, custody's `checkOwned` and
 * `checkSeal`), and the clock leases are judged by. Its conformance suite
 * is in isoagent/testkit. An application needs only `memoryStore`,
 * `Store`, `RunSummary` and `LeaseView`, which the root exports.
 *
 * @module
 */
export * from "./port.js";
export { memoryStore, type MemoryStoreOptions } from "./memory.js";
export { checkBatch, checkFirst, checkLease, leaseAcquire, leaseHeld, leaseRelease, leaseRenew, leaseView, listedAfter, taskTitle } from "./checks.js";
export { checkOwned, checkSeal, type Custody } from "./custody.js";
export { systemClock, type Clock } from "../clock.js";
