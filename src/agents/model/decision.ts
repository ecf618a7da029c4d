/**
 * Pieces every adapter uses to turn a provider's answer into a decision.
 */
import type { JsonValue } from "../../json/index.js";
import { ID_PATTERN, NOT_ID_CHARS } from "../../ids.js";
import type { AnswerInfo } from "../../journal/index.js";
import { AgentError, type AgentDecision, type ProposedCall } from "../port.js";
import type { Parsed } from "./agent.js";

/** A provider's call id as the journal can keep it (ids the driver would refuse are made safe, deterministically). */
export function safeCallId(id: unknown, index: number, seen: Set<string>): string | undefined {
  if (typeof id !== "string" || id === "") return undefined;
  let safe = ID_PATTERN.test(id) ? id : id.replace(NOT_ID_CHARS, "_").slice(0, 120) || `call_${index + 1}`;
  while (seen.has(safe)) safe = `${safe.slice(0, 120)}_${index + 1}`;
  seen.add(safe);
  return safe;
}

/** Calls if there are any (with the text beside them), else the text as the final output; nothing at all is empty. Who answered rides along. */
export function decisionOf(text: string, calls: readonly ProposedCall[], why: string, answer?: AnswerInfo): Parsed {
  const info = answer === undefined ? {} : { answer };
  if (calls.length > 0) return { kind: "decision", decision: { kind: "calls", calls, ...(text === "" ? {} : { text }), ...info } as AgentDecision };
  if (text.trim() === "") return { kind: "empty", why };
  return { kind: "decision", decision: { kind: "final", output: text as JsonValue, ...info } };
}

/** Parses one JSON payload of a provider, or says the provider broke its format. */
export function payload(provider: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new AgentError(`${provider}: the answer is not the JSON the API documents`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new AgentError(`${provider}: the answer is not the JSON object the API documents`);
  return v as Record<string, unknown>;
}

export const str = (v: unknown): string => (typeof v === "string" ? v : "");
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const obj = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
