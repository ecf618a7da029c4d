/**
 * Structured final output in the model adapters (v5): the output schema a
 * run or turn has (`AgentView.outputSchema`) goes to the provider's
 * structured-output mode: OpenAI's `text.format` (Responses) and
 * `response_format` (Chat Completions), and, for Anthropic, a forced tool
 * whose input is the answer. Only a schema with an object at its root is
 * sent (what those modes take); any other is checked by the driver alone.
 */
import type { JsonValue } from "../../json/index.js";
import type { AgentDecision, AgentView } from "../port.js";

/** The name the answer takes in a provider's structured mode (OpenAI's format, Anthropic's forced tool). */
export const ANSWER_NAME = "final_answer";

/** The output schema as a provider's structured mode takes it, or undefined (none, or no object at its root). */
export function structuredSchema(view: AgentView): JsonValue | undefined {
  const s = view.outputSchema;
  return typeof s === "object" && s !== null && !Array.isArray(s) && s["type"] === "object" ? s : undefined;
}

/** The schema of the forced answer tool (Anthropic), unless a tool of the run has its name. */
export function answerToolSchema(view: AgentView): JsonValue | undefined {
  return view.tools.some((t) => t.name === ANSWER_NAME) ? undefined : structuredSchema(view);
}

/** A call of the forced answer tool, alone, is the final answer: its arguments' JSON (the driver checks it). */
export function answerFromTool(view: AgentView, d: AgentDecision): AgentDecision {
  if (d.kind !== "calls" || d.calls.length !== 1 || d.calls[0]!.name !== ANSWER_NAME || answerToolSchema(view) === undefined) return d;
  return { kind: "final", output: d.calls[0]!.args, ...(d.text === undefined ? {} : { text: d.text }), ...(d.answer === undefined ? {} : { answer: d.answer }) };
}
