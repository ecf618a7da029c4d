/**
 * A lying server never gains an allow or an automatic re-run: over many
 * random servers (annotations of every type and combination, including
 * strings and numbers where booleans belong), without trustAnnotations every
 * tool is destructive, asks, and is reconciled by an operator; with it, the
 * class follows the spec's table exactly, only true booleans count, only
 * read_only is allowed, only idempotentHint: true re-runs. Then a sample of
 * them is crashed mid-call in a real driver: an untrusted tool is never run
 * again without the operator.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, type JsonValue, type SideEffect } from "../../src/index.js";
import { Crash, manualClock } from "../../src/testkit/index.js";
import { connectMcp, mcpTools } from "../../src/mcp/index.js";
import { rng } from "../helpers/rng.js";
import { fakeServer } from "./helpers/fake.js";

const VALUES: JsonValue[] = [true, false, "true", "false", 0, 1, null, {}, [], "yes"];
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

function randomAnnotations(r: () => number): Record<string, JsonValue> | undefined {
  if (r() < 0.1) return undefined;
  const a: Record<string, JsonValue> = {};
  for (const h of HINTS) if (r() < 0.7) a[h] = VALUES[Math.floor(r() * VALUES.length)]!;
  if (r() < 0.2) a["title"] = "Totally harmless";
  return a;
}

/** The spec's table, written out independently. */
function expected(a: Record<string, JsonValue> | undefined): SideEffect {
  if (a?.["readOnlyHint"] === true) return "read_only";
  if (a?.["destructiveHint"] === false) return a["openWorldHint"] === false ? "local_mutation" : "remote_mutation";
  return "destructive";
}

describe("trust in annotations, over random servers", () => {
  it("2,000 random tools: untrusted is always destructive + ask + operator; trusted follows the table, and only true booleans count", async () => {
    const r = rng(16_2026);
    let readOnlyClaims = 0;
    let idempotentClaims = 0;
    for (let round = 0; round < 40; round++) {
      const listed = Array.from({ length: 50 }, (_, k) => ({
        name: `t${k}`,
        description: "A tool.",
        inputSchema: { type: "object" },
        ...(() => {
          const a = randomAnnotations(r);
          return a === undefined ? {} : { annotations: a };
        })(),
      }));
      const transport = () => fakeServer((method) => (method === "tools/list" ? { tools: listed } : { content: [] }));
      for (const trust of [false, true]) {
        const set = await mcpTools(await connectMcp({ transport: transport() }), { trustAnnotations: trust });
        expect(set.tools).toHaveLength(50);
        for (const [k, t] of set.tools.entries()) {
          const a = listed[k]!.annotations as Record<string, JsonValue> | undefined;
          const rec = await set.reconcile({ runId: "r" as never, step: 1, callId: "c" as never, tool: t.name, sideEffect: t.sideEffect, args: {}, attempt: 1, idempotencyKey: "k" });
          if (!trust) {
            if (a?.["readOnlyHint"] === true) readOnlyClaims++;
            if (a?.["idempotentHint"] === true) idempotentClaims++;
            expect([t.sideEffect, t.permission, rec.action]).toEqual(["destructive", "ask", "ask_operator"]);
          } else {
            const side = expected(a);
            expect(t.sideEffect).toBe(side);
            expect(t.permission).toBe(side === "read_only" ? "allow" : "ask");
            expect(rec.action).toBe(side !== "read_only" && a?.["idempotentHint"] === true ? "run_again" : "ask_operator");
          }
        }
      }
    }
    // The cases did exercise lying claims.
    expect(readOnlyClaims).toBeGreaterThan(100);
    expect(idempotentClaims).toBeGreaterThan(100);
  });

  it("200 random servers crashed mid-call in a driver: an untrusted tool is never run again without the operator, whatever it claims", async () => {
    const r = rng(42);
    for (let round = 0; round < 200; round++) {
      const annotations = { readOnlyHint: r() < 0.5, idempotentHint: r() < 0.5, destructiveHint: r() < 0.5 ? false : true };
      const listed = [{ name: "act", description: "Acts.", inputSchema: { type: "object" }, annotations }];
      const keys: string[] = [];
      const transport = () =>
        fakeServer((method, params) => {
          if (method === "tools/list") return { tools: listed };
          keys.push(String((params["_meta"] as Record<string, JsonValue>)["io.isoagent/idempotencyKey"]));
          return { content: [{ type: "text", text: "done" }] };
        });
      const clock = manualClock();
      const store = memoryStore({ clock });
      const first = await mcpTools(await connectMcp({ transport: transport() }));
      const agent = { decide: async (v: { step: number }) => (v.step === 1 ? calls(call("act")) : final("ok")) };
      const crashing = createDriver({
        store,
        agent,
        tools: first.tools,
        reconcile: first.reconcile,
        clock,
        faults: {
          at: (p) => {
            if (p === "after_effect") throw new Crash();
          },
        },
        policy: () => ({ permission: "allow" }),
      });
      // The tool asks: approve it, then crash after its effect.
      let outcome = await crashing.start("t");
      const [ask] = outcome.approvals;
      await crashing.approve(outcome.runId, ask!.approvalId, { requestHash: ask!.requestHash, by: "test" });
      outcome = await crashing.resume(outcome.runId);
      expect(outcome.stopped).toBe("crashed");
      // The dead driver's lease expires: it covered the call's whole timeout, until when the store says.
      clock.advance((await store.lease(outcome.runId))!.expiresAt - clock.now() + 1);
      const second = await mcpTools(await connectMcp({ transport: transport() }));
      const resumed = await createDriver({ store, agent, tools: second.tools, reconcile: second.reconcile, clock }).resume(outcome.runId);
      expect(resumed.status).toBe("waiting");
      expect(resumed.approvals.map((a) => [a.request.kind, a.request.idempotencyKey])).toEqual([["interrupted_side_effect", keys[0]]]);
      expect(keys).toHaveLength(1);
    }
  });
});
