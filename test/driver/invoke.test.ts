/**
 * One call of a tool under its timeout (src/call/invoke.ts), each path by
 * itself (issue 21: survivors of the driver area's mutation run). Timers are
 * vitest's fake ones, so a timeout is reached by advancing time, not by
 * waiting for it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invokeTool } from "../../src/call/invoke.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("invokeTool", () => {
  it("does not call a tool whose signal is already aborted", async () => {
    const c = new AbortController();
    c.abort(new Error("interrupted"));
    let called = false;
    expect(await invokeTool(() => (called = true), c, 1000)).toEqual({ kind: "aborted", timedOut: false });
    expect(called).toBe(false);
  });

  it("reports a tool that aborts its own signal synchronously as aborted, not timed out", async () => {
    const c = new AbortController();
    expect(await invokeTool(() => (c.abort(new Error("interrupted")), Promise.resolve("late")), c, 1000)).toEqual({ kind: "aborted", timedOut: false });
  });

  it("answers a synchronous value at once, with no timer left behind", async () => {
    expect(await invokeTool(() => 42, new AbortController(), 1000)).toEqual({ kind: "value", value: 42 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("answers a promise's value or error, and clears its timer", async () => {
    expect(await invokeTool(() => Promise.resolve("ok"), new AbortController(), 1000)).toEqual({ kind: "value", value: "ok" });
    const boom = new Error("boom");
    expect(await invokeTool(() => Promise.reject(boom), new AbortController(), 1000)).toEqual({ kind: "error", error: boom });
    expect(
      await invokeTool(
        () => {
          throw boom;
        },
        new AbortController(),
        1000,
      ),
    ).toEqual({ kind: "error", error: boom });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("times out a promise that outlives the timeout: the signal is aborted with 'timeout', and the outcome says so", async () => {
    const c = new AbortController();
    const outcome = invokeTool(() => new Promise(() => {}), c, 1000);
    await vi.advanceTimersByTimeAsync(999);
    expect(c.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toEqual({ kind: "aborted", timedOut: true });
    expect((c.signal.reason as Error).message).toBe("timeout");
  });

  it("reports an abort from outside while the promise runs as aborted, not timed out, and clears the timer", async () => {
    const c = new AbortController();
    const outcome = invokeTool(() => new Promise(() => {}), c, 1000);
    c.abort(new Error("interrupted"));
    expect(await outcome).toEqual({ kind: "aborted", timedOut: false });
    expect(vi.getTimerCount()).toBe(0);
  });
});
