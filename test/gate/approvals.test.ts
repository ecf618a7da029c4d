/**
 * Approvals bound to what was approved (issue 12): the request's hash covers
 * the tool's shape and the policy's identity; a changed policy turns a
 * pending approval, or a call let through and not started, into a fresh ask
 * that names the change; a stale approval is never used. And an interrupted
 * side effect says exactly what is known: four answers, each pinned.
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, isIsoagentError, rulesPolicy, type Policy, type Tool } from "../../src/index.js";
import { toolShapeHash } from "../../src/driver/index.js";
import { compileTool } from "../../src/tools/index.js";
import { hashJsonSync } from "../../src/json/index.js";
import { crashAt, eventsOf, harness, worldTools } from "../driver/helpers.js";
import { rng } from "../helpers/rng.js";

const LEASE = 30_000;
const ask: Policy = rulesPolicy([{ tool: "write_file", permission: "ask", reason: "writes need a person" }]);
const deny: Policy = rulesPolicy([{ tool: "write_file", permission: "deny", reason: "no writes today" }]);
const script = () => [calls(call("write_file", { path: "a.md", content: "x" })), final("ok")];

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (isIsoagentError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("approvals bound to the tool's shape and the policy's identity", () => {
  it("journals the policy version and the tool's shape in the request, under its hash", async () => {
    const h = harness(script(), { policy: ask, policyVersion: "v1" });
    const waiting = await h.driver().start("t");
    const [a] = waiting.approvals;
    expect(a!.request.policyVersion).toBe("v1");
    expect(a!.request.toolShape).toBe(toolShapeHash(compileTool(worldTools({ files: {}, executions: [] }).writeFile)));
    expect(a!.requestHash).toBe(hashJsonSync(a!.request));
    expect((await eventsOf(h.store, "run_1"))[3]).toEqual({
      type: "call.permission",
      step: 1,
      callId: "s1c1",
      permission: "ask",
      source: "policy",
      reason: "writes need a person",
      sideEffect: "local_mutation",
      policyVersion: "v1",
    });
  });

  it("refuses an answer to an approval asked under another policy (APPROVAL_STALE), and asks again under the new one, naming the change", async () => {
    const h = harness(script(), { policy: ask, policyVersion: "v1" });
    const waiting = await h.driver().start("t");
    const [old] = waiting.approvals;
    const v2 = h.driver({ policyVersion: "v2" });
    expect(await refusal(v2.approve(waiting.runId, old!.approvalId, { requestHash: old!.requestHash, by: "ana" }))).toEqual({
      code: "APPROVAL_STALE",
      message: `approval ${old!.approvalId} of run run_1 was asked under policy "v1", and the policy is now "v2": the call will be decided again when the run is driven`,
    });
    expect(h.world.executions).toEqual([]);
    const again = await v2.resume(waiting.runId);
    expect(again.status).toBe("waiting");
    const events = await eventsOf(h.store, "run_1");
    const reason = 'the policy changed from "v1" to "v2" since this call was asked';
    expect(events.slice(5, 9)).toEqual([
      { type: "run.resumed", owner: "driver-1", token: 2 },
      { type: "call.reopened", step: 1, callId: "s1c1", reason },
      { type: "call.permission", step: 1, callId: "s1c1", permission: "ask", source: "policy", reason: "writes need a person", sideEffect: "local_mutation", policyVersion: "v2" },
      expect.objectContaining({ type: "approval.requested", approvalId: "apr.1.s1c1.2" }),
    ]);
    const [fresh] = again.approvals;
    expect(fresh!.request).toMatchObject({ policyVersion: "v2", note: reason });
    // The old approval is void: it can never be answered, and its answer was never used.
    expect(await refusal(v2.approve(waiting.runId, old!.approvalId, { requestHash: old!.requestHash, by: "ana" }))).toMatchObject({ code: "APPROVAL_NOT_PENDING" });
    await v2.approve(waiting.runId, fresh!.approvalId, { requestHash: fresh!.requestHash, by: "ana" });
    expect((await v2.resume(waiting.runId)).status).toBe("completed");
    expect(h.world.executions).toEqual([{ tool: "write_file", key: "run_1:1:s1c1", attempt: 1 }]);
  });

  it("decides an approved call that has not started again when the policy changed: a denial now is a denial", async () => {
    const h = harness(script(), { policy: ask, policyVersion: "v1" });
    const v1 = h.driver();
    const waiting = await v1.start("t");
    const [a] = waiting.approvals;
    await v1.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    const done = await h.driver({ policyVersion: "v2", policy: deny }).resume(waiting.runId);
    expect(done.status).toBe("completed");
    expect(h.world.executions).toEqual([]);
    const events = await eventsOf(h.store, "run_1");
    expect(events.filter((e) => e["type"] === "call.reopened")).toEqual([
      { type: "call.reopened", step: 1, callId: "s1c1", reason: 'the policy changed from "v1" to "v2" since this call was let through' },
    ]);
    expect(events.find((e) => e["type"] === "call.rejected")).toMatchObject({ observation: { type: "denied" } });
  });

  it("decides a call the old policy allowed and that did not start (a crash after the call before it) again under the new policy", async () => {
    const two = [calls(call("write_file", { path: "a.md", content: "x" }), call("write_file", { path: "b.md", content: "y" })), final("ok")];
    const h = harness(two, { policyVersion: "v1" });
    const crashed = await h.driver({ faults: crashAt("after_finish_append", "write_file") }).start("t");
    expect(crashed.stopped).toBe("crashed");
    expect(h.world.executions).toHaveLength(1);
    h.clock.advance(LEASE + 1);
    await h.driver({ owner: "driver-2", policyVersion: "v2", policy: deny }).resume(crashed.runId);
    expect(h.world.executions).toHaveLength(1);
    const events = await eventsOf(h.store, "run_1");
    expect(events.filter((e) => e["type"] === "call.reopened")).toEqual([
      { type: "call.reopened", step: 1, callId: "s1c2", reason: 'the policy changed from "v1" to "v2" since this call was let through' },
    ]);
    expect(events.filter((e) => e["type"] === "call.rejected")).toMatchObject([{ callId: "s1c2", observation: { type: "denied" } }]);
  });

  it("refuses an approval for another shape of the tool, naming it; and the run is not resumed", async () => {
    const h = harness(script(), { policy: ask });
    const waiting = await h.driver().start("t");
    const [a] = waiting.approvals;
    const { readFile, writeFile } = worldTools(h.world);
    const changed = { ...writeFile, description: "Write a file, now with a new description." } as Tool<never, unknown>;
    const other = h.driver({ tools: [readFile, changed] as Tool<never, unknown>[] });
    const refused = await refusal(other.approve(waiting.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" }));
    expect(refused.code).toBe("TOOL_SHAPE_CHANGED");
    expect(refused.message).toContain('another shape of tool "write_file"');
    expect((await refusal(other.resume(waiting.runId))).code).toBe("TOOL_SHAPE_CHANGED");
    expect(h.world.executions).toEqual([]);
  });

  it("never uses a stale approval: 300 random interleavings of policy changes, answers and drives", async () => {
    const r = rng(1201);
    for (let k = 0; k < 300; k++) {
      const h = harness(script(), { policy: ask, policyVersion: "p0" });
      let version = 0;
      let outcome = await h.driver({ policyVersion: "p0" }).start("t");
      // The version each execution ran under, and the version of the approval that let it.
      const used: string[] = [];
      for (let step = 0; step < 6 && outcome.status !== "completed"; step++) {
        const move = r();
        if (move < 0.35) version++;
        const d = h.driver({ policyVersion: `p${version}` });
        const pending = outcome.approvals[0];
        if (pending !== undefined && move >= 0.35) {
          try {
            await d.approve(outcome.runId, pending.approvalId, { requestHash: pending.requestHash, by: "ana" });
            used.push(pending.request.policyVersion!);
          } catch (e) {
            if (!isIsoagentError(e, "APPROVAL_STALE")) throw e;
          }
        }
        const before = h.world.executions.length;
        outcome = await d.resume(outcome.runId);
        if (h.world.executions.length > before) {
          // It ran under the approval given last, and that approval was asked under the policy in force now.
          expect(used.at(-1), `case ${k}`).toBe(`p${version}`);
        }
      }
      expect(h.world.executions.length).toBeLessThanOrEqual(1);
    }
  });
});

describe("an interrupted side effect says exactly what is known", () => {
  async function interrupted(answer: (d: ReturnType<ReturnType<typeof harness>["driver"]>, runId: string, a: { approvalId: never; requestHash: string }) => Promise<unknown>) {
    const h = harness(script());
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    h.clock.advance(LEASE + 1);
    const d = h.driver({ owner: "driver-2" });
    const waiting = await d.resume(crashed.runId);
    const [a] = waiting.approvals;
    expect(a!.request).toMatchObject({ kind: "interrupted_side_effect", idempotencyKey: "run_1:1:s1c1" });
    await answer(d, crashed.runId, a as never);
    await d.resume(crashed.runId);
    const events = await eventsOf(h.store, "run_1");
    return { h, reconciled: events.filter((e) => e["type"] === "call.reconciled").at(-1)! };
  }

  it("run_again: the same request again, same idempotency key", async () => {
    const { h, reconciled } = await interrupted((d, runId, a) => d.settle(runId as never, a.approvalId, { requestHash: a.requestHash, by: "ana", resolution: "run_again" }));
    expect(reconciled).toEqual({ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "run_again", by: "ana" });
    expect(h.world.executions.map((e) => [e.key, e.attempt])).toEqual([
      ["run_1:1:s1c1", 1],
      ["run_1:1:s1c1", 2],
    ]);
  });

  it("record_result: it took effect, with this result", async () => {
    const { h, reconciled } = await interrupted((d, runId, a) =>
      d.settle(runId as never, a.approvalId, { requestHash: a.requestHash, by: "ana", resolution: "record_result", content: { written: 1 } }),
    );
    expect(reconciled).toEqual({ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "record_result", by: "ana", observation: { type: "result", content: { written: 1 } } });
    expect(h.world.executions).toHaveLength(1);
  });

  it("record_failure: it is known not to have taken effect", async () => {
    const { reconciled } = await interrupted((d, runId, a) =>
      d.settle(runId as never, a.approvalId, { requestHash: a.requestHash, by: "ana", resolution: "record_failure", reason: "checked the file" }),
    );
    expect(reconciled).toEqual({
      type: "call.reconciled",
      step: 1,
      callId: "s1c1",
      attempt: 1,
      resolution: "record_failure",
      by: "ana",
      reason: "checked the file",
      observation: {
        type: "tool_error",
        failure: "error",
        error:
          "Error: write_file was interrupted, and an operator recorded that it did not take effect.\n[Next: Call write_file again if it is still needed.]\n[Recovery: If it cannot be done, stop and say so.]",
      },
    });
  });

  it("mark_unknown, and a plain deny: the outcome is unknown; check before repeating", async () => {
    const text =
      "Error: write_file was interrupted, and whether it took effect is unknown: an operator could not confirm it either way.\n" +
      "[Next: Check whether it took effect (read back what it would have changed) before you call write_file again.]\n" +
      "[Recovery: If you cannot check, stop and say that the outcome of this call is unknown.]";
    const settled = await interrupted((d, runId, a) => d.settle(runId as never, a.approvalId, { requestHash: a.requestHash, by: "ana", resolution: "mark_unknown" }));
    expect(settled.reconciled).toEqual({ type: "call.reconciled", step: 1, callId: "s1c1", attempt: 1, resolution: "mark_unknown", by: "ana", observation: { type: "interrupted", error: text } });
    const denied = await interrupted((d, runId, a) => d.deny(runId as never, a.approvalId, { requestHash: a.requestHash, by: "ana" }));
    expect(denied.reconciled).toEqual(settled.reconciled);
    expect(denied.h.world.executions).toHaveLength(1);
  });

  it("a reconcile hook's mark_unknown says its owner could not tell", async () => {
    const h = harness(script());
    const crashed = await h.driver({ faults: crashAt("after_effect", "write_file") }).start("t");
    h.clock.advance(LEASE + 1);
    await h.driver({ owner: "driver-2", reconcile: () => ({ action: "mark_unknown" }) }).resume(crashed.runId);
    const reconciled = (await eventsOf(h.store, "run_1")).find((e) => e["type"] === "call.reconciled") as { observation: { type: string; error: string } };
    expect(reconciled.observation.type).toBe("interrupted");
    expect(reconciled.observation.error.split("\n")[0]).toBe("Error: write_file was interrupted, and whether it took effect is unknown: its owner could not confirm it either way.");
  });
});
