/**
 * A preview's permit (issue 19): a preview that reads what a call would
 * touch asks the run's policy, at stage "discovered", about everything,
 * declared or not (the call is not let through yet), fail-closed; a running
 * call's permit still allows what it declared.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type PolicyRequest, type Tool } from "../../src/index.js";

describe("a preview's permit", () => {
  it("puts declared and undeclared resources to the policy at stage discovered; the running call's permit allows what it declared", async () => {
    const asked: { stage: string | undefined; resources: string[] }[] = [];
    const seen: Record<string, string[]> = { preview: [], call: [] };
    const policy = (r: PolicyRequest) => {
      asked.push({ stage: r.stage, resources: r.resources.map((x) => `${x.kind}:${x.value}:${x.operation ?? ""}`) });
      return rulesPolicy([
        { resource: { kind: "path", match: "secret/**" }, permission: "deny" },
        { resource: { kind: "path", match: "ask/**" }, permission: "ask" },
      ])(r);
    };
    const probe = (permit: ((r: { kind: string; value: string; operation?: "read" }[]) => { permission: string }) | undefined) =>
      ["a.txt", "ask/b.txt", "secret/c.txt", "d.txt"].map((p) => `${p}=${permit?.([{ kind: "path", value: p, operation: "read" }]).permission ?? "none"}`);
    const tool = defineTool<{ path: string }>({
      name: "peek",
      description: "Peek.",
      inputSchema: strictObject({ path: string("p") }),
      sideEffect: "local_mutation",
      permission: "ask",
      timeoutMs: 1000,
      resources: (a) => [{ kind: "path", value: a.path, operation: "read" }],
      preview: (_a, ctx) => ((seen["preview"] = probe(ctx.permit)), "preview"),
      call: (_a, ctx) => ((seen["call"] = probe(ctx.permit)), "done"),
    });
    const driver = createDriver({ store: memoryStore(), tools: [tool as Tool<never, unknown>], policy, agent: scriptedAgent([calls(call("peek", { path: "ask/b.txt" })), final("ok")]) });
    const waiting = await driver.start("t");
    expect(waiting.status).toBe("waiting");
    // The declared ask/b.txt is not allowed to the preview: the operator has not approved it yet.
    expect(seen["preview"]).toEqual(["a.txt=allow", "ask/b.txt=ask", "secret/c.txt=deny", "d.txt=allow"]);
    expect(asked.filter((a) => a.stage === "discovered").map((a) => a.resources[0])).toEqual(["path:a.txt:read", "path:ask/b.txt:read", "path:secret/c.txt:read", "path:d.txt:read"]);
    const a = waiting.approvals[0]!;
    await driver.approve(waiting.runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
    await driver.resume(waiting.runId);
    // Approved and running, the call's permit allows what it declared.
    expect(seen["call"]).toEqual(["a.txt=allow", "ask/b.txt=allow", "secret/c.txt=deny", "d.txt=allow"]);
  });
});
