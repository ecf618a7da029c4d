/**
 * The answer a tool that asks a person reads (issue 21: survivors of the
 * driver area's mutation run in src/driver/session.ts's answerFor): the
 * answer given when approving this call, of this step; not another call's,
 * not the same call id's in an earlier step, not one given to an approval
 * that was voided when the policy changed; none when the approval that let
 * the call through carries none.
 */
import { describe, expect, it } from "vitest";
import { AgentError, call, calls, createDriver, defineTool, final, memoryStore, strictObject, type Agent, type AgentDecision, type Store, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";

/** What each run of the tool read as its answer, by step and call. */
type Heard = Record<string, unknown>;

/**
 * The asking tool. Whether it wants a person's answer is not part of its
 * shape (name, description, schema, side effect): two drivers may differ in
 * it over the same run.
 */
function confirmTool(heard: Heard, wantsAnswer: boolean): Tool<never, unknown> {
  return defineTool({
    name: "confirm",
    description: "Ask a person to confirm.",
    inputSchema: strictObject({}),
    sideEffect: "local_mutation",
    permission: "ask",
    wantsAnswer,
    timeoutMs: 1000,
    call: (_a, ctx) => {
      heard[`${ctx.step}/${ctx.callId}`] = "answer" in ctx ? ctx.answer : "none";
      return "ok";
    },
  }) as Tool<never, unknown>;
}

function drivers(store: Store, heard: Heard, agent: Agent) {
  const ids = sequentialIds();
  return (wantsAnswer: boolean, policyVersion?: string) =>
    createDriver({ store, agent, tools: [confirmTool(heard, wantsAnswer)], ids, owner: "driver-1", ...(policyVersion === undefined ? {} : { policyVersion }) });
}

describe("the answer a tool reads", () => {
  // mutation: session.ts answerFor, "r.callId === call.callId" -> "true", and each "&&" up to it -> "||",
  // each prefix of the condition -> "true"
  it("is the one given for its own call: two calls of a step, each answered", async () => {
    const heard: Heard = {};
    const driver = drivers(memoryStore(), heard, { decide: async (v) => (v.step === 1 ? calls(call("confirm", {}, "x"), call("confirm", {}, "y")) : final("done")) })(true);
    const waiting = await driver.start("t");
    expect(waiting.status).toBe("waiting");
    const [ax, ay] = waiting.approvals;
    expect([ax!.request.callId, ay!.request.callId]).toEqual(["x", "y"]);
    await driver.approve(waiting.runId, ax!.approvalId, { requestHash: ax!.requestHash, by: "ana", answer: "yes to x" });
    await driver.approve(waiting.runId, ay!.approvalId, { requestHash: ay!.requestHash, by: "bo", answer: "yes to y" });
    expect((await driver.resume(waiting.runId)).status).toBe("completed");
    expect(heard).toEqual({ "1/x": { text: "yes to x", by: "ana" }, "1/y": { text: "yes to y", by: "bo" } });
  });

  // mutation: session.ts answerFor, "r.step === this.state.current?.step" -> "true"; "r.kind === \"call\" || r.step === ...";
  // the first two conditions -> "true"; "a.answer !== undefined" -> "true"
  it("is none for a call whose approval carries none, though the same call id was answered in an earlier step", async () => {
    const heard: Heard = {};
    let down = true;
    const agent: Agent = {
      decide: async (v) => {
        if (v.step === 2 && down) {
          down = false;
          throw new AgentError("provider down", { retryable: true });
        }
        const script: Record<number, AgentDecision> = { 1: calls(call("confirm", {}, "c1")), 2: calls(call("confirm", {}, "c1")), 3: final("done") };
        return script[v.step]!;
      },
    };
    const driver = drivers(memoryStore(), heard, agent);
    const asking = driver(true);
    const first = await asking.start("t");
    const [a1] = first.approvals;
    await asking.approve(first.runId, a1!.approvalId, { requestHash: a1!.requestHash, by: "ana", answer: "one" });
    expect((await asking.resume(first.runId)).stopped).toBe("agent_unavailable");
    // Step 2 is decided by a driver whose tool asks without wanting an answer, and approved without one.
    const second = await driver(false).resume(first.runId);
    expect(second.status).toBe("waiting");
    const [a2] = second.approvals;
    expect(a2!.request).toMatchObject({ step: 2, callId: "c1" });
    expect(a2!.request.wantsAnswer).toBeUndefined();
    await asking.approve(first.runId, a2!.approvalId, { requestHash: a2!.requestHash, by: "bo" });
    expect((await asking.resume(first.runId)).status).toBe("completed");
    expect(heard).toEqual({ "1/c1": { text: "one", by: "ana" }, "2/c1": "none" });
  });

  // mutation: session.ts answerFor, "a.status === \"approved\"" -> "true"
  it("is none from an approval voided when the policy changed, though it was answered", async () => {
    const heard: Heard = {};
    const driver = drivers(memoryStore(), heard, { decide: async (v) => (v.step === 1 ? calls(call("confirm", {}, "c1")) : final("done")) });
    const v1 = driver(true, "v1");
    const waiting = await v1.start("t");
    const [a1] = waiting.approvals;
    await v1.approve(waiting.runId, a1!.approvalId, { requestHash: a1!.requestHash, by: "ana", answer: "first" });
    // Under policy v2 the call, approved and not started, is decided again: the answered approval is voided, a new one asked.
    const v2 = driver(false, "v2");
    const again = await v2.resume(waiting.runId);
    expect(again.status).toBe("waiting");
    const [a2] = again.approvals;
    expect(a2!.approvalId).not.toBe(a1!.approvalId);
    await v2.approve(waiting.runId, a2!.approvalId, { requestHash: a2!.requestHash, by: "bo" });
    const state = await v2.state(waiting.runId);
    expect(state.approvals[a1!.approvalId]).toMatchObject({ status: "voided", answer: "first" });
    expect((await driver(true, "v2").resume(waiting.runId)).status).toBe("completed");
    expect(heard).toEqual({ "1/c1": "none" });
  });
});
