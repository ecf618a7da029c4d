/**
 * The options of an OpenAI request, shared by the Responses and the Chat
 * Completions protocols and the entry that picks between them.
 *
 * @module
 */

/** The options that shape requests (kept in recordings; no key, no headers). */
export interface OpenAIRequestOptions {
  readonly model: string;
  readonly api: "responses" | "chat";
  readonly instructions?: string;
  readonly stream: boolean;
  readonly maxOutputTokens?: number;
  readonly parallelToolCalls: boolean;
  readonly strict: boolean | "auto";
}
