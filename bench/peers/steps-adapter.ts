/**
 * The peers of `steps-adapter`: each SDK's agent loop with its own OpenAI
 * Responses provider, pointed at the bench's fake provider on loopback HTTP
 * (bench/fake-responses.ts), so what is timed is the loop, the request each
 * provider builds and sends, and the answer it reads, streamed or whole:
 *
 * - OpenAI Agents SDK: `Runner.run` with `OpenAIProvider({ useResponses: true })`
 *   (@openai/agents-openai over the `openai` client); whole answers by
 *   default, streamed with `{ stream: true }`.
 * - Vercel AI SDK: `generateText` (whole) and `streamText` (streamed) with
 *   `createOpenAI({ baseURL }).responses(model)` (@ai-sdk/openai), `store:
 *   false` so it sends the items themselves, as the others do, rather than
 *   references to items stored at the provider (which the fake does not keep).
 *
 * Each run builds a fresh client and tool, and checks afterwards that the
 * tool ran exactly n times and the final text arrived.
 */
import { quietAiSdk, versionOf } from "./installed.js";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent as OpenAIAgent, Runner as OpenAIRunner, setTracingDisabled, tool as openaiTool } from "@openai/agents-core";
import { OpenAIProvider } from "@openai/agents-openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool as aiTool } from "ai";

export interface AdapterPeer {
  readonly name: string;
  /** How it asks for answers. */
  readonly mode: "streamed" | "whole";
  readonly version: string;
  run(baseUrl: string, n: number): Promise<void>;
}

export const FINAL_TEXT = "done";
const KEY = "sk-bench-not-a-key";
const MODEL = "gpt-fake";

function noArgs(): { type: "object"; properties: Record<string, never>; required: string[]; additionalProperties: false } {
  return { type: "object", properties: {}, required: [], additionalProperties: false };
}

function expect(peer: string, calls: number, n: number, text: unknown): void {
  if (calls !== n) throw new Error(`${peer}: the tool ran ${calls} times, expected ${n}`);
  if (text !== FINAL_TEXT) throw new Error(`${peer}: final output ${JSON.stringify(text)}`);
}

// The SDK's global trace provider would otherwise batch spans for export to OpenAI.
setTracingDisabled(true);
// A console write in a timed loop would be timed.
quietAiSdk();

function openaiAgents(mode: "streamed" | "whole"): AdapterPeer {
  const name = `OpenAI Agents SDK (Runner.run, OpenAIProvider responses, ${mode})`;
  return {
    name,
    mode,
    version: `@openai/agents-openai ${versionOf("@openai/agents-openai")}, openai ${versionOf("openai")}`,
    async run(baseUrl, n) {
      let calls = 0;
      const noop = openaiTool({
        name: "noop",
        description: "Do nothing.",
        parameters: noArgs(),
        strict: true,
        execute: () => {
          calls++;
          return "ok";
        },
      });
      const agent = new OpenAIAgent({ name: "bench", instructions: "Call noop.", model: MODEL, tools: [noop] });
      const runner = new OpenAIRunner({ modelProvider: new OpenAIProvider({ apiKey: KEY, baseURL: baseUrl, useResponses: true }), tracingDisabled: true });
      let output: unknown;
      if (mode === "streamed") {
        const result = await runner.run(agent, "go", { maxTurns: n + 1, stream: true });
        for await (const _ of result) void _;
        await result.completed;
        output = result.finalOutput;
      } else {
        output = (await runner.run(agent, "go", { maxTurns: n + 1 })).finalOutput;
      }
      expect(name, calls, n, output);
    },
  };
}

function vercelAi(mode: "streamed" | "whole"): AdapterPeer {
  const name = `Vercel AI SDK (${mode === "streamed" ? "streamText" : "generateText"}, @ai-sdk/openai responses)`;
  return {
    name,
    mode,
    version: `ai ${versionOf("ai")}, @ai-sdk/openai ${versionOf("@ai-sdk/openai")}`,
    async run(baseUrl, n) {
      let calls = 0;
      const options = {
        model: createOpenAI({ apiKey: KEY, baseURL: baseUrl }).responses(MODEL),
        system: "Call noop.",
        prompt: "go",
        tools: {
          noop: aiTool({
            description: "Do nothing.",
            inputSchema: jsonSchema<Record<string, never>>(noArgs()),
            execute: () => {
              calls++;
              return "ok";
            },
          }),
        },
        stopWhen: stepCountIs(n + 1),
        maxRetries: 0,
        providerOptions: { openai: { store: false } },
        telemetry: { isEnabled: false },
      };
      let text: unknown;
      if (mode === "streamed") {
        const result = streamText(options);
        text = await result.text;
        if ((await result.steps).length !== n + 1) throw new Error(`${name}: ${(await result.steps).length} steps`);
      } else {
        const result = await generateText(options);
        text = result.text;
        if (result.steps.length !== n + 1) throw new Error(`${name}: ${result.steps.length} steps`);
      }
      expect(name, calls, n, text);
    },
  };
}

export const ADAPTER_PEERS: readonly AdapterPeer[] = [openaiAgents("whole"), openaiAgents("streamed"), vercelAi("whole"), vercelAi("streamed")];
