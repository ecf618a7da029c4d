import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { runStoreConformance } from "../../src/testkit/index.js";

describe("memory store", () => {
  runStoreConformance({
    name: "memory",
    test: it,
    create: () => {
      const clock = manualClock();
      return { store: memoryStore({ clock }), advance: async (ms) => clock.advance(ms) };
    },
  });
});

describe("runStoreConformance", () => {
  it("refuses a skip without a reason, and a skip of a case that does not exist", () => {
    const create = () => ({ store: memoryStore(), advance: async () => {} });
    expect(() => runStoreConformance({ name: "x", test: () => {}, create, skip: [{ tests: ["snapshots keep the latest"], reason: " " }] })).toThrow(
      "runStoreConformance(x): a skip without a reason (snapshots keep the latest)",
    );
    expect(() => runStoreConformance({ name: "x", test: () => {}, create, skip: [{ tests: ["nope"], reason: "r" }] })).toThrow('runStoreConformance(x): no case named "nope" to skip');
  });

  it("fails a store that breaks a rule", async () => {
    // A store whose leases are never exclusive must fail the lease case.
    const clock = manualClock();
    const base = memoryStore({ clock });
    const broken = { ...base, acquireLease: async (runId: never, owner: string, ttl: number) => ({ runId, owner, token: 1, expiresAt: clock.now() + ttl }) };
    const cases: { name: string; fn: () => Promise<void> }[] = [];
    runStoreConformance({ name: "broken", test: (name, fn) => cases.push({ name, fn }), create: () => ({ store: broken, advance: async (ms) => clock.advance(ms) }) });
    const leaseCase = cases.find((c) => c.name.includes("leases: exclusive"))!;
    await expect(leaseCase.fn()).rejects.toThrow("another owner cannot take a held lease");
  });
});
