/**
 * Which agent the examples use: a real model when a key is given
 * (OPENAI_API_KEY or ANTHROPIC_API_KEY; ISOAGENT_MODEL and OPENAI_BASE_URL
 * to choose), else the scripted demo agent. They say which.
 */
import { anthropicAgent } from "../src/agents/anthropic/index.js";
import { openaiAgent } from "../src/agents/openai/index.js";
import type { ModelAgent } from "../src/agents/openai/index.js";

export interface ModelChoice {
  readonly provider: "openai" | "anthropic";
  readonly model: string;
  readonly apiKey: string;
  readonly baseUrl?: string | undefined;
}

/** What the examples' model is told about its job. */
export const DEMO_INSTRUCTIONS =
  "You work in a small workspace of text files through the tools you are given. " +
  "Read before you write; write only what the task asks; when the task is done, answer with one short sentence saying what you did.";

export const DEFAULT_MODELS = { openai: "gpt-5-mini", anthropic: "claude-sonnet-4-5" } as const;

/** The model the environment names, if any (OpenAI first when both keys are set). */
export function modelFromEnv(env: Readonly<Record<string, string | undefined>>): ModelChoice | undefined {
  const model = env["ISOAGENT_MODEL"];
  if (env["OPENAI_API_KEY"]) return { provider: "openai", model: model || DEFAULT_MODELS.openai, apiKey: env["OPENAI_API_KEY"], baseUrl: env["OPENAI_BASE_URL"] || undefined };
  if (env["ANTHROPIC_API_KEY"]) return { provider: "anthropic", model: model || DEFAULT_MODELS.anthropic, apiKey: env["ANTHROPIC_API_KEY"], baseUrl: env["ANTHROPIC_BASE_URL"] || undefined };
  return undefined;
}

/** The agent for a choice; `browser` adds what a provider asks of direct browser calls. */
export function agentFor(choice: ModelChoice, options: { browser?: boolean } = {}): ModelAgent {
  if (choice.provider === "openai") return openaiAgent({ apiKey: choice.apiKey, model: choice.model, baseUrl: choice.baseUrl, instructions: DEMO_INSTRUCTIONS });
  return anthropicAgent({
    apiKey: choice.apiKey,
    model: choice.model,
    baseUrl: choice.baseUrl,
    system: DEMO_INSTRUCTIONS,
    ...(options.browser === true ? { headers: { "anthropic-dangerous-direct-browser-access": "true" } } : {}),
  });
}

/** One line saying which agent is in use (never the key). */
export function describeAgent(choice: ModelChoice | undefined, key: string): string {
  return choice === undefined ? `the scripted demo agent (set ${key} for a real model)` : `${choice.provider} ${choice.model}${choice.baseUrl ? ` at ${choice.baseUrl}` : ""}`;
}
