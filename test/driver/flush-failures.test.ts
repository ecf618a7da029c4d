/**
 * What a drive does when an append is refused (issue 21: survivors of the
 * driver area's mutation run in session.ts's flush): a journal that keeps
 * moving under it is retried a bounded number of times, then thrown; a
 * lease the store says is gone stops the drive as lease_lost, with nothing
 * more appended and no release of a lease it no longer holds.
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, isIsoagentError } from "../../src/index.js";
import { harness, refusingStore as refusing } from "./helpers.js";

describe("an append refused", () => {
  it("by a journal that keeps moving: reloaded and retried, 9 appends in all, then the conflict is thrown", async () => {
    const { store, counts } = refusing(2, "JOURNAL_CONFLICT");
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    await expect(h.driver({ store }).start("t")).rejects.toSatisfy((e: unknown) => isIsoagentError(e, "JOURNAL_CONFLICT"));
    // One append that landed, then the first try and eight retries of the next.
    expect(counts.appends).toBe(1 + 9);
  });

  it("because the lease is gone: stops as lease_lost, appends nothing more, and releases nothing", async () => {
    const { store, inner, counts } = refusing(2, "LEASE_NOT_HELD");
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const outcome = await h.driver({ store }).start("t");
    expect(outcome.stopped).toBe("lease_lost");
    expect(counts.appends).toBe(2);
    expect(counts.releases).toBe(0);
    // The write ran once its start was durable (the first append); its outcome was the refused append.
    expect(h.world.executions).toHaveLength(1);
    expect((await inner.read(outcome.runId)).map((e) => e.type).at(-1)).toBe("call.started");
  });
});
