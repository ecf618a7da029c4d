import { describe, expect, it } from "vitest";
import { abortRun, call, calls, defineTool, final, integer, strictObject, string, ToolError, type Tool, type ToolContext } from "../../src/index.js";
import { eventsOf, harness } from "./helpers.js";

const empty = strictObject({});
function tool(name: string, body: (args: never, ctx: ToolContext) => unknown, extra: Partial<Tool<never, unknown>> = {}): Tool<never, unknown> {
  // A literal, not defineTool: `extra` may hold any spec field (the run-time checks are under test).
  const spec: Tool<never, unknown> = { name, description: `The ${name} tool.`, inputSchema: empty, sideEffect: "read_only", timeoutMs: 1000, call: body, ...extra };
  return spec;
}
async function observationOf(h: ReturnType<typeof harness>, seq: number): Promise<unknown> {
  const e = (await eventsOf(h.store, "run_1"))[seq - 1] as { observation?: unknown };
  return e.observation;
}

describe("executing a call", () => {
  it("gives the tool its run, step, call, attempt, a deterministic idempotency key, the fencing token and a signal", async () => {
    const seen: unknown[] = [];
    const probe = tool("probe", (_a, ctx) => {
      seen.push({ runId: ctx.runId, step: ctx.step, callId: ctx.callId, attempt: ctx.attempt, key: ctx.idempotencyKey, token: ctx.fencingToken, aborted: ctx.signal.aborted });
      return "ok";
    });
    const h = harness([calls(call("probe")), calls(call("probe", {}, "call_x")), final("ok")], { tools: [probe] });
    await h.driver().start("t");
    expect(seen).toEqual([
      { runId: "run_1", step: 1, callId: "s1c1", attempt: 1, key: "run_1:1:s1c1", token: 1, aborted: false },
      { runId: "run_1", step: 2, callId: "call_x", attempt: 1, key: "run_1:2:call_x", token: 1, aborted: false },
    ]);
  });

  it("turns a thrown error into a generic tool_error: the exception's text never reaches the agent", async () => {
    const boom = tool("boom", () => {
      throw new Error("ENOENT: /home/alice/.ssh/id_rsa at Object.openSync (node:fs:573:3)");
    });
    const h = harness([calls(call("boom")), final("ok")], { tools: [boom] });
    await h.driver().start("t");
    const o = await observationOf(h, 6);
    expect(o).toEqual({
      type: "tool_error",
      failure: "error",
      error: "Error: boom failed unexpectedly.\n[Next: Try another approach, or call boom again with different arguments.]\n[Recovery: If it fails again, stop and report the failure.]",
    });
    expect(JSON.stringify(await h.store.read("run_1" as never))).not.toContain("id_rsa");
  });

  it("shows a ToolError's own text, by the error contract", async () => {
    const missing = tool("find", () => {
      throw new ToolError("file not found: notes/todo.md", { next: "List notes/ to find the right name.", recovery: "If the file should exist, stop and say so." });
    });
    const bare = tool("bare", () => {
      throw new ToolError("the queue is empty");
    });
    const h = harness([calls(call("find"), call("bare")), final("ok")], { tools: [missing, bare] });
    await h.driver().start("t");
    const events = await eventsOf(h.store, "run_1");
    expect(events.filter((e) => e["type"] === "call.finished").map((e) => e["observation"])).toEqual([
      { type: "tool_error", failure: "error", error: "Error: file not found: notes/todo.md\n[Next: List notes/ to find the right name.]\n[Recovery: If the file should exist, stop and say so.]" },
      {
        type: "tool_error",
        failure: "error",
        error: "Error: the queue is empty\n[Next: Fix what the error names, then call bare again.]\n[Recovery: If the same error comes back, stop and report it instead of retrying.]",
      },
    ]);
  });

  it("cancels a call past its timeout: the signal is aborted, and the observation says timeout", async () => {
    let signalled = false;
    const slow = tool(
      "slow",
      (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            signalled = true;
            resolve("too late");
          });
        }),
      { timeoutMs: 20, sideEffect: "remote_mutation", permission: "allow" },
    );
    const h = harness([calls(call("slow")), final("ok")], { tools: [slow] });
    await h.driver().start("t");
    expect(signalled).toBe(true);
    expect(await observationOf(h, 6)).toEqual({
      type: "tool_error",
      failure: "timeout",
      error:
        "Error: slow did not finish within 20 ms and was cancelled; whether it took effect is unknown.\n[Next: Check whether it took effect before calling slow again.]\n[Recovery: If it times out again, stop and report it.]",
    });
  });

  it("keeps content that is not usable JSON as a tool_error with invalid_content, and empty content as {}", async () => {
    const nan = tool("nan", () => ({ value: Number.NaN }));
    const bytes = tool("bytes", () => new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]));
    const text = tool("text", () => new TextEncoder().encode('{"a":1,"a":2}'));
    const nothing = tool("nothing", () => undefined);
    const raw = tool("raw", () => new TextEncoder().encode('{"ok":true}'));
    const h = harness([calls(call("nan"), call("bytes"), call("text"), call("nothing"), call("raw")), final("ok")], {
      tools: [nan, bytes, text, nothing, raw],
      limits: { maxConsecutiveFailures: 10 },
    });
    await h.driver().start("t");
    const observations = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished").map((e) => e["observation"]);
    const next = (t: string) => `[Next: Do not rely on this output; call ${t} again only if a different request could avoid it.]\n[Recovery: If it happens again, stop and report it.]`;
    expect(observations).toEqual([
      {
        type: "tool_error",
        failure: "invalid_content",
        error: `Error: nan returned content that is not usable JSON (NaN is not a JSON number at /value).\n${next("nan")}`,
        content: '{"value":"NaN"}',
        reason: "NaN is not a JSON number at /value",
      },
      {
        type: "tool_error",
        failure: "invalid_content",
        error: `Error: bytes returned content that is not usable JSON (invalid UTF-8 byte 0xFF at line 1, column 3).\n${next("bytes")}`,
        content_base64: "eyL/In0=",
        reason: "invalid UTF-8 byte 0xFF at line 1, column 3",
      },
      {
        type: "tool_error",
        failure: "invalid_content",
        error: `Error: text returned content that is not usable JSON (duplicate key "a" at line 1, column 8).\n${next("text")}`,
        content: '{"a":1,"a":2}',
        reason: 'duplicate key "a" at line 1, column 8',
      },
      { type: "result", content: {} },
      { type: "result", content: { ok: true } },
    ]);
  });

  it("fails the run after too many failures in a row", async () => {
    const boom = tool("boom", () => {
      throw new Error("x");
    });
    const h = harness([calls(call("boom")), calls(call("boom")), calls(call("boom")), final("never")], { tools: [boom], limits: { maxConsecutiveFailures: 3 } });
    const outcome = await h.driver().start("t");
    expect(outcome.status).toBe("failed");
    expect(outcome.failure).toEqual({ reason: "consecutive_failures", detail: "3 calls in a row failed" });
    expect(h.views.length).toBe(3);
  });

  it("ends the run with tool_abort in the same append that ends the step", async () => {
    const publish = tool(
      "publish",
      () => {
        throw abortRun("the frozen artifact failed its checksum");
      },
      { sideEffect: "remote_mutation", permission: "allow" },
    );
    const h = harness([calls(call("publish")), final("never")], { tools: [publish] });
    const outcome = await h.driver().start("t");
    expect(outcome.failure).toEqual({ reason: "tool_abort", detail: "the frozen artifact failed its checksum" });
    expect(h.store.batches.at(-1)).toEqual(["call.finished", "run.failed"]);
    expect(await observationOf(h, 6)).toEqual({
      type: "tool_error",
      failure: "error",
      error: "Error: publish stopped the run: the frozen artifact failed its checksum\n[Next: None: the run is over.]\n[Recovery: None.]",
    });
  });

  it("completes the run when a terminal tool succeeds, with its result", async () => {
    const done = tool("task_done", () => ({ answer: 42 }), { terminal: true });
    const h = harness([calls(call("task_done")), final("never asked")], { tools: [done] });
    const outcome = await h.driver().start("t");
    expect(outcome).toMatchObject({ status: "completed", output: { answer: 42 } });
    expect(h.store.batches.at(-1)).toEqual(["call.finished", "run.completed"]);
    expect(h.views.length).toBe(1);
  });

  it("ends a run at its step limit and at its deadline, each with its reason", async () => {
    const noop = tool("noop", () => "ok");
    const forever = () => calls(call("noop"));
    const h = harness([forever, forever, forever, forever], { tools: [noop], limits: { maxSteps: 2 } });
    expect((await h.driver().start("t")).failure).toEqual({ reason: "max_steps", detail: "the run reached its limit of 2 steps" });
    const slow = tool("tick", () => {
      h2.clock.advance(600);
      return "ok";
    });
    const h2 = harness(
      [forever, forever, forever, forever].map(() => () => calls(call("tick"))),
      { tools: [slow], limits: { runTimeoutMs: 1000 } },
    );
    expect((await h2.driver().start("t")).failure).toEqual({ reason: "deadline", detail: "the run did not finish within 1000 ms" });
  });

  it("runs the calls of a decision in parallel only when all are parallelSafe read_only tools", async () => {
    let active = 0;
    let peak = 0;
    const slowRead = (name: string, parallelSafe: boolean): Tool<never, unknown> =>
      tool(
        name,
        async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5));
          active--;
          return "ok";
        },
        { parallelSafe },
      );
    const h = harness([calls(call("a"), call("b"), call("c")), final("ok")], { tools: [slowRead("a", true), slowRead("b", true), slowRead("c", true)] });
    await h.driver().start("t");
    expect(peak).toBe(3);
    peak = 0;
    const h2 = harness([calls(call("a"), call("b"), call("c")), final("ok")], { tools: [slowRead("a", true), slowRead("b", false), slowRead("c", true)] });
    await h2.driver().start("t");
    expect(peak).toBe(1);
  });
});

describe("what the agent is shown of a result", () => {
  it("cuts a large result deterministically, tail by default, with a visible notice, and keeps the whole as an artifact", async () => {
    const lines = Array.from({ length: 100 }, (_, k) => `line ${k}`).join("\n");
    const big = tool("log", () => lines, { outputPolicy: { maxVisibleBytes: 40 } });
    const head = tool("head", () => ({ lines: lines.split("\n") }), { outputPolicy: { maxVisibleBytes: 30, strategy: "head" } });
    const h = harness([calls(call("log"), call("head")), final("ok")], { tools: [big, head] });
    await h.driver().start("t");
    const [tail, first] = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished").map((e) => e["observation"]) as { content: string; truncated: { artifact: string } }[];
    expect(tail).toEqual({
      type: "result",
      content: `[truncated: showing the last 40 of ${lines.length} bytes; the full output is artifact sha256:${tail!.truncated.artifact}]\n\nline 95\nline 96\nline 97\nline 98\nline 99`,
      truncated: { strategy: "tail", totalBytes: lines.length, shownBytes: 40, artifact: tail!.truncated.artifact },
    });
    const full = await h.store.getArtifact(tail!.truncated.artifact);
    expect(new TextDecoder().decode(full!)).toBe(lines);
    expect(first!.content).toBe(
      `{"lines":["line 0","line 1","l\n[truncated: showing the first 30 of ${JSON.stringify({ lines: lines.split("\n") }).length} bytes; the full output is artifact sha256:${first!.truncated.artifact}]`,
    );
  });

  it("never cuts a character in half", async () => {
    const emoji = tool("emoji", () => "😀".repeat(20), { outputPolicy: { maxVisibleBytes: 10, keepFull: false } });
    const h = harness([calls(call("emoji")), final("ok")], { tools: [emoji] });
    await h.driver().start("t");
    expect(await observationOf(h, 6)).toEqual({
      type: "result",
      content: "[truncated: showing the last 8 of 80 bytes; the rest was not kept]\n😀😀",
      truncated: { strategy: "tail", totalBytes: 80, shownBytes: 8, artifact: "" },
    });
  });

  describe("audit finding 1: the cap at its edges", () => {
    // What the agent is shown of outputs that sit exactly on the cap, one
    // byte over it, and multibyte text whose UTF-8 is between 2 and 3 times
    // its length (a UTF-16 unit is at most 3 bytes, the quick bound).
    async function shown(outputs: string[], maxVisibleBytes: number, strategy: "head" | "tail" = "tail") {
      const tools = outputs.map((text, k) => tool(`out${k}`, () => text, { outputPolicy: { maxVisibleBytes, strategy, keepFull: false } }));
      const h = harness([calls(...outputs.map((_, k) => call(`out${k}`))), final("ok")], { tools });
      await h.driver().start("t");
      return (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished").map((e) => e["observation"]);
    }

    it("shows an output of exactly the cap whole, and cuts one byte over it (fails with `bytes.length <= max` as `<= max + 1`, or as `< max`)", async () => {
      const [at, over] = await shown(["0123456789", "0123456789A"], 10);
      expect(at).toEqual({ type: "result", content: "0123456789" });
      expect(over).toEqual({
        type: "result",
        content: "[truncated: showing the last 10 of 11 bytes; the rest was not kept]\n123456789A",
        truncated: { strategy: "tail", totalBytes: 11, shownBytes: 10, artifact: "" },
      });
      // Multibyte: 3 + 2 + 3 + 3 = 11 bytes in 4 units, at a cap of 11 and of 10.
      const [multiAt] = await shown(["€é€€"], 11);
      expect(multiAt).toEqual({ type: "result", content: "€é€€" });
      const [multiOver] = await shown(["€é€€"], 10);
      expect(multiOver).toEqual({
        type: "result",
        content: "[truncated: showing the last 8 of 11 bytes; the rest was not kept]\né€€",
        truncated: { strategy: "tail", totalBytes: 11, shownBytes: 8, artifact: "" },
      });
    });

    it("cuts multibyte output between 2 and 3 times its length over the cap (fails with the quick bound `text.length * 3` as `* 2`)", async () => {
      // 4 units, 12 bytes: 4 * 2 = 8 fits a cap of 10 by the mutated bound,
      // and the agent would see 12 bytes.
      const [head] = await shown(["€€€€"], 10, "head");
      expect(head).toEqual({
        type: "result",
        content: "€€€\n[truncated: showing the first 9 of 12 bytes; the rest was not kept]",
        truncated: { strategy: "head", totalBytes: 12, shownBytes: 9, artifact: "" },
      });
      // And exactly at the cap by the true bound: 3 units, 9 bytes, whole.
      const [whole] = await shown(["€€€"], 9, "head");
      expect(whole).toEqual({ type: "result", content: "€€€" });
    });
  });

  it("redacts configured secrets and common token shapes from results, errors and artifacts", async () => {
    const leaky = tool("env", () => ({ db: "postgres://app:hunter2hunter2@db/prod", openai: "sk-proj-abcdefghijklmnopqrstuvwxyz012345", note: "fine" }));
    const loud = tool("loud", () => {
      throw new ToolError("login failed for token ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    });
    const big = tool("dump", () => `key=hunter2hunter2 ${"x".repeat(100)}`, { outputPolicy: { maxVisibleBytes: 20 } });
    const h = harness([calls(call("env"), call("loud"), call("dump")), final("ok")], { tools: [leaky, loud, big], secrets: ["hunter2hunter2"] });
    await h.driver().start("t");
    const journal = JSON.stringify(await h.store.read("run_1" as never));
    expect(journal).not.toContain("hunter2hunter2");
    expect(journal).not.toContain("sk-proj-");
    expect(journal).not.toContain("ghp_");
    const observations = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished").map((e) => e["observation"]) as {
      content: unknown;
      error?: string;
      truncated?: { artifact: string };
    }[];
    expect(observations[0]!.content).toEqual({ db: "postgres://app:[REDACTED]@db/prod", openai: "[REDACTED]", note: "fine" });
    expect(observations[1]!.error!.split("\n")[0]).toBe("Error: login failed for token [REDACTED]");
    const artifact = new TextDecoder().decode((await h.store.getArtifact(observations[2]!.truncated!.artifact))!);
    expect(artifact).toBe(`key=[REDACTED] ${"x".repeat(100)}`);
  });

  it("records results with integer arguments checked by schema", async () => {
    const add = defineTool<{ a: number; b: number }>({
      name: "add",
      description: "Add.",
      inputSchema: strictObject({ a: integer(), b: integer() }),
      sideEffect: "read_only",
      timeoutMs: 100,
      call: (x) => x.a + x.b,
    });
    const h = harness([calls(call("add", { a: 2, b: 3 })), final("ok")], { tools: [add as Tool<never, unknown>] });
    await h.driver().start("t");
    expect(await observationOf(h, 6)).toEqual({ type: "result", content: 5 });
    void string;
  });
});
