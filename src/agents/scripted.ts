/**
 * A scripted agent for tests and demos: its decisions are given in advance,
 * one per step, or computed from what it is shown.
 */
import type { JsonValue } from "../json/index.js";
import { AgentError, type Agent, type AgentDecision, type AgentView, type ProposedCall } from "./port.js";

/** One step of a script: a decision, or a function of the view. */
export type ScriptStep = AgentDecision | ((view: AgentView) => AgentDecision);

/** A call for a script: `args` as a JSON value (serialised) or as raw text. */
export function call(name: string, args: JsonValue | { readonly raw: string } = {}, callId?: string): ProposedCall {
  const text = typeof args === "object" && args !== null && !Array.isArray(args) && typeof (args as { raw?: unknown }).raw === "string" ? (args as { raw: string }).raw : JSON.stringify(args);
  return callId === undefined ? { name, args: text } : { name, args: text, callId };
}

/** A decision to make calls. */
export function calls(...list: ProposedCall[]): AgentDecision {
  return { kind: "calls", calls: list };
}

/** A final decision. */
export function final(output: JsonValue): AgentDecision {
  return { kind: "final", output };
}

/**
 * An agent that answers step n with the script's n-th entry (a function
 * entry is called with the view). Past the end it fails: a script that does
 * not end its run is a bug in the script.
 *
 * @example
 * ```ts
 * const agent = scriptedAgent([
 *   calls(call("read_file", { path: "notes.md" })),
 *   final("done"),
 * ])
 * ```
 */
export function scriptedAgent(script: readonly ScriptStep[] | ((view: AgentView) => AgentDecision)): Agent {
  return {
    async decide(view) {
      if (typeof script === "function") return script(view);
      const entry = script[view.step - 1];
      if (entry === undefined) throw new AgentError(`the script has no decision for step ${view.step}`);
      return typeof entry === "function" ? entry(view) : entry;
    },
  };
}
