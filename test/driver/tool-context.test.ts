import { describe, expect, it } from "vitest";
import { call, calls, defineTool, final, strictObject, type RunProgress, type StepProgress, type Tool } from "../../src/index.js";
import { sha256HexSync } from "../../src/json/index.js";
import { harness } from "./helpers.js";

const empty = strictObject({});
const enc = new TextEncoder();

/** A tool that runs until released, reporting what it is told to report. */
function gated(name: string, body: (ctx: Parameters<Tool<never, unknown>["call"]>[1]) => Promise<unknown>): Tool<never, unknown> {
  return defineTool({ name, description: `The ${name} tool.`, inputSchema: empty, sideEffect: "read_only", timeoutMs: 5000, call: (_a, ctx) => body(ctx) }) as Tool<never, unknown>;
}

describe("ToolContext.progress: a running call's reports are driver progress, never journaled", () => {
  it("shows the latest report per running call on the board and to onProgress, cleaned, redacted, cut; drops reports that go back or are not numbers; clears when the call ends", async () => {
    const heard: RunProgress[] = [];
    let seen: StepProgress | undefined;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let reported!: () => void;
    const reportedAll = new Promise<void>((r) => (reported = r));
    const indexer = gated("indexer", async (ctx) => {
      ctx.progress({ progress: 1, total: 4, message: "\u001b[31mfirst\u001b[0m file" });
      ctx.progress({ progress: 0, total: 4, message: "going back is dropped" });
      ctx.progress({ progress: Number.NaN });
      ctx.progress({ progress: 2, total: Number.POSITIVE_INFINITY });
      ctx.progress({ progress: 3, total: 4, message: `key sk-proj-abcdefghijklmnopqrstuvwx and ${"x".repeat(300)}` });
      reported();
      await released;
      return "done";
    });
    const h = harness([calls(call("indexer")), final("ok")], { tools: [indexer] });
    const driver = h.driver({ onProgress: (_r, _s, p) => heard.push(p) });
    const outcome = driver.start("t");
    await reportedAll;
    seen = driver.progress("run_1" as never);
    release();
    await outcome;
    expect(heard.map((p) => (p.type === "tool" ? [p.progress, p.total, p.message?.slice(0, 40)] : p.type))).toEqual([
      [1, 4, "first file"],
      [3, 4, "key [REDACTED] and xxxxxxxxxxxxxxxxxxxxx"],
    ]);
    expect(seen?.step).toBe(1);
    expect(seen?.tools).toHaveLength(1);
    expect(seen?.tools[0]).toMatchObject({ callId: "s1c1", tool: "indexer", progress: 3, total: 4 });
    expect(seen?.tools[0]?.message).toHaveLength(200);
    expect(seen?.tools[0]?.message?.endsWith("…")).toBe(true);
    // The call ended: nothing in flight; the journal has no trace of the reports.
    expect(driver.progress("run_1" as never)).toBeUndefined();
    expect(JSON.stringify(await h.store.read("run_1" as never))).not.toContain("first file");
  });
});

describe("ToolContext.putArtifact: bytes kept in the run's store by SHA-256", () => {
  it("keeps binary bytes as they are and redacts UTF-8 text first, answering what was kept", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]);
    const refs: { sha256: string; size: number }[] = [];
    const saver = gated("saver", async (ctx) => {
      refs.push(await ctx.putArtifact(png));
      refs.push(await ctx.putArtifact(enc.encode("token my-secret-value-123 here")));
      return "saved";
    });
    const h = harness([calls(call("saver")), final("ok")], { tools: [saver] });
    await h.driver({ secrets: ["my-secret-value-123"] }).start("t");
    expect(refs[0]).toEqual({ sha256: sha256HexSync(png), size: png.length });
    expect(await h.store.getArtifact(refs[0]!.sha256)).toEqual(png);
    const text = new TextDecoder().decode((await h.store.getArtifact(refs[1]!.sha256))!);
    expect(text).toBe("token [REDACTED] here");
    expect(refs[1]).toEqual({ sha256: sha256HexSync(enc.encode(text)), size: enc.encode(text).length });
  });

  it("refuses what is not bytes", async () => {
    let error: unknown;
    const bad = gated("bad", async (ctx) => {
      try {
        await ctx.putArtifact("text" as never);
      } catch (e) {
        error = e;
      }
      return "ok";
    });
    const h = harness([calls(call("bad")), final("ok")], { tools: [bad] });
    await h.driver().start("t");
    expect(error).toBeInstanceOf(TypeError);
  });
});
