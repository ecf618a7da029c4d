/**
 * Previews, a running tool's permit, and policy identities at their edges
 * (issue 21: survivors of the driver area's mutation run in src/call/gate.ts).
 */
import { describe, expect, it } from "vitest";
import { call, calls, defineTool, final, strictObject, string, ToolError, type ApprovalRequest, type Tool, type ToolContext } from "../../src/index.js";
import { eventsOf, harness } from "./helpers.js";

const input = strictObject({ text: string("Text") });
function tool(name: string, extra: Record<string, unknown>, body: (args: { text: string }, ctx: ToolContext) => unknown = () => "ok"): Tool<never, unknown> {
  return defineTool({ name, description: `The ${name} tool.`, inputSchema: input, sideEffect: "local_mutation", permission: "ask", timeoutMs: 1000, call: body, ...extra } as never) as Tool<
    never,
    unknown
  >;
}
const MAX = 64 * 1024;

async function requestOf(t: Tool<never, unknown>): Promise<{ request?: ApprovalRequest; events: Record<string, unknown>[] }> {
  const h = harness([calls(call(t.name, { text: "x" })), final("ok")], { tools: [t] });
  const out = await h.driver().start("t");
  return { ...(out.approvals[0] === undefined ? {} : { request: out.approvals[0].request }), events: await eventsOf(h.store, "run_1") };
}

describe("an approval's preview", () => {
  it("is kept whole at 64 KiB, and cut past it saying so", async () => {
    const at = await requestOf(tool("at", { preview: () => "p".repeat(MAX) }));
    expect(at.request!.preview).toBe("p".repeat(MAX));
    const over = await requestOf(tool("over", { preview: () => "p".repeat(MAX + 1) }));
    expect(over.request!.preview).toBe(`${"p".repeat(MAX)}\n… (the preview was cut at ${MAX} characters)`);
  });

  it("is left out when the preview is not a string, fails, or outlives the tool's timeout; the call still asks", async () => {
    const cases = [
      tool("number", { preview: () => 42 }),
      tool("fails", {
        preview: () => {
          throw new Error("no preview today");
        },
      }),
      tool("hangs", { timeoutMs: 50, preview: () => new Promise(() => {}) }),
    ];
    for (const t of cases) {
      const { request } = await requestOf(t);
      expect(request, t.name).toBeDefined();
      expect(request, t.name).not.toHaveProperty("preview");
    }
  });

  it("refuses the call when the preview throws a ToolError: the agent sees the tool's error, and nobody is asked", async () => {
    const { request, events } = await requestOf(
      tool("refuses", {
        preview: () => {
          throw new ToolError("the target file is locked", { next: "Wait for the lock to go." });
        },
      }),
    );
    expect(request).toBeUndefined();
    expect(events.find((e) => e["type"] === "call.rejected")).toMatchObject({
      observation: { type: "tool_error", failure: "error", error: expect.stringContaining("Error: the target file is locked\n[Next: Wait for the lock to go.]") },
    });
  });
});

describe("a running tool's permit", () => {
  it("allows what the call declared, asks the policy for anything else, and denies what is not { kind, value } strings", async () => {
    const answers: unknown[] = [];
    const probe = tool("probe", { permission: "allow", resources: () => [{ kind: "path", value: "a.md" }] }, (_a, ctx) => {
      answers.push(ctx.permit([{ kind: "path", value: "a.md" }]));
      answers.push(ctx.permit([{ kind: "path", value: "b.md" }]));
      answers.push(ctx.permit([{ kind: "path", value: 3 } as never]));
      answers.push(ctx.permit("a.md" as never));
      return "ok";
    });
    const policy = (q: { resources: readonly { value: string }[]; stage?: string }) =>
      q.stage === "discovered" ? { permission: "deny" as const, reason: `not ${q.resources.map((r) => r.value).join()}` } : { permission: "allow" as const };
    const h = harness([calls(call("probe", { text: "x" })), final("ok")], { tools: [probe], policy: policy as never });
    await h.driver().start("t");
    const malformed = { permission: "deny", reason: "the resources asked about are not { kind, value } strings" };
    expect(answers).toEqual([{ permission: "allow" }, expect.objectContaining({ permission: "deny", reason: "not b.md" }), malformed, malformed]);
  });
});

describe("a policy identity", () => {
  it("names a missing identity as (none) when a call is reopened under a new one", async () => {
    const write = tool("write", {});
    const h = harness([calls(call("write", { text: "x" })), final("ok")], { tools: [write] });
    const waiting = await h.driver().start("t");
    expect(waiting.status).toBe("waiting");
    await h.driver({ policyVersion: "v2" }).resume(waiting.runId);
    const reopened = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reopened");
    expect(reopened).toEqual([{ type: "call.reopened", step: 1, callId: "s1c1", reason: 'the policy changed from "(none)" to "v2" since this call was asked' }]);
  });

  it("and names a driver without one as (none) too", async () => {
    const write = tool("write", {});
    const h = harness([calls(call("write", { text: "x" })), final("ok")], { tools: [write] });
    const waiting = await h.driver({ policyVersion: "v1" }).start("t");
    await h.driver({ policyVersion: undefined }).resume(waiting.runId);
    const reopened = (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.reopened");
    expect(reopened).toEqual([{ type: "call.reopened", step: 1, callId: "s1c1", reason: 'the policy changed from "v1" to "(none)" since this call was asked' }]);
  });
});

describe("what a call touches", () => {
  const events = async (t: Tool<never, unknown>, policy?: unknown) => {
    const h = harness([calls(call(t.name, { text: "x" })), final("ok")], { tools: [t], ...(policy === undefined ? {} : { policy: policy as never }) });
    await h.driver().start("t");
    return (await eventsOf(h.store, "run_1")).filter((e) => e["type"] === "call.permission" || e["type"] === "call.rejected");
  };

  it("a ToolError from resources() refuses the call in the tool's words, before any policy", async () => {
    const t = tool("outside", {
      resources: () => {
        throw new ToolError("the path is outside the workspace");
      },
    });
    const got = await events(t);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ type: "call.rejected", observation: { type: "tool_error", error: expect.stringContaining("Error: the path is outside the workspace") } });
  });

  it("any other failure of resources(), or an answer that is not resources, denies the call as undeterminable", async () => {
    const failing = [
      tool("throws", {
        resources: () => {
          throw new Error("bug");
        },
      }),
      tool("malformed", { resources: () => [{ kind: "path" }] }),
    ];
    for (const t of failing) {
      const got = await events(t);
      expect(
        got.map((e) => e["type"]),
        t.name,
      ).toEqual(["call.permission", "call.rejected"]);
      expect(got[0]).toMatchObject({ permission: "deny", source: "spec", reason: "resources could not be determined", sideEffect: "local_mutation" });
    }
  });

  it("the policy is asked with the tool, side effect, checked arguments, resources, stage, run, step and call", async () => {
    const asked: unknown[] = [];
    const t = tool("probe", { permission: "allow", resources: (a: { text: string }) => [{ kind: "path", value: a.text }] });
    await events(t, (q: unknown) => (asked.push(q), { permission: "allow" }));
    expect(asked).toEqual([{ tool: "probe", sideEffect: "local_mutation", args: { text: "x" }, resources: [{ kind: "path", value: "x" }], stage: "call", runId: "run_1", step: 1, callId: "s1c1" }]);
  });
});
