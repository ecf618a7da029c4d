/**
 * The agent the kill tests drive through their kills, in the workerd Worker
 * and in the Chromium page alike (platform-free): a task's six steps over
 * every side-effect class, or a conversation's turns (issue 29), each
 * decision taking a model's while.
 */
import { call, calls, final, scriptedAgent, type Agent, type AgentDecision, type AgentView } from "../../src/index.js";

/** A task's decisions: six steps over every class (two read_only calls in parallel), then the final answer. */
export const STEPS = 7;

/** Messages a conversation is sent, and the steps of a turn. */
export const TURNS = 3;
export const TURN_STEPS = 4;

/**
 * A conversation's turn: each message is answered in four steps, a read, a
 * write that asks, a send, then the answer naming the message, counted
 * from the message. The next decision of the turn in progress.
 */
export function chatTurn(view: AgentView): AgentDecision {
  let last = -1;
  for (let k = 0; k < view.transcript.length; k++) if (view.transcript[k]!.type === "user") last = k;
  const message = view.transcript[last];
  if (message?.type !== "user") return final("no message");
  const done = view.transcript.slice(last + 1).filter((i) => i.type === "decision").length;
  const what = message.messageId;
  return [calls(call("look", { what })), calls(call("note", { what })), calls(call("send", { what }))][done] ?? final(`answered ${what}`);
}

/**
 * The kill tests' agent: a conversation's turn when `talking(view)`, else
 * the task's steps; each decision takes a model's while (100-400 ms), the
 * window in which a run just answered is runnable and not yet written to.
 */
export function killAgent(talking: (view: AgentView) => boolean): Agent {
  const chat = scriptedAgent(chatTurn);
  const task = scriptedAgent([
    calls(call("look", { what: "inbox" }), call("look", { what: "calendar" })),
    calls(call("note", { what: "draft" })),
    calls(call("send", { what: "draft" })),
    calls(call("wipe", { what: "old drafts" })),
    calls(call("send", { what: "summary" })),
    calls(call("note", { what: "done" })),
    final("all done"),
  ]);
  return {
    decide: async (view, ctx) => {
      await new Promise((r) => setTimeout(r, 100 + ((view.step * 131 + view.transcript.length * 17) % 300)));
      return (talking(view) ? chat : task).decide(view, ctx);
    },
  };
}
