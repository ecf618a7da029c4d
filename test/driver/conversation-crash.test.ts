/**
 * The crash matrix, extended to a conversation's turns (issue 29): a
 * three-turn conversation whose second turn calls a tool of each side
 * effect class is crashed at each point around the tool's effect, in the
 * model's call, and around a message's append (the client never heard the
 * answer, and sends the message again). Each crashed conversation is driven
 * on by new drivers after the dead one's lease expired; it must end with
 * each message once, each turn answered once, no effect that is not
 * read_only run twice without a reconciliation, and the hash chain intact.
 */
import { describe, expect, it } from "vitest";
import { calls, call, createDriver, final, scriptedAgent, type Agent, type JournalEvent, type Store, type Tool } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";
import { CRASH_POINTS, Crash, listScenario, manualClock, type CrashPoint, type Faults } from "../../src/testkit/index.js";
import { memoryStore } from "../../src/store/index.js";
import { SIDE_EFFECTS } from "../../src/tools/index.js";

const TTL = 10_000;
const MESSAGES = [
  { id: "m1", text: "hello" },
  { id: "m2", text: "add a" },
  { id: "m3", text: "bye" },
];

/** "add <item>" calls the tool; anything else is echoed; after the tool's outcome, the turn is answered. */
const chatAgent = (crashInDecide: { left: number }): Agent => {
  const inner = scriptedAgent((view) => {
    const last = view.transcript[view.transcript.length - 1];
    if (last?.type !== "user") return final("added");
    const m = /^add (\w+)$/.exec(last.text);
    return m === null ? final(`you said: ${last.text}`) : calls(call("add_item", { item: m[1]! }));
  });
  return {
    async decide(view, options) {
      const last = view.transcript[view.transcript.length - 1];
      if (last?.type === "user" && last.messageId === "m2" && crashInDecide.left > 0) {
        crashInDecide.left--;
        throw new Crash("crash in the model's call");
      }
      return inner.decide(view, options);
    },
  };
};

type Point = CrashPoint | "in_decide" | "after_message_append";

/** A store whose append of the message `m2` lands, and then the process dies before the caller hears of it (once). */
function dyingAfterMessage(store: Store, armed: { left: number }): Store {
  return {
    ...store,
    async append(runId, events, guard, status) {
      const head = await store.append(runId, events, guard, status);
      if (armed.left > 0 && events.some((e) => e.type === "user.message" && e.messageId === "m2")) {
        armed.left--;
        throw new Crash("crash after the message's append");
      }
      return head;
    },
  };
}

async function converse(sideEffect: (typeof SIDE_EFFECTS)[number], point: Point | null) {
  const scenario = listScenario(sideEffect);
  const world = scenario.setup();
  const log: string[] = [];
  const during = { left: 1 };
  const tools = world.tools.map(
    (t) =>
      ({
        ...t,
        call: async (args: never, ctx: Parameters<Tool<never, unknown>["call"]>[1]) => {
          log.push(ctx.idempotencyKey);
          const result = await t.call(args, ctx);
          if (point === "during_effect" && during.left-- > 0) throw new Crash("crash during the effect");
          return result;
        },
      }) as Tool<never, unknown>,
  );
  const inDecide = { left: point === "in_decide" ? 1 : 0 };
  const at = { before_started: "before_start_append", after_started: "after_start_append", after_effect: "after_effect", after_finished: "after_finish_append" } as const;
  const armed = { left: 1 };
  const faults: Faults = {
    at: (p) => {
      if (point !== null && point in at && at[point as keyof typeof at] === p && armed.left-- > 0) throw new Crash(`crash at ${point}`);
    },
  };
  const clock = manualClock();
  const base = memoryStore({ clock });
  const store = dyingAfterMessage(base, { left: point === "after_message_append" ? 1 : 0 });
  let owner = 0;
  const driver = () => createDriver({ store, clock, agent: chatAgent(inDecide), tools, reconcile: world.reconcile, owner: `owner-${++owner}`, leaseTtlMs: TTL, faults });
  const chat = await driver().create("Be brief.", { conversation: true });
  let crashed = false;
  for (const m of MESSAGES) {
    // The client sends until it hears an answer (a retried POST after the server died); then the turn is driven to its end.
    for (let tries = 0; ; tries++) {
      try {
        await driver().send(chat, m);
        break;
      } catch (e) {
        if (!(e instanceof Crash) || tries > 3) throw e;
        crashed = true;
      }
    }
    for (let round = 0; round < 12; round++) {
      clock.advance(TTL + 1);
      const d = driver();
      const out = await d.resume(chat);
      if (out.stopped === "crashed") crashed = true;
      for (const a of out.approvals) {
        if (a.request.kind === "interrupted_side_effect") await d.settle(chat, a.approvalId, { requestHash: a.requestHash, by: "operator", resolution: "run_again" });
      }
      if (out.status === "idle" && out.stopped === undefined) break;
    }
  }
  const events = await base.read(chat);
  return { chat, events, log, crashed, world: world.state() };
}

const reruns = (events: readonly JournalEvent[], log: readonly string[], sideEffect: string): number => {
  if (sideEffect === "read_only") return 0;
  const allowed = events.filter((e) => e.type === "call.reconciled" && e.resolution === "run_again" && e.by !== "runtime").length;
  return Math.max(0, log.length - 1 - allowed);
};

describe("the crash matrix, extended to a conversation's turns", () => {
  const points: Point[] = [...CRASH_POINTS, "in_decide", "after_message_append"];
  for (const sideEffect of SIDE_EFFECTS) {
    it(`${sideEffect}: crashed at each of ${points.length} points of turn 2, each message is taken once, each turn answered once, nothing run twice unreconciled`, async () => {
      const baseline = await converse(sideEffect, null);
      expect(baseline.crashed).toBe(false);
      const rows: string[] = [];
      for (const point of points) {
        const run = await converse(sideEffect, point);
        verifyChain(run.events);
        const messages = run.events.filter((e): e is Extract<JournalEvent, { type: "user.message" }> => e.type === "user.message").map((e) => e.messageId);
        const answered = run.events.filter((e) => e.type === "turn.ended" && e.reason === "answered").length;
        const other = run.events.filter((e) => e.type === "turn.ended" && e.reason !== "answered").length;
        const row = { point, crashed: run.crashed, messages: messages.join(","), answered, other, reruns: reruns(run.events, run.log, sideEffect), world: JSON.stringify(run.world) };
        rows.push(JSON.stringify(row));
        expect(row, JSON.stringify(row)).toMatchObject({ crashed: true, messages: "m1,m2,m3", answered: 3, other: 0, reruns: 0, world: JSON.stringify(baseline.world) });
      }
      expect(rows).toHaveLength(points.length);
    });
  }
});
