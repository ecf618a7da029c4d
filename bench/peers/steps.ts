/**
 * The peers' step overhead: the same scripted run isoagent's steps bench
 * drives (the model asks for one call of a no-op tool at each of steps 1..n,
 * then answers in text at step n + 1), run through each peer's own agent
 * loop with an in-process fake model, so what is timed is the loop itself.
 *
 * Every fake model is a counter, not a recording: no sleeps, no copies of
 * the request, and it does not scan the conversation to find its place,
 * which would make the fake itself O(n) per step. Each run builds a fresh
 * model and tool, so runs do not share state. After the run, the tool's own
 * count must be n, or run() throws: a peer that stopped early (a turn or
 * recursion limit) or never called the tool cannot pass for a fast one.
 */
import { quietAiSdk, versionOf } from "./installed.js";

// OpenAI Agents SDK (core only: the OpenAI provider is not needed with a fake model).
import {
  Agent as OpenAIAgent,
  Runner as OpenAIRunner,
  Usage as OpenAIUsage,
  setTracingDisabled,
  tool as openaiTool,
  type Model as OpenAIModel,
  type ModelResponse as OpenAIModelResponse,
  type StreamEvent as OpenAIStreamEvent,
} from "@openai/agents-core";

// Vercel AI SDK.
import { generateText, jsonSchema, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

// LangGraph.js and LangChain core.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool as langchainTool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";

export interface PeerLoop {
  readonly name: string;
  readonly version: string;
  run(n: number): Promise<void>;
}

/** What every no-op tool returns. */
const TOOL_RESULT = "ok";
const FINAL_TEXT = "done";
/**
 * The argument-free JSON Schema every tool takes (no zod: isoagent's own bench uses none either).
 * A fresh object per tool, as an SDK may annotate or normalise the schema it is given.
 */
function noArgs(): { type: "object"; properties: Record<string, never>; required: string[]; additionalProperties: false } {
  return { type: "object", properties: {}, required: [], additionalProperties: false };
}

function expectCalls(peer: string, calls: number, n: number): void {
  if (calls !== n) throw new Error(`${peer}: the tool ran ${calls} times, expected ${n}`);
}

// ---------------------------------------------------------------------------
// OpenAI Agents SDK: Runner.run with a fake Model.

// The SDK's global trace provider would otherwise batch spans for export to OpenAI.
setTracingDisabled(true);

/** Calls the tool on turns 1..n, answers on turn n + 1. */
class ScriptedOpenAIModel implements OpenAIModel {
  readonly #n: number;
  #turn = 0;
  constructor(n: number) {
    this.#n = n;
  }

  async getResponse(): Promise<OpenAIModelResponse> {
    const turn = ++this.#turn;
    const usage = new OpenAIUsage();
    if (turn <= this.#n) {
      const callId = `call_${turn}`;
      return { usage, output: [{ type: "function_call", id: callId, callId, name: "noop", arguments: "{}", status: "completed" }] };
    }
    return { usage, output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: FINAL_TEXT }] }] };
  }

  // Runner.run without { stream: true } never asks for a stream.
  async *getStreamedResponse(): AsyncIterable<OpenAIStreamEvent> {
    throw new Error("the bench's fake model does not stream");
  }
}

const openaiAgents: PeerLoop = {
  name: "OpenAI Agents SDK (agents-core)",
  version: versionOf("@openai/agents-core"),
  async run(n) {
    let calls = 0;
    const noop = openaiTool({
      name: "noop",
      description: "Do nothing.",
      parameters: noArgs(),
      strict: true,
      execute: () => {
        calls++;
        return TOOL_RESULT;
      },
    });
    const agent = new OpenAIAgent({ name: "bench", instructions: "Call noop.", model: new ScriptedOpenAIModel(n), tools: [noop] });
    // The global switch only stops spans being dispatched; the Runner's flag stops them being made.
    const runner = new OpenAIRunner({ tracingDisabled: true });
    // One model call is one turn: n tool turns and the answering turn.
    const result = await runner.run(agent, "go", { maxTurns: n + 1 });
    if (result.finalOutput !== FINAL_TEXT) throw new Error(`OpenAI Agents SDK: final output ${JSON.stringify(result.finalOutput)}`);
    expectCalls("OpenAI Agents SDK", calls, n);
  },
};

// ---------------------------------------------------------------------------
// Vercel AI SDK: generateText with ai/test's MockLanguageModelV4 (the v4 model spec is ai 7's).

// A console write in a timed loop would be timed.
quietAiSdk();

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

const vercelAi: PeerLoop = {
  name: "Vercel AI SDK (generateText)",
  version: versionOf("ai"),
  async run(n) {
    let calls = 0;
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step++;
        if (step <= n) {
          return {
            content: [{ type: "tool-call", toolCallId: `call_${step}`, toolName: "noop", input: "{}" }],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage: ZERO_USAGE,
            warnings: [],
          };
        }
        return { content: [{ type: "text", text: FINAL_TEXT }], finishReason: { unified: "stop", raw: undefined }, usage: ZERO_USAGE, warnings: [] };
      },
    });
    // The mock keeps every call's options in doGenerateCalls, a cost no real provider has; it is
    // small (one array push a step), so it is left in rather than replacing the SDK's own mock.
    const result = await generateText({
      model,
      prompt: "go",
      tools: {
        noop: aiTool({
          description: "Do nothing.",
          inputSchema: jsonSchema<Record<string, never>>(noArgs()),
          execute: () => {
            calls++;
            return TOOL_RESULT;
          },
        }),
      },
      // A step is one model call: n tool steps and the answering one. The loop also stops by
      // itself when a step has no tool call, so this is the limit, not the script.
      stopWhen: stepCountIs(n + 1),
      maxRetries: 0,
      telemetry: { isEnabled: false },
    });
    if (result.text !== FINAL_TEXT || result.steps.length !== n + 1) throw new Error(`Vercel AI SDK: ${result.steps.length} steps, text ${JSON.stringify(result.text)}`);
    expectCalls("Vercel AI SDK", calls, n);
  },
};

// ---------------------------------------------------------------------------
// LangGraph.js: the prebuilt ReAct agent, checkpointed to a MemorySaver under a thread_id.

// LangSmith tracing is off unless these say otherwise; pin them so a developer's shell cannot turn it on.
process.env["LANGSMITH_TRACING"] = "false";
process.env["LANGCHAIN_TRACING_V2"] = "false";
process.env["LANGCHAIN_TRACING"] = "false";

/**
 * A chat model that calls the tool on calls 1..n and answers on call n + 1.
 * LangChain's testing fakes cannot script a sequence of tool calls
 * (FakeListChatModel answers only in text; FakeStreamingChatModel repeats one
 * fixed response), hence this subclass.
 */
class ScriptedChatModel extends BaseChatModel {
  readonly #n: number;
  #call = 0;
  constructor(n: number) {
    super({});
    this.#n = n;
  }

  _llmType(): string {
    return "bench-scripted";
  }

  // createReactAgent binds its tools to the model; the script does not need them.
  override bindTools(): this {
    return this;
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const call = ++this.#call;
    const message = call <= this.#n ? new AIMessage({ content: "", tool_calls: [{ id: `call_${call}`, name: "noop", args: {}, type: "tool_call" }] }) : new AIMessage({ content: FINAL_TEXT });
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}

const langGraph: PeerLoop = {
  name: "LangGraph.js (createReactAgent + MemorySaver)",
  version: versionOf("@langchain/langgraph"),
  async run(n) {
    let calls = 0;
    const noop = langchainTool(
      () => {
        calls++;
        return TOOL_RESULT;
      },
      { name: "noop", description: "Do nothing.", schema: noArgs() },
    );
    const agent = createReactAgent({ llm: new ScriptedChatModel(n), tools: [noop], checkpointer: new MemorySaver() });
    // Each step is two supersteps (the agent node, then the tools node) and the answer one
    // more; the limit also counts the superstep that writes the input: 2n + 2 is the least
    // that lets the run finish (2n + 1 raises GraphRecursionError).
    const state = await agent.invoke({ messages: [{ role: "user", content: "go" }] }, { configurable: { thread_id: "bench" }, recursionLimit: 2 * n + 2 });
    const last = state.messages[state.messages.length - 1];
    if (last?.content !== FINAL_TEXT) throw new Error(`LangGraph.js: last message ${JSON.stringify(last?.content)}`);
    expectCalls("LangGraph.js", calls, n);
  },
};

export const PEER_LOOPS: readonly PeerLoop[] = [openaiAgents, vercelAi, langGraph];
