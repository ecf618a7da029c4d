/**
 * Bounded recovery (issue 26, finding 3) where operators answer: the ask a
 * call interrupted too often becomes shows in the HTTP API and in MCP run
 * control like any interrupted side effect, with its count and cause, and
 * each answer there lets the call run exactly once more. A run that failed
 * its limit of resumes without progress shows its reason and detail.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type Driver, type RunId, type Tool } from "../../src/index.js";
import { Crash, manualClock, sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { worldTools, type World } from "../driver/helpers.js";
import { serveFetch } from "../mcp/helpers/serve.js";
import { until } from "../helpers/time.js";

const TOKEN = "t0k3n-for-tests-0123456789";
const LEASE = 30_000;
const json = (body: unknown): RequestInit => ({ method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
const get = { headers: { authorization: `Bearer ${TOKEN}` } };

/** A driver whose read_file crashes the process after its effect, `crashes` times in all; and a run of it, asked about after its 2 interruptions. */
async function crashLoop(crashes: number): Promise<{ driver: Driver; runId: RunId; world: World; clock: ReturnType<typeof manualClock> }> {
  const clock = manualClock();
  const world: World = { files: { "notes.md": "hello" }, executions: [] };
  const { readFile, writeFile } = worldTools(world);
  let crashed = 0;
  const driver = createDriver({
    store: memoryStore({ clock }),
    clock,
    ids: sequentialIds(),
    agent: scriptedAgent([calls(call("read_file", { path: "notes.md" })), final("done")]),
    tools: [readFile, writeFile] as Tool<never, unknown>[],
    faults: {
      at: (p) => {
        if (p === "after_effect" && crashed < crashes) {
          crashed++;
          throw new Crash();
        }
      },
    },
  });
  const runId = await driver.create("read notes.md");
  // Each resume stands for a process started again after the last one died (its lease expired).
  // (Bounded, so that a recovery without bounds fails here instead of looping.)
  for (let outcome = await driver.resume(runId), k = 0; outcome.status === "running" && k < 10; outcome = await driver.resume(runId), k++) clock.advance(LEASE + 1);
  return { driver, runId, world, clock };
}

describe("the ask of a call interrupted too often, over HTTP", () => {
  it("GET shows it with its count, cause and note; approving runs it once more; settling run_again once more again", async () => {
    const { driver, runId, world, clock } = await crashLoop(3);
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
    const { run } = (await (await app.request(`/runs/${runId}`, get)).json()) as {
      run: { status: string; approvals: { approvalId: string; requestHash: string; request: Record<string, unknown> }[] };
    };
    expect(run.status).toBe("waiting");
    const [a] = run.approvals;
    expect(a!.request).toMatchObject({
      kind: "interrupted_side_effect",
      tool: "read_file",
      sideEffect: "read_only",
      attempt: 2,
      interrupted: { cause: "lease_expired", limit: 2 },
      note: expect.stringMatching(
        /^read_file was interrupted 2 times \(recovery\.maxInterruptions\): it runs again only when an operator says so\. Last time driver_\S+ stopped without releasing the run, and its lease expired\.$/,
      ),
    });
    expect(((await (await app.request(`/runs/${runId}/approvals`, get)).json()) as { approvals: unknown[] }).approvals).toEqual(run.approvals);
    expect(world.executions).toHaveLength(2);

    // Approve: the backend drives the run, the read runs once (attempt 3) and crashes again.
    const res = await app.request(`/runs/${runId}/approvals/${a!.approvalId}`, json({ decision: "approve", requestHash: a!.requestHash, by: "ana" }));
    expect([res.status, await res.json()]).toEqual([200, { ok: true }]);
    await until("the approved read to run once more", () => world.executions.length === 3);
    clock.advance(LEASE + 1);
    const again = await driver.resume(runId);
    expect(again.status).toBe("waiting");
    expect(world.executions).toHaveLength(3);
    const b = again.approvals[0]!;
    expect(b.request).toMatchObject({ attempt: 3, interrupted: { limit: 2 } });
    // Settle run_again: once more, and this time it finishes.
    const settled = await app.request(`/runs/${runId}/reconcile`, json({ approvalId: b.approvalId, requestHash: b.requestHash, resolution: "run_again", by: "ana" }));
    expect(settled.status).toBe(200);
    await until("the run to complete", async () => (await driver.state(runId)).status === "completed");
    expect(world.executions.map((x) => x.attempt)).toEqual([1, 2, 3, 4]);
  });

  it("a run failed for no progress shows its reason and detail", async () => {
    const clock = manualClock();
    const driver = createDriver({
      store: memoryStore({ clock }),
      clock,
      ids: sequentialIds(),
      tools: [],
      agent: {
        decide: async () => {
          throw new Crash("out of memory");
        },
      },
    });
    const runId = await driver.create("t");
    for (let outcome = await driver.resume(runId), k = 0; outcome.status === "running" && k < 10; outcome = await driver.resume(runId), k++) clock.advance(LEASE + 1);
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
    const { run } = (await (await app.request(`/runs/${runId}`, get)).json()) as { run: { status: string; failure: { reason: string; detail: string } } };
    expect(run.status).toBe("failed");
    expect(run.failure.reason).toBe("no_progress");
    expect(run.failure.detail).toMatch(/^the run was taken over 3 times in a row without progress/);
  });
});

describe("the ask of a call interrupted too often, over MCP run control", () => {
  it("is listed with its count and cause, and an operator's approve runs it once more", async () => {
    const { driver, runId, world } = await crashLoop(2);
    const server = mcpRunsServer(driverBackend(driver));
    const http = await serveFetch((r) => server.fetch(r, { scope: "operator", by: "ana" }) as Promise<Response>);
    const client = new Client({ name: "operator", version: "1" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.origin}/mcp`)));
      const text = (r: unknown): any => JSON.parse((r as { content: { text: string }[] }).content[0]!.text);
      const { approvals } = text(await client.callTool({ name: "isoagent_list_approvals", arguments: { runId } }));
      expect(approvals).toHaveLength(1);
      const [a] = approvals;
      expect(a.request).toMatchObject({ kind: "interrupted_side_effect", attempt: 2, interrupted: { cause: "lease_expired", limit: 2 } });
      expect(text(await client.callTool({ name: "isoagent_answer_approval", arguments: { runId, approvalId: a.approvalId, decision: "approve", requestHash: a.requestHash } }))).toEqual({ ok: true });
      await until("the run to complete", async () => (await driver.state(runId)).status === "completed");
      expect(world.executions.map((x) => x.attempt)).toEqual([1, 2, 3]);
      const events = await driver.events(runId);
      expect(events.filter((e) => e.type === "call.reconciled").map((e) => [e.attempt, e.resolution, e.by])).toEqual([
        [1, "run_again", "runtime"],
        [2, "run_again", "ana"],
      ]);
    } finally {
      await client.close();
      await http.close();
    }
  });
});
