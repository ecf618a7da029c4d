/**
 * The conversations the kill tests drive through their kills (issue 29):
 * each message is answered in four steps, a read, a write that asks, a
 * send, then the answer naming the message, counted from the message.
 * Platform-free: the workerd Worker and the Chromium page both run it.
 */
import { call, calls, final, type AgentDecision, type AgentView } from "../../src/index.js";

/** Messages a conversation is sent, and the steps of a turn. */
export const TURNS = 3;
export const TURN_STEPS = 4;

/** The next decision of the turn in progress. */
export function chatTurn(view: AgentView): AgentDecision {
  let last = -1;
  for (let k = 0; k < view.transcript.length; k++) if (view.transcript[k]!.type === "user") last = k;
  const message = view.transcript[last];
  if (message?.type !== "user") return final("no message");
  const done = view.transcript.slice(last + 1).filter((i) => i.type === "decision").length;
  const what = message.messageId;
  return [calls(call("look", { what })), calls(call("note", { what })), calls(call("send", { what }))][done] ?? final(`answered ${what}`);
}
