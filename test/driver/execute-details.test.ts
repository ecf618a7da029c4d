/**
 * The details of one execution (src/call/execute.ts) that the driver area's
 * mutation run found untested (issue 21): a tool's activity line (cleaned,
 * redacted, one line, capped, left out when it fails), the approver's answer
 * reaching only a tool that wants one, a permission refused inside a tool,
 * the driver's signal reaching a running tool, and reads of artifacts by
 * something that is not a hash.
 */
import { describe, expect, it } from "vitest";
import { call, calls, defineTool, final, permissionDenied, strictObject, string, type JsonValue, type Tool, type ToolContext } from "../../src/index.js";
import { eventsOf, harness } from "./helpers.js";

const input = strictObject({ text: string("Text") });
function tool(name: string, body: (args: { text: string }, ctx: ToolContext) => unknown, extra: Record<string, unknown> = {}): Tool<never, unknown> {
  return defineTool({ name, description: `The ${name} tool.`, inputSchema: input, sideEffect: "read_only", timeoutMs: 1000, call: body, ...extra } as never) as Tool<never, unknown>;
}
const finished = async (h: ReturnType<typeof harness>): Promise<Record<string, unknown>[]> => (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished");

describe("a tool's activity line", () => {
  it("is cleaned of control characters, redacted, made one line, cut at 200 characters, and left out when blank, not a string, or thrown", async () => {
    const lines: Record<string, (args: { text: string }, result: JsonValue) => unknown> = {
      spaced: (a) => `  read\n\t ${a.text}  \r\n `,
      secret: () => "sent hunter2-token to the server",
      long: () => "x".repeat(250),
      exact: () => "y".repeat(200),
      blank: () => " \n\t ",
      number: () => 42,
      thrower: () => {
        throw new Error("activity failed");
      },
      control: () => "a\u0007b\u001bc",
      result: (_a, r) => `got ${JSON.stringify(r)}`,
    };
    const tools = [...Object.entries(lines).map(([name, activity]) => tool(name, (a) => ({ echoed: a.text }), { activity })), tool("plain", () => "ok")];
    const h = harness([calls(...tools.map((t) => call(t.name, { text: "notes.md" }))), final("ok")], { tools, secrets: ["hunter2-token"] });
    await h.driver().start("t");
    const byCall = new Map((await finished(h)).map((e) => [e["callId"], e["activity"]]));
    expect(Object.fromEntries([...byCall].map(([k, v], i) => [tools[i]!.name, v ?? "(none)"]))).toEqual({
      spaced: "read notes.md",
      secret: "sent [REDACTED] to the server",
      long: `${"x".repeat(199)}…`,
      exact: "y".repeat(200),
      blank: "(none)",
      number: "(none)",
      thrower: "(none)",
      // BEL shown as U+FFFD; an escape sequence (ESC c) taken out whole.
      control: "a\ufffdb",
      result: 'got {"echoed":"notes.md"}',
      plain: "(none)",
    });
    // A line left out is left out of the event, not written as undefined or "".
    expect((await finished(h)).filter((e) => "activity" in e).length).toBe(6);
  });
});

describe("the approver's answer", () => {
  it("reaches a tool that wants one, and no other tool, even one approved with a note", async () => {
    const seen: Record<string, unknown> = {};
    const ask = tool("ask", (_a, ctx) => (seen["ask"] = ctx.answer ?? null), { permission: "ask", wantsAnswer: true });
    const gated = tool("gated", (_a, ctx) => (seen["gated"] = "answer" in ctx ? ctx.answer : "no answer"), { permission: "ask" });
    const h = harness([calls(call("ask", { text: "q" }), call("gated", { text: "g" })), final("ok")], { tools: [ask, gated] });
    const driver = h.driver();
    const waiting = await driver.start("t");
    for (const a of waiting.approvals) {
      const wants = (a.request as { wantsAnswer?: boolean }).wantsAnswer === true;
      await driver.approve(waiting.runId, a.approvalId, { requestHash: a.requestHash, by: "ana", ...(wants ? { answer: "blue" } : {}) });
    }
    await driver.resume(waiting.runId);
    expect(seen).toEqual({ ask: { text: "blue", by: "ana" }, gated: "no answer" });
  });
});

describe("each call's own answer", () => {
  it("two calls asking in one step, and one in the next, each get the answer given to them", async () => {
    const seen: Record<string, unknown> = {};
    const ask = tool("ask", (a, ctx) => (seen[a.text] = ctx.answer?.text ?? null), { permission: "ask", wantsAnswer: true });
    const h = harness([calls(call("ask", { text: "q1" }), call("ask", { text: "q2" })), calls(call("ask", { text: "q3" })), final("ok")], { tools: [ask] });
    const driver = h.driver();
    const answers: Record<string, string> = { q1: "blue", q2: "red", q3: "green" };
    let state = await driver.start("t");
    while (state.status === "waiting") {
      for (const a of state.approvals) {
        const q = (a.request as unknown as { args: { text: string } }).args.text;
        await driver.approve(state.runId, a.approvalId, { requestHash: a.requestHash, by: "ana", answer: answers[q]! });
      }
      state = await driver.resume(state.runId);
    }
    expect(state.status).toBe("completed");
    expect(seen).toEqual({ q1: "blue", q2: "red", q3: "green" });
  });
});

describe("a permission refused inside a tool", () => {
  it("is observed as a policy denial naming what was refused, not as the tool's failure", async () => {
    const probe = tool("probe", () => {
      throw permissionDenied([{ kind: "path", value: "secrets/key.txt", operation: "read" }], "secrets are never read");
    });
    const h = harness([calls(call("probe", { text: "x" })), final("ok")], { tools: [probe] });
    await h.driver().start("t");
    const [e] = await finished(h);
    expect(e!["observation"]).toEqual({
      type: "denied",
      error:
        "Error: permission denied: probe is not allowed for `secrets/key.txt` (secrets are never read).\n[Next: Do not call probe with these arguments again.]\n[Recovery: If the task cannot be done without it, stop and say which permission is missing.]",
    });
  });
});

describe("the driver's signal", () => {
  it("aborts a running tool's signal (reason: interrupted), and one already aborted reaches the tool aborted", async () => {
    const controller = new AbortController();
    const reasons: unknown[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const slow = tool(
      "slow",
      (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            reasons.push((ctx.signal.reason as Error).message);
            resolve("stopped");
          });
          started();
        }),
      { timeoutMs: 600_000 },
    );
    const h = harness([calls(call("slow", { text: "x" })), final("ok")], { tools: [slow] });
    const outcome = h.driver().start("t", { signal: controller.signal });
    await running;
    controller.abort();
    expect(await outcome).toMatchObject({ stopped: "signal" });
    expect(reasons).toEqual(["interrupted"]);

    const aborted: boolean[] = [];
    const probe = tool("probe", (_a, ctx) => aborted.push(ctx.signal.aborted));
    const again = harness([calls(call("probe", { text: "x" })), final("ok")], { tools: [probe] });
    const gone = new AbortController();
    gone.abort();
    await again.driver().start("t", { signal: gone.signal });
    // Either the driver stops before the call, or the call starts with its signal aborted: never a live one.
    expect(aborted.every((a) => a)).toBe(true);
  });
});

describe("reading artifacts", () => {
  it("answers undefined for something that is not a hash, without reading the store", async () => {
    const got: unknown[] = [];
    const probe = tool("probe", async (_a, ctx) => {
      got.push(await ctx.readArtifact(42 as never), await ctx.readArtifact("0".repeat(64)));
      return "ok";
    });
    const h = harness([calls(call("probe", { text: "x" })), final("ok")], { tools: [probe] });
    await h.driver().start("t");
    expect(got).toEqual([undefined, undefined]);
  });
});

describe("the driver's signal, after the calls", () => {
  it("keeps no listener of any call: a long-lived signal does not gain one per call", async () => {
    // Node's own count of a signal's listeners (the types in use here do not declare it).
    const { getEventListeners } = (await import("node:events")) as unknown as { getEventListeners(target: EventTarget, type: string): unknown[] };
    const controller = new AbortController();
    const probe = tool("probe", () => "ok");
    const h = harness([calls(call("probe", { text: "a" }), call("probe", { text: "b" }, "c2")), calls(call("probe", { text: "c" })), final("ok")], { tools: [probe] });
    const before = getEventListeners(controller.signal, "abort").length;
    expect((await h.driver().start("t", { signal: controller.signal })).status).toBe("completed");
    expect(getEventListeners(controller.signal, "abort").length).toBe(before);
  });
});
