/**
 * A session that ends stops renewing its lease, even when a renewal is in
 * flight as it ends: that renewal's answer arms no further timer. (Before,
 * it armed the next one: a session that had crashed, and so released
 * nothing, kept renewing its lease as long as the process lived, and a
 * released one asked once more.)
 */
import { describe, expect, it } from "vitest";
import { until } from "../helpers/time.js";
import { createDriver, final, memoryStore, type Store } from "../../src/index.js";

/** The Node timers armed now. */
const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("the lease's renewal after the session", () => {
  it("a renewal in flight as the session ends arms no next renewal", async () => {
    const inner = memoryStore();
    let renewals = 0;
    let hold: (() => void) | undefined;
    const store: Store = Object.assign(Object.create(null) as object, inner, {
      renewLease: async (...args: Parameters<Store["renewLease"]>) => {
        renewals++;
        const renewed = await inner.renewLease(...args);
        // The first renewal (the timer's) answers only when the test says so.
        if (renewals === 1) await new Promise<void>((r) => (hold = r));
        return renewed;
      },
    }) as Store;
    const driver = createDriver({
      store,
      leaseTtlMs: 300,
      tools: [],
      agent: {
        async decide() {
          await until("the timer's renewal to be in flight", () => hold !== undefined);
          return final("done");
        },
      },
    });
    const outcome = await driver.start("t");
    expect([outcome.status, outcome.stopped]).toEqual(["completed", undefined]);
    const armed = timers();
    const asked = renewals;
    hold!();
    for (let k = 0; k < 5; k++) await turn();
    // The renewal answered after the session ended: no timer armed for the next one.
    expect(timers()).toBe(armed);
    expect(renewals).toBe(asked);
  });
});
