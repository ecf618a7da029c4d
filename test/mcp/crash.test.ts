/**
 * A run calling an MCP destructive tool is killed mid-call (the server has
 * the call; the driver dies before its outcome is journaled) and resumed by a
 * new driver over a new connection, as after a restart: the operator is
 * asked, with the call's idempotency key; answered "run again", the server
 * gets the same key in _meta a second time, so it can dedupe. A tool the
 * application trusts as idempotent is run again with the same key without
 * asking, exactly as for local tools.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, type JsonValue, type Tool } from "../../src/index.js";
import { Crash, manualClock } from "../../src/testkit/index.js";
import { connectMcp, mcpTools } from "../../src/mcp/index.js";
import { startSdkServer, tool, type SdkServer } from "./helpers/sdk-server.js";

let server: SdkServer;
beforeEach(async () => {
  server = await startSdkServer([
    tool(
      { name: "delete_account", description: "Deletes an account.", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }, annotations: { destructiveHint: true } },
      (a) => ({ content: [{ type: "text", text: `deleted ${String(a["id"])}` }] }),
    ),
    tool({ name: "set_flag", description: "Sets a flag.", inputSchema: { type: "object", properties: {}, required: [] }, annotations: { destructiveHint: false, idempotentHint: true } }, () => ({
      content: [{ type: "text", text: "set" }],
    })),
  ]);
});
afterEach(() => server.close());

const keyOf = (k: number) => server.calls[k]?.meta?.["io.isoagent/idempotencyKey"];

/** Wraps a tool so that the driver dies while the server runs the call: after the server received it, before any answer is journaled. */
function dyingDuringCall(t: Tool<never, unknown>): Tool<never, unknown> {
  return { ...t, call: async (args, ctx) => (await t.call(args, ctx), Promise.reject(new Crash("killed mid-call"))) };
}

async function scenario(toolName: string, args: Record<string, JsonValue>, options: { trust: boolean; kill: "during_call" | "after_effect" }) {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const agent = { decide: async (v: { step: number }) => (v.step === 1 ? calls(call(toolName, args)) : final("done")) };
  // The first process: its own connection and tools.
  const c1 = await connectMcp({ url: server.url });
  const set1 = await mcpTools(c1, { trustAnnotations: options.trust });
  const tools = options.kill === "during_call" ? set1.tools.map((t) => (t.name === toolName ? dyingDuringCall(t) : t)) : set1.tools;
  const first = createDriver({
    store,
    clock,
    agent,
    tools,
    reconcile: set1.reconcile,
    ...(options.kill === "after_effect"
      ? {
          faults: {
            at: (p: string) => {
              if (p === "after_effect") throw new Crash();
            },
          },
        }
      : {}),
  });
  let outcome = await first.start("t");
  if (outcome.status === "waiting") {
    const [a] = outcome.approvals;
    await first.approve(outcome.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    outcome = await first.resume(outcome.runId);
  }
  expect(outcome.stopped).toBe("crashed");
  await c1.close();
  // The dead driver's lease expires (it covered the call's whole timeout: the
  // store says until when); a new process resumes with a new connection.
  clock.advance((await store.lease(outcome.runId))!.expiresAt - clock.now() + 1);
  const c2 = await connectMcp({ url: server.url });
  const set2 = await mcpTools(c2, { trustAnnotations: options.trust });
  const second = createDriver({ store, clock, agent, tools: set2.tools, reconcile: set2.reconcile });
  const resumed = await second.resume(outcome.runId);
  return { store, second, resumed, runId: outcome.runId, close: () => c2.close() };
}

describe("an MCP side effect killed mid-call", () => {
  for (const kill of ["during_call", "after_effect"] as const) {
    it(`${kill}: an untrusted destructive tool goes to the operator with its idempotency key; run again, the server gets the same key`, async () => {
      const s = await scenario("delete_account", { id: "acct_7" }, { trust: false, kill });
      expect(server.calls).toHaveLength(1);
      expect(s.resumed.status).toBe("waiting");
      const [ask] = s.resumed.approvals;
      expect(ask!.request).toMatchObject({ kind: "interrupted_side_effect", tool: "delete_account", sideEffect: "destructive", idempotencyKey: keyOf(0) });
      await s.second.settle(s.runId, ask!.approvalId, { requestHash: ask!.requestHash, by: "ana", resolution: "run_again" });
      const done = await s.second.resume(s.runId);
      expect(done.status).toBe("completed");
      expect(server.calls).toHaveLength(2);
      expect(keyOf(1)).toBe(keyOf(0));
      expect(server.calls[1]!.meta?.["io.isoagent/runId"]).toBe(s.runId);
      await s.close();
    });
  }

  it("a tool the server says is destructive stays with the operator even when its annotations are trusted", async () => {
    const s = await scenario("delete_account", { id: "acct_8" }, { trust: true, kill: "during_call" });
    expect(s.resumed.status).toBe("waiting");
    expect(server.calls).toHaveLength(1);
    await s.close();
  });

  it("a trusted idempotent tool is run again with the same key, without asking", async () => {
    const s = await scenario("set_flag", {}, { trust: true, kill: "during_call" });
    expect(s.resumed.status).toBe("completed");
    expect(server.calls).toHaveLength(2);
    expect(keyOf(1)).toBe(keyOf(0));
    const reconciled = (await s.store.read(s.runId)).find((e) => e.type === "call.reconciled") as { resolution: string; by: string } | undefined;
    expect(reconciled).toMatchObject({ resolution: "run_again", by: "hook" });
    await s.close();
  });
});
