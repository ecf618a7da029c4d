import { describe, expect, it } from "vitest";
import type { RunId } from "../../src/index.js";
import { leaseAcquire, leaseHeld, leaseRelease, leaseRenew, leaseView, type Lease } from "../../src/store/index.js";

// The one lease rule every store applies (memory, IndexedDB, a Durable
// Object's SQLite): pure functions of the run's lease record and the store's clock.
const runId = "run_1" as RunId;
const held: Lease = { runId, owner: "a", token: 3, expiresAt: 1_000 };

describe("the lease rule", () => {
  it("acquire: free, expired, or the owner's own lease is taken with the next token; a live one of another owner is refused unless its holder is known dead", () => {
    expect(leaseAcquire(undefined, 0, { runId, owner: "a", ttlMs: 100, now: 50 })).toEqual({ runId, owner: "a", token: 1, expiresAt: 150 });
    expect(leaseAcquire(held, 3, { runId, owner: "b", ttlMs: 100, now: 999 })).toBeNull();
    // A lease still recorded was never released: the one that replaces it says whose it was (issue 26).
    const took = { holder: "a", expiresAt: 1_000 };
    expect(leaseAcquire(held, 3, { runId, owner: "b", ttlMs: 100, now: 1_000 })).toEqual({ runId, owner: "b", token: 4, expiresAt: 1_100, took });
    expect(leaseAcquire(held, 3, { runId, owner: "a", ttlMs: 100, now: 500 })).toEqual({ runId, owner: "a", token: 4, expiresAt: 600, took });
    expect(leaseAcquire(held, 7, { runId, owner: "b", ttlMs: 100, now: 500, dead: (h) => h === "a" })).toEqual({ runId, owner: "b", token: 8, expiresAt: 600, took });
    expect(leaseAcquire(held, 7, { runId, owner: "b", ttlMs: 100, now: 500, dead: (h) => h === "c" })).toBeNull();
    // Only the replaced lease's holder and expiry: never what it had taken over itself.
    expect(leaseAcquire({ ...held, took: { holder: "z", expiresAt: 1 } }, 3, { runId, owner: "b", ttlMs: 100, now: 2_000 })).toEqual({ runId, owner: "b", token: 4, expiresAt: 2_100, took });
  });

  it("renew: only the current token, only unexpired; release: only the current token", () => {
    expect(leaseRenew(held, held, 100, 999)).toEqual({ ...held, expiresAt: 1_099 });
    expect(leaseRenew(held, held, 100, 1_000)).toBeNull();
    expect(leaseRenew(held, { ...held, token: 2 }, 100, 10)).toBeNull();
    expect(leaseRenew(undefined, held, 100, 10)).toBeNull();
    expect(leaseRelease(held, held)).toBe(true);
    expect(leaseRelease(held, { ...held, token: 2 })).toBe(false);
    expect(leaseRelease(undefined, held)).toBe(false);
    expect(leaseHeld(held, 3, 999)).toBe(true);
    expect(leaseHeld(held, 3, 1_000)).toBe(false);
  });

  it("view: who holds it and until when, expired or not; none when there is no record", () => {
    expect(leaseView(held)).toEqual({ holder: "a", expiresAt: 1_000 });
    expect(leaseView(undefined)).toBeNull();
  });
});
