/**
 * Issue 12's findings, each reproduced as it was found (they failed on the
 * code before the fix; the comment on each says how), and pinned now.
 */
import { describe, expect, it } from "vitest";
import {
  allOf,
  allowAll,
  call,
  calls,
  createDriver,
  defineTool,
  final,
  isIsoagentError,
  memoryStore,
  rulesPolicy,
  scriptedAgent,
  strictObject,
  string,
  ToolError,
  type JournalEvent,
  type JsonSchema,
  type Policy,
  type Tool,
} from "../../src/index.js";
import { compileTool } from "../../src/tools/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";
import { crashAt, eventsOf, harness } from "../driver/helpers.js";

const LEASE = 30_000;

/** Everything a run wrote, as text: to look for what must never be there. */
async function journalText(store: ReturnType<typeof memoryStore>, runId: string): Promise<string> {
  return JSON.stringify(await store.read(runId as never));
}

describe("finding 1: folder-wide tools leak denied files", () => {
  // Before: list_files and search_files named only the folder as their
  // resource, so `.env` and `secrets/key.txt` were listed and searched.
  const policy = rulesPolicy([
    { resource: { kind: "path", match: "**/.env" }, permission: "deny" },
    { resource: { kind: "path", match: "secrets/**" }, permission: "deny" },
  ]);
  const files = { ".env": "DB_PASSWORD=hunter2\n", "secrets/key.txt": "PASSWORD=k-123\n", "notes/a.md": "PASSWORD reminder\n" };

  async function run(tool: string, args: unknown) {
    const ws = memoryWorkspace(files);
    const store = memoryStore();
    const driver = createDriver({ store, tools: workspaceTools(ws).tools, policy, agent: scriptedAgent([calls(call(tool, args as never)), final("done")]) });
    const outcome = await driver.start("t");
    const text = await journalText(store, outcome.runId);
    const finished = (await store.read(outcome.runId)).find((e) => e.type === "call.finished" || e.type === "call.rejected") as JournalEvent & {
      observation: { type: string; content?: unknown; error?: string };
    };
    return { text, observation: finished.observation };
  }

  it("list_files leaves denied files out, and says how many policy withheld without naming them", async () => {
    const { text, observation } = await run("list_files", {});
    expect(observation).toEqual({ type: "result", content: "1 file under the workspace matching **:\nnotes/a.md (18 bytes)\n[Policy withheld 2 files: they are not shown.]" });
    for (const leak of [".env", "key.txt", "hunter2", "k-123"]) expect(text).not.toContain(leak);
  });

  it("search_files neither searches nor names denied files", async () => {
    const { text, observation } = await run("search_files", { query: "PASSWORD" });
    expect(observation).toEqual({
      type: "result",
      content: '1 match for "PASSWORD" in 1 file under the workspace:\nnotes/a.md:1: PASSWORD reminder\n[Policy withheld 2 files: they were not searched.]',
    });
    for (const leak of [".env", "key.txt", "hunter2", "k-123"]) expect(text).not.toContain(leak);
  });

  it("read_file of a denied path is denied whether or not it exists (policy runs before any existence check)", async () => {
    const there = await run("read_file", { path: "secrets/key.txt" });
    const absent = await run("read_file", { path: "secrets/none.txt" });
    expect(there.observation.type).toBe("denied");
    expect(absent.observation.error).toBe(there.observation.error!.replace("key.txt", "none.txt"));
  });
});

describe("finding 2: malformed policy answers fail closed", () => {
  // Before: "block" ranked as undefined and never beat allow (the write ran);
  // "Deny" was journaled as is and the drive threw JOURNAL_INVALID;
  // undefined threw a TypeError out of start().
  const bad: [string, Policy, string][] = [
    ["an unknown permission inside allOf", allOf(() => ({ permission: "block" }) as never, allowAll), 'policy returned an unknown permission "block"; a policy answers allow, ask or deny'],
    ["a miscased permission", () => ({ permission: "Deny" }) as never, 'policy returned an unknown permission "Deny"; a policy answers allow, ask or deny'],
    ["undefined", () => undefined as never, "policy returned undefined; a policy answers { permission: allow | ask | deny }"],
    ["a Promise", () => Promise.resolve({ permission: "allow" }) as never, "policy returned a Promise; policies are synchronous"],
    ["a thenable", () => ({ permission: "allow", then: () => {} }) as never, "policy returned a Promise; policies are synchronous"],
    [
      "a throw",
      () => {
        throw new Error("boom at /etc/policy.js:3");
      },
      "the policy threw; a policy that cannot decide denies",
    ],
    ["a reason that is not text", () => ({ permission: "allow", reason: 42 }) as never, "policy returned a reason that is not text"],
  ];
  for (const [name, policy, reason] of bad) {
    it(`${name}: denied, journaled with the fault as the reason, the run goes on`, async () => {
      const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")], { policy });
      const outcome = await h.driver().start("t");
      expect(outcome.status).toBe("completed");
      expect(h.world.executions).toEqual([]);
      const events = await eventsOf(h.store, "run_1");
      expect(events[3]).toEqual({ type: "call.permission", step: 1, callId: "s1c1", permission: "deny", source: "policy", reason, sideEffect: "local_mutation" });
      expect(events[4]).toMatchObject({ type: "call.rejected", observation: { type: "denied" } });
    });
  }
});

describe("finding 3: /reconcile (settle) executes an ordinary approval", () => {
  // Before: settle() with record_result on a `call` approval approved it and
  // the write ran; `content` was ignored.
  it("settle refuses an approval that is not an interrupted side effect, and nothing runs", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")], { policy: rulesPolicy([{ permission: "ask" }]) });
    const driver = h.driver();
    const waiting = await driver.start("t");
    const [a] = waiting.approvals;
    const settled = driver.settle(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "mallory", resolution: "record_result", content: { forged: true } });
    await expect(settled).rejects.toThrow(`approval ${a!.approvalId} of run run_1 asks to approve a call, not to reconcile an interrupted side effect: approve or deny it`);
    await settled.catch((e: unknown) => expect(isIsoagentError(e, "APPROVAL_NOT_RECONCILABLE")).toBe(true));
    await driver.resume(waiting.runId);
    expect(h.world.executions).toEqual([]);
    expect((await driver.state(waiting.runId)).status).toBe("waiting");
  });
});

describe("finding 4: denying an interrupted side effect misinforms the model", () => {
  // Before: a plain deny recorded "an operator recorded that it did not take
  // effect" and invited the model to call again.
  it("a deny means the outcome is unknown: the model is told to check before repeating", async () => {
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    h.clock.advance(LEASE + 1);
    const driver = h.driver({ owner: "driver-2" });
    const waiting = await driver.resume(crashed.runId);
    const [a] = waiting.approvals;
    expect(a!.request).toMatchObject({ kind: "interrupted_side_effect", idempotencyKey: "run_1:1:s1c1" });
    await driver.deny(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await driver.resume(waiting.runId);
    const reconciled = (await eventsOf(h.store, "run_1")).find((e) => e["type"] === "call.reconciled");
    expect(reconciled).toEqual({
      type: "call.reconciled",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      resolution: "mark_unknown",
      by: "ana",
      observation: {
        type: "interrupted",
        error:
          "Error: write_file was interrupted, and whether it took effect is unknown: an operator could not confirm it either way.\n" +
          "[Next: Check whether it took effect (read back what it would have changed) before you call write_file again.]\n" +
          "[Recovery: If you cannot check, stop and say that the outcome of this call is unknown.]",
      },
    });
    expect(h.world.executions.length).toBe(1);
  });
});

describe("finding 5: $id naming a URL or a file", () => {
  // Before: compileTool accepted both; seed 000 refuses them as it refuses $ref and $schema.
  const spec = (inputSchema: JsonSchema) => ({ name: "t", description: "d", inputSchema, sideEffect: "read_only" as const, timeoutMs: 10 });
  it("is refused in a tool schema, with SCHEMA_EXTERNAL_REF", () => {
    for (const [id, where] of [
      ["https://example.com/s.json", "the root"],
      ["file:///etc/passwd", "the root"],
      ["/etc/passwd", "the root"],
    ] as const) {
      let caught: unknown;
      try {
        compileTool(spec({ $id: id, type: "object" }));
      } catch (e) {
        caught = e;
      }
      expect(isIsoagentError(caught, "SCHEMA_EXTERNAL_REF"), id).toBe(true);
      expect((caught as Error).message).toBe(
        `tool "t": input schema refers outside itself: $id ${JSON.stringify(id)} at ${where} names a document; a tool schema names none (put shared parts under $defs)`,
      );
    }
    let nested: unknown;
    try {
      compileTool(spec({ type: "object", properties: { a: { $id: "https://example.com/a.json", type: "string" } } }));
    } catch (e) {
      nested = e;
    }
    expect((nested as Error).message).toBe(
      'tool "t": input schema refers outside itself: $id "https://example.com/a.json" at /properties/a names a document; a tool schema names none (put shared parts under $defs)',
    );
  });
  it("stays standard in compileSchema: an embedded $id resolves inside the document and nothing is fetched", () => {
    const s = compileSchema({ $id: "https://example.com/root.json", $defs: { n: { $id: "n.json", type: "integer" } }, $ref: "n.json" });
    expect(s.validate(1).valid).toBe(true);
    expect(s.validate("x").valid).toBe(false);
  });
});

describe("finding 6: output is not cleaned or capped everywhere", () => {
  // Before: a ToolError with 200 KB of text was journaled whole; ANSI
  // escapes, BEL and NUL passed through; invalid_content was uncapped.
  const tool = (name: string, call: () => unknown): Tool<never, unknown> =>
    defineTool({ name, description: `The ${name} tool.`, inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, outputPolicy: { maxVisibleBytes: 1024 }, call }) as Tool<
      never,
      unknown
    >;

  it("caps a ToolError's text as a result is capped, keeping the full text as an artifact", async () => {
    const huge = tool("huge", () => {
      throw new ToolError(`bad ${"x".repeat(200_000)}`);
    });
    const h = harness([calls(call("huge")), final("ok")], { tools: [huge] });
    await h.driver().start("t");
    const finished = (await eventsOf(h.store, "run_1")).find((e) => e["type"] === "call.finished") as { observation: { error: string; truncated: { artifact: string; totalBytes: number } } };
    expect(new TextEncoder().encode(finished.observation.error).length).toBeLessThan(1024 + 200);
    expect(finished.observation.truncated.totalBytes).toBeGreaterThan(200_000);
    const full = await h.store.getArtifact(finished.observation.truncated.artifact);
    expect(new TextDecoder().decode(full!)).toContain("x".repeat(200_000));
  });

  it("removes terminal escapes and replaces control characters in results, errors and invalid content, and counts them", async () => {
    const ansi = tool("ansi", () => "\u001b[31mred\u001b[0m bell\u0007 nul\u0000 ok\ttab\nline");
    const err = tool("err", () => {
      throw new ToolError("\u001b]0;title\u0007failed\u0000");
    });
    const bad = tool("bad", () => new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x1b, 0x5b, 0x32, 0x4a, 0x7d]));
    const h = harness([calls(call("ansi"), call("err"), call("bad")), final("ok")], { tools: [ansi, err, bad] });
    await h.driver().start("t");
    const obs = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.finished").map((e) => e["observation"]);
    expect(obs[0]).toEqual({
      type: "result",
      content: "red bell\uFFFD nul\uFFFD ok\ttab\nline\n[Cleaned: 2 terminal escape sequences removed, 2 control characters replaced.]",
      cleaned: { escapes: 2, controls: 2 },
    });
    expect(obs[1]).toMatchObject({ type: "tool_error", error: expect.stringMatching(/^Error: failed\uFFFD\n/), cleaned: { escapes: 1, controls: 1 } });
    const text = JSON.stringify(obs);
    expect(text).not.toMatch(/\\u001b|\\u0007|\\u0000/);
  });

  it("caps invalid_content's kept bytes", async () => {
    const big = tool("big", () => new Uint8Array(300_000).fill(0x7b));
    const h = harness([calls(call("big")), final("ok")], { tools: [big] });
    await h.driver().start("t");
    const finished = (await eventsOf(h.store, "run_1")).find((e) => e["type"] === "call.finished") as { observation: { content: string; failure: string; truncated?: { artifact: string } } };
    expect(finished.observation.failure).toBe("invalid_content");
    expect(finished.observation.content.length).toBeLessThan(1024 + 200);
    expect(finished.observation.truncated?.artifact).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("finding 7: hook and limit faults", () => {
  // Before: a hook that returned nothing crashed the drive with a TypeError;
  // maxSteps: 0 failed a run at once while runTimeoutMs: 0 meant no limit.
  for (const [name, answer, fault] of [
    ["returns nothing", undefined, "the reconcile hook returned undefined, not a reconciliation"],
    ["returns an unknown action", { action: "maybe" }, 'the reconcile hook returned an unknown action "maybe"'],
    ["returns record_result without JSON content", { action: "record_result", content: () => 1 }, "the reconcile hook returned record_result without JSON content"],
  ] as const) {
    it(`a reconcile hook that ${name} asks the operator, with the fault in the reason`, async () => {
      const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
      const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
      h.clock.advance(LEASE + 1);
      const waiting = await h.driver({ owner: "driver-2", reconcile: () => answer as never }).resume(crashed.runId);
      expect(waiting.status).toBe("waiting");
      expect(waiting.approvals[0]!.request).toMatchObject({ kind: "interrupted_side_effect", note: fault });
      const reconciled = (await eventsOf(h.store, "run_1")).find((e) => e["type"] === "call.reconciled");
      expect(reconciled).toEqual({ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "ask_operator", by: "hook", reason: fault });
    });
  }

  it("0 means no limit for every limit", async () => {
    // 60 steps, each a call to a tool that does not exist (a failure).
    const script = Array.from({ length: 60 }, () => calls(call("no_such_tool")));
    const h = harness([...script, final("ok")], { limits: { maxSteps: 0, maxConsecutiveFailures: 0, runTimeoutMs: 0 } });
    const outcome = await h.driver().start("t");
    expect(outcome.status).toBe("completed");
  });
});
