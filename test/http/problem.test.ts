/**
 * Issue 12: a run whose tools changed shape is not resumed
 * (TOOL_SHAPE_CHANGED, naming the tool), and the operator sees why: the
 * run's view carries the problem until a drive works again.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { until } from "../helpers/time.js";

const TOKEN = "t0k3n-for-tests-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const tool = (name: string, description: string, permission: "ask" | "allow" = "allow") =>
  defineTool({ name, description, inputSchema: strictObject({}), sideEffect: "local_mutation", permission, timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

describe("a run its driver cannot resume, over HTTP", () => {
  it("shows the operator why (TOOL_SHAPE_CHANGED, naming the tool); the run stays as it was", async () => {
    const store = memoryStore();
    const agent = () => scriptedAgent([calls(call("write")), final("done")]);
    // Made by a deployment with one tool; it waits for an approval.
    const before = createDriver({ store, ids: sequentialIds(), agent: agent(), tools: [tool("write", "Write.", "ask")] });
    const waiting = await before.start("t");
    expect(waiting.status).toBe("waiting");
    // The next deployment also offers a tool the run was never offered.
    const after = createDriver({ store, agent: agent(), tools: [tool("write", "Write.", "ask"), tool("erase", "Erase everything.")] });
    const app = createHttpApp({ backend: driverBackend(after), tokens: () => [TOKEN] });
    const a = waiting.approvals[0]!;
    const answered = await app.request(`/runs/${waiting.runId}/approvals/${a.approvalId}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", requestHash: a.requestHash, by: "ana" }),
    });
    expect(answered.status).toBe(200);
    const run = await until("the run's view to show its problem", async () => {
      const r = ((await (await app.request(`/runs/${waiting.runId}`, { headers: auth })).json()) as { run: { status: string; problem?: { code: string; message: string } } }).run;
      return r.problem !== undefined && r;
    });
    expect(run.status).toBe("running");
    expect(run.problem).toEqual({
      code: "TOOL_SHAPE_CHANGED",
      message: `run ${waiting.runId} was not offered tool "erase", which this driver offers (register tools conditionally; never change a tool's shape under a live run)`,
    });
    // Nothing was done with the tools the run was not offered.
    expect((await store.read(waiting.runId)).filter((e) => e.type === "call.started")).toEqual([]);
  });
});
