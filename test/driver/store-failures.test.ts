/**
 * A store that stops taking writes mid-run (quota, a closed database): the
 * drive stops with `store_error`, naming the store's error, writes nothing
 * more, releases its lease, and what is journaled stays a valid chain. Any
 * other store error is not swallowed. Found by this test: a failure at the
 * drive's last flush (the run's end) was thrown out of start() instead. (Chromium's IndexedDB has the same in
 * test/browser/idb-failures.test.ts; this one runs in the driver area's
 * mutation tests, issue 21.)
 */
import { describe, expect, it } from "vitest";
import { call, calls, final } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";
import { StoreError, STORE_FAILURE_CODES } from "../../src/store/index.js";
import { harness, refusingStore } from "./helpers.js";

describe("a store that stops taking writes mid-run", () => {
  for (const code of STORE_FAILURE_CODES) {
    it(`${code}: stops with store_error naming it, releases the lease, and leaves a valid chain`, async () => {
      const { store, inner } = refusingStore(3, code);
      const h = harness([calls(call("read_file", { path: "notes.md" })), calls(call("read_file", { path: "notes.md" })), final("ok")]);
      const outcome = await h.driver({ store }).start("t");
      expect(outcome.stopped).toBe("store_error");
      expect(outcome.error).toEqual({ code, message: `the store refused append 3 (${code})` });
      const events = await inner.read(outcome.runId);
      verifyChain(events);
      // The outcome is the run as the store holds it, not what was applied in memory and never written.
      expect(outcome.seq).toBe(events.length);
      expect(outcome.status).toBe("running");
      expect(await inner.lease(outcome.runId)).toBeNull();
      // Nothing was written after the refusal: a later driver over the healthy store finishes the run.
      const done = await h.driver({ store: inner }).resume(outcome.runId);
      expect(done.status).toBe("completed");
    });
  }

  it("a failure in the middle of the drive (the outcome of a write) stops it the same way", async () => {
    const { store, inner } = refusingStore(2, "STORE_QUOTA_EXCEEDED");
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    expect(outcome).toMatchObject({ stopped: "store_error", status: "running", error: { code: "STORE_QUOTA_EXCEEDED" } });
    expect((await inner.read(outcome.runId)).map((e) => e.type).at(-1)).toBe("call.started");
    expect(outcome.seq).toBe((await inner.read(outcome.runId)).length);
    expect(await inner.lease(outcome.runId)).toBeNull();
  });

  it("any other store error is thrown to the caller, not reported as a stop", async () => {
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    await expect(h.driver({ store: refusingStore(2, "STORE_INVALID_APPEND").store }).start("t")).rejects.toSatisfy((e: unknown) => e instanceof StoreError && e.code === "STORE_INVALID_APPEND");
  });
});
