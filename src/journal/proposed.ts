/**
 * What an agent proposes for a step, before the gate makes it a journal
 * decision (`Decision`: call ids assigned, the output copied as JSON). Here,
 * beside the events, so that the call pipeline (src/call/) takes it without
 * the agents; the Agent port (src/agents) and the root export it.
 */
import type { JsonValue } from "../json/index.js";
import type { AnswerInfo } from "./events.js";

/** A call an agent asks for; `args` is the raw argument text, `callId` the provider's id when it has one. */
export interface ProposedCall {
  readonly name: string;
  readonly args: string;
  readonly callId?: string | undefined;
}

/**
 * What an agent answers: calls to make, or the final output. A model agent
 * also says who answered and what it cost (`answer`: provider, model, finish
 * reason, token usage), which the driver journals with the decision.
 */
export type AgentDecision =
  | { readonly kind: "calls"; readonly calls: readonly ProposedCall[]; readonly text?: string | undefined; readonly answer?: AnswerInfo | undefined }
  | { readonly kind: "final"; readonly output: JsonValue; readonly text?: string | undefined; readonly answer?: AnswerInfo | undefined };
