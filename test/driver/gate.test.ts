import { describe, expect, it } from "vitest";
import { call, calls, defineTool, final, isIsoagentError, rulesPolicy, strictObject, string, type Tool } from "../../src/index.js";
import { toolShapeHash } from "../../src/driver/index.js";
import { compileTool, lineDiff } from "../../src/tools/index.js";
import { hashJsonSync } from "../../src/json/index.js";
import { eventsOf, harness, worldTools, type World } from "./helpers.js";

const world = (): World => ({ files: { "notes.md": "hello" }, executions: [] });

describe("the gate: arguments, permission, approval", () => {
  it("turns arguments that fail checkArgs into an invalid_decision with the checker's exact text", async () => {
    const h = harness([calls(call("read_file", { raw: '{"path": 3, "x": 1}' })), final("ok")]);
    await h.driver().start("t");
    const events = await eventsOf(h.store, "run_1");
    expect(events[3]).toEqual({
      type: "call.rejected",
      step: 1,
      callId: "s1c1",
      observation: {
        type: "invalid_decision",
        error:
          'Error: invalid arguments for read_file: at /path: expected string, got integer; unexpected property "x"\n' +
          "[Next: Call read_file again with arguments that match its input schema.]\n" +
          "[Recovery: Correct only what is listed. If the task cannot be done with arguments this schema accepts, stop and say why instead of retrying.]",
      },
    });
    expect(h.world.executions).toEqual([]);
  });

  it("answers a call to a tool that does not exist", async () => {
    const h = harness([calls(call("rm_rf", { path: "/" })), final("ok")]);
    await h.driver().start("t");
    const events = await eventsOf(h.store, "run_1");
    expect(events[3]).toEqual({
      type: "call.rejected",
      step: 1,
      callId: "s1c1",
      observation: {
        type: "invalid_decision",
        error: 'Error: there is no tool named "rm_rf".\n[Next: Call one of the available tools: read_file, write_file.]\n[Recovery: If none of them can do what is needed, stop and say so.]',
      },
    });
  });

  it("never offers a deny tool, and denies it if called anyway", async () => {
    const w = world();
    const { readFile, writeFile } = worldTools(w);
    const shred = defineTool<{ path: string }>({
      name: "shred",
      description: "Destroy a file.",
      inputSchema: strictObject({ path: string() }),
      sideEffect: "destructive",
      permission: "deny",
      timeoutMs: 1000,
      resources: (a) => [{ kind: "path", value: a.path }],
      call: () => {
        throw new Error("must never run");
      },
    });
    const h = harness([calls(call("shred", { path: "notes.md" })), final("ok")], { tools: [readFile, writeFile, shred] as Tool<never, unknown>[] });
    await h.driver().start("t");
    expect(h.views[0]!.tools.map((t) => t.name)).toEqual(["read_file", "write_file"]);
    const events = await eventsOf(h.store, "run_1");
    expect(events.slice(3, 5)).toEqual([
      { type: "call.permission", step: 1, callId: "s1c1", permission: "deny", source: "spec", sideEffect: "destructive" },
      {
        type: "call.rejected",
        step: 1,
        callId: "s1c1",
        observation: {
          type: "denied",
          error:
            "Error: permission denied: shred is not allowed for `notes.md`.\n[Next: Do not call shred with these arguments again.]\n[Recovery: If the task cannot be done without it, stop and say which permission is missing.]",
        },
      },
    ]);
  });

  it("lets a policy tighten a permission by path, with its reason", async () => {
    const policy = rulesPolicy([{ resource: { kind: "path", match: "secrets/**" }, permission: "deny", reason: "secrets are off limits" }]);
    const h = harness([calls(call("read_file", { path: "secrets/keys.txt" }), call("read_file", { path: "notes.md" })), final("ok")], { policy });
    await h.driver().start("t");
    const events = await eventsOf(h.store, "run_1");
    expect(events.slice(3, 6)).toEqual([
      { type: "call.permission", step: 1, callId: "s1c1", permission: "deny", source: "policy", reason: "secrets are off limits", sideEffect: "read_only" },
      {
        type: "call.rejected",
        step: 1,
        callId: "s1c1",
        observation: {
          type: "denied",
          error:
            "Error: permission denied: read_file is not allowed for `secrets/keys.txt` (secrets are off limits).\n[Next: Do not call read_file with these arguments again.]\n[Recovery: If the task cannot be done without it, stop and say which permission is missing.]",
        },
      },
      { type: "call.permission", step: 1, callId: "s1c2", permission: "allow", source: "spec", sideEffect: "read_only" },
    ]);
    expect(h.world.executions.map((e) => e.key)).toEqual(["run_1:1:s1c2"]);
  });

  it("journals an approval request for an ask call and waits; refuses an answer quoting another hash; journals who answered", async () => {
    const h = harness([calls(call("write_file", { path: "out.md", content: "hi" })), final("ok")], {
      policy: rulesPolicy([{ sideEffect: "local_mutation", permission: "ask", reason: "writes need a person" }]),
    });
    const driver = h.driver();
    const waiting = await driver.start("t");
    const request = {
      kind: "call",
      runId: "run_1",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      tool: "write_file",
      args: { path: "out.md", content: "hi" },
      argsHash: hashJsonSync({ content: "hi", path: "out.md" }),
      sideEffect: "local_mutation",
      resources: [{ kind: "path", value: "out.md" }],
      // v2: the approval binds the tool's shape too.
      toolShape: toolShapeHash(compileTool(worldTools(world()).writeFile)),
    };
    const requestHash = hashJsonSync(request);
    expect(waiting.status).toBe("waiting");
    expect(waiting.approvals).toEqual([{ approvalId: "apr.1.s1c1.1", request, requestHash, status: "pending" }]);
    expect((await eventsOf(h.store, "run_1")).slice(3)).toEqual([
      { type: "call.permission", step: 1, callId: "s1c1", permission: "ask", source: "policy", reason: "writes need a person", sideEffect: "local_mutation" },
      { type: "approval.requested", approvalId: "apr.1.s1c1.1", request, requestHash },
    ]);
    expect(h.world.executions).toEqual([]);
    expect((await h.store.listRuns({ status: ["waiting"] })).map((r) => r.runId)).toEqual(["run_1"]);

    // A stale or forged hash is refused, and nothing is written.
    const wrong = "0".repeat(64);
    await expect(driver.approve(waiting.runId, "apr.1.s1c1.1" as never, { requestHash: wrong, by: "mallory" })).rejects.toThrow(
      `the answer quotes request 000000000000…, but approval apr.1.s1c1.1 of run run_1 is for request ${requestHash.slice(0, 12)}…`,
    );
    // Audit finding 7: this asserted inside a catch that might never run.
    const refused: unknown = await driver.approve(waiting.runId, "apr.1.s1c1.1" as never, { requestHash: wrong, by: "mallory" }).then(
      () => "approved",
      (e: unknown) => e,
    );
    expect(isIsoagentError(refused, "APPROVAL_HASH_MISMATCH"), String(refused)).toBe(true);
    expect((await h.store.read("run_1" as never)).length).toBe(5);

    await driver.approve(waiting.runId, "apr.1.s1c1.1" as never, { requestHash, by: "ana", reason: "looks right" });
    const done = await driver.resume(waiting.runId);
    expect(done.status).toBe("completed");
    const events = await eventsOf(h.store, "run_1");
    expect(events[5]).toEqual({ type: "approval.resolved", approvalId: "apr.1.s1c1.1", requestHash, decision: "approve", by: "ana", reason: "looks right" });
    expect(h.world.files["out.md"]).toBe("hi");
    await expect(driver.approve(waiting.runId, "apr.1.s1c1.1" as never, { requestHash, by: "ana" })).rejects.toThrow("run run_1 is completed");
  });

  it("tells the agent when an operator declines", async () => {
    const h = harness([calls(call("write_file", { path: "out.md", content: "hi" })), final("ok")], {
      policy: rulesPolicy([{ tool: "write_*", permission: "ask" }]),
    });
    const driver = h.driver();
    const waiting = await driver.start("t");
    const [a] = waiting.approvals;
    await driver.deny(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana", reason: "not today" });
    const done = await driver.resume(waiting.runId);
    expect(done.status).toBe("completed");
    const events = await eventsOf(h.store, "run_1");
    expect(events.slice(5, 7)).toEqual([
      { type: "approval.resolved", approvalId: "apr.1.s1c1.1", requestHash: a!.requestHash, decision: "deny", by: "ana", reason: "not today" },
      {
        type: "call.rejected",
        step: 1,
        callId: "s1c1",
        observation: {
          type: "denied",
          error:
            'Error: permission denied: an operator declined this call to write_file ("not today").\n[Next: Do not repeat this call.]\n[Recovery: Continue without it if you can; otherwise stop and say what you needed.]',
        },
      },
    ]);
    expect(h.world.executions).toEqual([]);
  });

  it("refuses answers to unknown approvals and answers without a name", async () => {
    const h = harness([calls(call("write_file", { path: "o", content: "x" })), final("ok")], { policy: rulesPolicy([{ permission: "ask" }]) });
    const driver = h.driver();
    const waiting = await driver.start("t");
    await expect(driver.approve(waiting.runId, "apr.9" as never, { requestHash: "x", by: "ana" })).rejects.toThrow("run run_1 has no approval request apr.9");
    await expect(driver.approve(waiting.runId, waiting.approvals[0]!.approvalId, { requestHash: waiting.approvals[0]!.requestHash, by: " " })).rejects.toThrow(
      "an operator's answer must say who answered (by)",
    );
  });

  it("journals the tool's preview in the approval request, under its hash, redacted; a failing preview is left out", async () => {
    const { writeFile } = worldTools(world());
    const files: Record<string, string> = { "notes.md": "one\ntwo\nthree\n" };
    const previewed = (preview: (a: { path: string; content: string }) => string | Promise<string>) =>
      ({ ...writeFile, name: "write_file", permission: "ask", preview }) as unknown as Tool<never, unknown>;
    const diff = previewed((a) => lineDiff(a.path, files[a.path] ?? "", a.content + " sk-secret-1234"));
    const h = harness([calls(call("write_file", { path: "notes.md", content: "one\n2\nthree" })), final("ok")], { tools: [diff], secrets: ["sk-secret-1234"] });
    const waiting = await h.driver().start("t");
    const [pending] = waiting.approvals;
    expect(pending!.request.preview).toBe("--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n one\n-two\n-three\n+2\n+three [REDACTED]\n\\ No newline at end of file\n");
    expect(pending!.requestHash).toBe(hashJsonSync(pending!.request));

    for (const failing of [() => Promise.reject(new Error("no")), () => new Promise<string>(() => {}), () => 42 as unknown as string]) {
      const f = harness([calls(call("write_file", { path: "notes.md", content: "x" })), final("ok")], { tools: [previewed(failing)] });
      const w = await f.driver().start("t"); // the tool's timeout (1 s) bounds a preview that never answers
      expect(w.status).toBe("waiting");
      expect("preview" in w.approvals[0]!.request).toBe(false);
    }
  });

  it("refuses a preview that is not a function", () => {
    expect(() => compileTool({ name: "w", description: "d", inputSchema: strictObject({}), sideEffect: "local_mutation", permission: "ask", timeoutMs: 10, preview: "diff" as never })).toThrow(
      'tool "w": preview must be a function of the arguments, not "diff"',
    );
  });
});

describe("lineDiff", () => {
  it("is a unified diff: /dev/null for a file created or deleted, @@ hunks with three lines of context, no-newline markers", () => {
    expect(lineDiff("a.md", undefined, "new\n")).toBe("--- /dev/null\n+++ b/a.md\n@@ -0,0 +1 @@\n+new\n");
    expect(lineDiff("a.md", "gone\n", undefined)).toBe("--- a/a.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n");
    expect(lineDiff("a.md", "", "new\n")).toBe("--- a/a.md\n+++ b/a.md\n@@ -0,0 +1 @@\n+new\n");
    expect(lineDiff("a.md", "same\n", "same\n")).toBe("--- a/a.md\n+++ b/a.md\n(no change)\n");
    expect(lineDiff("a.md", "a\nb\nc\nd", "a\nc\nd\ne")).toBe("--- a/a.md\n+++ b/a.md\n@@ -1,4 +1,4 @@\n a\n-b\n c\n-d\n\\ No newline at end of file\n+d\n+e\n\\ No newline at end of file\n");
    expect(lineDiff("a.md", "a", "a\n")).toBe("--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n");
    const twenty = Array.from({ length: 20 }, (_, i) => `l${i}\n`).join("");
    expect(lineDiff("b.md", twenty, twenty.replace("l2\n", "L2\n").replace("l17\n", "L17\n"))).toBe(
      "--- a/b.md\n+++ b/b.md\n@@ -1,6 +1,6 @@\n l0\n l1\n-l2\n+L2\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l14\n l15\n l16\n-l17\n+L17\n l18\n l19\n",
    );
    const many = Array.from({ length: 3000 }, (_, i) => String(i)).join("\n");
    const huge = lineDiff("big", many, many + "\nend");
    expect(huge.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---"))).toHaveLength(3000); // past the limit: a whole replacement
  });

  it("is what apply_patch applies: a preview of a change, applied, makes the change", async () => {
    const { memoryWorkspace, workspaceTools } = await import("../../src/toolkit/index.js");
    const before = "one\ntwo\nthree\nfour\n";
    const after = "one\n2\nthree\nfour\nfive\n";
    const ws = memoryWorkspace({ "n.md": before });
    const h = harness([calls(call("apply_patch", { patch: lineDiff("n.md", before, after) })), final("ok")], { tools: workspaceTools(ws, { writePermission: "allow" }).tools });
    await h.driver().start("t");
    expect(new TextDecoder().decode((await ws.read("n.md"))!)).toBe(after);
  });
});
