/**
 * What a drive that lost its lease reports (issue 21: found through the
 * driver area's mutation run, session.ts drive). A lease lost at the drive's
 * last flush was swallowed: the drive returned the run as applied in memory
 * ("completed", with an output) and no `stopped`, though the store held it
 * running and another driver would take it over. A drive that loses its
 * lease stops as lease_lost and reports the run as the store holds it, as a
 * busy one does.
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, memoryStore, type Store } from "../../src/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { crashAt, harness, refusingStore } from "./helpers.js";

const TTL = 30_000;

describe("a drive that loses its lease", () => {
  it("at its last flush (the store refuses it): stops as lease_lost, and reports the run as the store holds it", async () => {
    // Appends (the run's creation is not one): 1 the read's start, 2 the last flush (its outcome and the completion).
    const { store, inner, counts } = refusingStore(2, "LEASE_NOT_HELD");
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    const stored = await inner.read(outcome.runId);
    expect(stored.map((e) => e.type)).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started"]);
    expect(outcome).toEqual({ runId: outcome.runId, status: "running", seq: stored.length, approvals: [], stopped: "lease_lost" });
    expect(counts).toEqual({ appends: 2, releases: 0 });
  });

  it("through a renewal refused at its last flush: the same, nothing of the batch written", async () => {
    const clock = manualClock();
    const inner = memoryStore({ clock });
    let renewals = 0;
    const store = Object.assign(Object.create(null) as object, inner, {
      async renewLease() {
        renewals++;
        return null;
      },
    }) as Store;
    let step = 0;
    const h = harness([], {
      agent: {
        decide: async () => {
          // The second decision comes after the renewal is due: the last flush renews first, and is refused.
          if (++step === 2) clock.advance(TTL / 3);
          return step === 1 ? calls(call("read_file", { path: "notes.md" })) : final("ok");
        },
      },
    });
    const outcome = await h.driver({ store, clock, leaseTtlMs: TTL }).start("t");
    const stored = await inner.read(outcome.runId);
    expect(stored.map((e) => e.type)).toEqual(["run.created", "run.resumed", "step.decided", "call.permission", "call.started"]);
    expect(outcome).toEqual({ runId: outcome.runId, status: "running", seq: stored.length, approvals: [], stopped: "lease_lost" });
    expect(renewals).toBe(1);
  });

  it("in the middle of a drive: reports what the store holds, not what was applied in memory and never written", async () => {
    // Appends: 1 the write's start, 2 its outcome (refused).
    const { store, inner } = refusingStore(2, "LEASE_NOT_HELD");
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    const stored = await inner.read(outcome.runId);
    expect(stored.map((e) => e.type).at(-1)).toBe("call.started");
    expect(outcome).toEqual({ runId: outcome.runId, status: "running", seq: stored.length, approvals: [], stopped: "lease_lost" });
  });
});

describe("a drive that crashes (the testkit's crash)", () => {
  it("reports the run as the store holds it: a start pushed but never appended is not reported", async () => {
    const faults = crashAt("before_start_append", "write_file");
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const store = memoryStore();
    const outcome = await h.driver({ store, faults }).start("t");
    const stored = await store.read(outcome.runId);
    expect(stored.map((e) => e.type)).toEqual(["run.created"]);
    expect(outcome).toEqual({ runId: outcome.runId, status: "running", seq: 1, approvals: [], stopped: "crashed" });
  });
});
