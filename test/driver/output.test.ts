/**
 * Structured final output (issue 29): a task's answer, or a conversation
 * turn's, must match a JSON Schema. The session checks it with the
 * compiler of tools' arguments, journals a refusal (`output.rejected`)
 * that the agent is shown, and asks again under the failure limit.
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/schema/index.js";
import { createDriver, final, integer, isIsoagentError, memoryStore, scriptedAgent, strictObject, string, type Agent, type AgentView, type JournalEvent, type JsonValue } from "../../src/index.js";
import { reduce, verifyChain } from "../../src/journal/index.js";
import { code } from "../helpers/conversation.js";
import { rng } from "../helpers/rng.js";

const ANSWER = strictObject({ title: string(), count: integer() });

const rejected = (events: readonly JournalEvent[]) => events.filter((e): e is Extract<JournalEvent, { type: "output.rejected" }> => e.type === "output.rejected");

/** An agent that answers from a list, and keeps what it was shown. */
function answering(outputs: JsonValue[]): Agent & { views: AgentView[] } {
  const views: AgentView[] = [];
  let k = 0;
  // The transcript as it was at each decision (the driver's grows on).
  return { views, decide: async (view) => (views.push({ ...view, transcript: [...view.transcript] }), { kind: "final", output: outputs[k++] ?? "out of answers" }) };
}

describe("structured final output", () => {
  it("takes a valid answer: text is read as JSON, the agent is shown the schema", async () => {
    const agent = answering(['{"title":"milk","count":2}']);
    const driver = createDriver({ store: memoryStore(), agent, tools: [] });
    const outcome = await driver.start("Count the milk.", { outputSchema: ANSWER });
    expect(outcome).toMatchObject({ status: "completed", output: { title: "milk", count: 2 } });
    expect(agent.views[0]!.outputSchema).toEqual(ANSWER);
    const events = await driver.events(outcome.runId);
    expect(events[0]).toMatchObject({ type: "run.created", v: 5, outputSchema: ANSWER });
    // The decision journaled is the answer as JSON.
    expect(events.find((e) => e.type === "step.decided")).toMatchObject({ decision: { kind: "final", output: { title: "milk", count: 2 } } });
  });

  it("refuses an invalid answer, shows the agent why, and takes the corrected one", async () => {
    const agent = answering(["here you go: milk", { title: "milk" }, { title: "milk", count: 2 }]);
    const driver = createDriver({ store: memoryStore(), agent, tools: [] });
    const outcome = await driver.start("Count the milk.", { outputSchema: ANSWER });
    expect(outcome).toMatchObject({ status: "completed", output: { title: "milk", count: 2 } });
    const events = await driver.events(outcome.runId);
    const refusals = rejected(events);
    expect(refusals.map((e) => e.step)).toEqual([1, 2]);
    expect(refusals[0]!.error).toMatch(/^Error: invalid final answer: it is not valid JSON: /);
    expect(refusals[1]!.error).toMatch(/^Error: invalid final answer: .*count/);
    expect(refusals[1]!.error).toContain("[Next: Answer again with a final answer that matches the output schema.]");
    // The agent saw each refusal right after its answer.
    const third = agent.views[2]!.transcript;
    expect(third.at(-1)).toEqual({ type: "rejected", step: 2, error: refusals[1]!.error });
    expect(third.at(-3)).toEqual({ type: "rejected", step: 1, error: refusals[0]!.error });
    // The journal replays to the same state.
    verifyChain(events);
    expect(reduce(events)).toEqual(await driver.state(outcome.runId));
    expect(reduce(events)).toMatchObject({ status: "completed", output: { title: "milk", count: 2 }, consecutiveFailures: 2 });
  });

  it("fails the task at the failure limit", async () => {
    const agent = answering(["no", "still no", "never"]);
    const driver = createDriver({ store: memoryStore(), agent, tools: [], limits: { maxConsecutiveFailures: 2 } });
    const outcome = await driver.start("Count the milk.", { outputSchema: ANSWER });
    expect(outcome.status).toBe("failed");
    const events = await driver.events(outcome.runId);
    expect(rejected(events)).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "run.failed", reason: "consecutive_failures" });
    expect(agent.views).toHaveLength(2);
  });

  it("in a conversation: the run's schema holds every turn, a message may name its own, and a turn past the limit ends while the conversation goes on", async () => {
    const agent = answering([{ title: "a", count: 1 }, "bad", "worse", "plain text is fine now"]);
    const driver = createDriver({ store: memoryStore(), agent, tools: [], limits: { maxConsecutiveFailures: 2 } });
    const chat = await driver.create("Be brief.", { conversation: true, outputSchema: ANSWER });
    await driver.send(chat, { id: "m1", text: "one" });
    expect(await driver.resume(chat)).toMatchObject({ status: "idle", output: { title: "a", count: 1 } });
    await driver.send(chat, { id: "m2", text: "two" });
    const second = await driver.resume(chat);
    expect(second.status).toBe("idle");
    const events = await driver.events(chat);
    expect(events.at(-1)).toMatchObject({ type: "turn.ended", turn: 2, reason: "consecutive_failures" });
    // A message's own schema (a string) replaces the run's for its turn.
    await driver.send(chat, { id: "m3", text: "three", outputSchema: { type: "string" } });
    expect(await driver.resume(chat)).toMatchObject({ status: "idle", output: "plain text is fine now" });
    expect(agent.views.at(-1)!.outputSchema).toEqual({ type: "string" });
    // The same id with another schema is another message.
    expect(await code(driver.send(chat, { id: "m3", text: "three" }))).toBe("MESSAGE_ID_REUSED");
    expect((await driver.send(chat, { id: "m3", text: "three", outputSchema: { type: "string" } })).duplicate).toBe(true);
    expect(reduce(await driver.events(chat))).toEqual(await driver.state(chat));
  });

  it("refuses a schema the compiler does not take, too large, or not JSON, before anything is journaled", async () => {
    const store = memoryStore();
    const driver = createDriver({ store, agent: answering([]), tools: [] });
    expect(await code(driver.create("t", { outputSchema: { type: "nope" } }))).toBe("OUTPUT_SCHEMA_INVALID");
    expect(await code(driver.create("t", { outputSchema: { $ref: "https://example.com/s.json" } }))).toBe("OUTPUT_SCHEMA_INVALID");
    expect(await code(driver.create("t", { outputSchema: { type: "object", description: "x".repeat(70_000) } }))).toBe("OUTPUT_SCHEMA_INVALID");
    expect(await code(driver.create("t", { outputSchema: { type: "object", bad: () => 1 } as never }))).toBe("OUTPUT_SCHEMA_INVALID");
    expect(await store.listRuns()).toEqual([]);
    const chat = await driver.create("t", { conversation: true });
    expect(await code(driver.send(chat, { id: "m1", text: "hi", outputSchema: { minLength: -1 } }))).toBe("OUTPUT_SCHEMA_INVALID");
    expect((await driver.events(chat)).map((e) => e.type)).toEqual(["run.created"]);
  });

  it("takes a Standard Schema through Standard JSON Schema", async () => {
    const standard = {
      "~standard": { version: 1 as const, vendor: "test", jsonSchema: { input: () => ({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }) } },
    };
    const driver = createDriver({ store: memoryStore(), agent: answering(['{"ok":"yes"}', '{"ok":true}']), tools: [] });
    const outcome = await driver.start("t", { outputSchema: standard });
    expect(outcome).toMatchObject({ status: "completed", output: { ok: true } });
    expect(rejected(await driver.events(outcome.runId))).toHaveLength(1);
    const without = { "~standard": { version: 1 as const, vendor: "valibot" } };
    expect(await code(driver.create("t", { outputSchema: without }))).toBe("OUTPUT_SCHEMA_INVALID");
  });

  it("takes exactly the answers the compiler accepts (random answers, as values and as JSON text)", async () => {
    const schema = { type: "object", properties: { n: { type: "integer", minimum: 0 }, tag: { enum: ["a", "b"] } }, required: ["n"], additionalProperties: false };
    const compiled = compileSchema(schema);
    // The same random answers on every run (the testkit's seeded generator).
    const random = rng(29);
    const rand = (k: number): number => Math.floor(random() * k);
    const pick = (): JsonValue => [-1, 0, 3, 2.5, "3", null, true][rand(7)]!;
    const value = (): JsonValue => {
      const o: Record<string, JsonValue> = {};
      if (rand(4) > 0) o["n"] = pick();
      if (rand(2) === 0) o["tag"] = ["a", "b", "c"][rand(3)]!;
      if (rand(5) === 0) o["extra"] = 1;
      return rand(8) === 0 ? [o] : o;
    };
    let accepted = 0;
    for (let k = 0; k < 150; k++) {
      const v = value();
      const given = rand(2) === 0 ? JSON.stringify(v) : v;
      const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([final(given)]), tools: [], limits: { maxConsecutiveFailures: 1 } });
      const outcome = await driver.start("t", { outputSchema: schema });
      const valid = compiled.validate(v).valid;
      expect(outcome.status, JSON.stringify(given)).toBe(valid ? "completed" : "failed");
      if (valid) {
        expect(outcome.output).toEqual(v);
        accepted++;
      }
    }
    // Both verdicts were met.
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(140);
  });
});
