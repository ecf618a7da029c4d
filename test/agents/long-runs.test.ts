/**
 * The model adapters for long runs (issue 14): each decision records who
 * answered and what it cost; requests are built incrementally, their text
 * exactly JSON.stringify of their body; a provider's "context length
 * exceeded" (real error bodies, over the local server) compacts once and
 * retries; and three adapter details found by replaying captured streams.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropicAgent, anthropicProtocol } from "../../src/agents/anthropic/index.js";
import { openaiAgent, openaiProtocol } from "../../src/agents/openai/index.js";
import type { ModelAgent } from "../../src/agents/model/agent.js";
import { createDriver, defineTool, memoryStore, strictObject, string, type AgentProgress, type AgentView, type JournalEvent, type Tool, type TranscriptItem } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { anthropicObject, anthropicStream, chatObject, chatStream, mockModelServer, responsesObject, responsesStream, type MockModelServer } from "../helpers/mock-model.js";
import { rng } from "../helpers/rng.js";

const KEY = "sk-test-secret-0123456789";
const sleeps: number[] = [];
const retry = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0, maxRetries: 2 };

const readFile = defineTool<{ path: string }>({
  name: "read_file",
  description: "Read a file.",
  inputSchema: strictObject({ path: string("Path") }),
  sideEffect: "read_only",
  timeoutMs: 1000,
  call: (a) => (a.path === "big.md" ? "b".repeat(6000) : "hello"),
}) as Tool<never, unknown>;

let server: MockModelServer;
beforeEach(async () => {
  server = await mockModelServer();
  sleeps.length = 0;
});
afterEach(async () => {
  await server.close();
});

const drive = (agent: ModelAgent, extra: object = {}, progress: AgentProgress[] = []) =>
  createDriver({ agent, tools: [readFile], clock: manualClock(), ids: sequentialIds(), store: memoryStore(), onProgress: (_r, _s, p) => void (p.type === "tool" || progress.push(p)), ...extra });
const decided = async (d: ReturnType<typeof drive>, runId: string) => (await d.events(runId as never)).filter((e): e is Extract<JournalEvent, { type: "step.decided" }> => e.type === "step.decided");
const call1 = { id: "call_1", name: "read_file", args: '{"path":"notes.md"}' };

describe("what a decision records: provider, model, finish reason, token usage", () => {
  const cases: [string, (url: string, stream: boolean) => ModelAgent, (o: { text?: string; calls?: (typeof call1)[] }, stream: boolean) => { chunks?: string[]; body?: string }, [object, object]][] = [
    [
      "OpenAI Responses",
      (url, stream) => openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: url, stream, retry }),
      (o, stream) => (stream ? { chunks: responsesStream(o) } : { body: JSON.stringify(responsesObject(o)) }),
      [
        { provider: "openai", model: "gpt-mock", finishReason: "tool_calls", usage: { input: 13, output: 12, cached: 0 } },
        { provider: "openai", model: "gpt-mock", finishReason: "stop", usage: { input: 13, output: 12, cached: 0 } },
      ],
    ],
    [
      "OpenAI Chat Completions",
      (url, stream) => openaiAgent({ apiKey: KEY, model: "gpt-mock", api: "chat", baseUrl: url, stream, retry }),
      (o, stream) => (stream ? { chunks: chatStream(o) } : { body: JSON.stringify(chatObject(o)) }),
      [
        { provider: "openai", model: "gpt-mock", finishReason: "tool_calls", usage: { input: 81, output: 17 } },
        { provider: "openai", model: "gpt-mock", finishReason: "stop", usage: { input: 81, output: 17 } },
      ],
    ],
    [
      "Anthropic Messages",
      (url, stream) => anthropicAgent({ apiKey: KEY, model: "claude-mock", baseUrl: url, stream, retry }),
      (o, stream) => (stream ? { chunks: anthropicStream(o) } : { body: JSON.stringify(anthropicObject(o)) }),
      [
        { provider: "anthropic", model: "claude-mock", finishReason: "tool_use", usage: { input: 677, output: 33 } },
        { provider: "anthropic", model: "claude-mock", finishReason: "end_turn", usage: { input: 677, output: 33 } },
      ],
    ],
  ];
  for (const [name, make, answer, want] of cases) {
    for (const stream of [true, false]) {
      it(`${name}, ${stream ? "streamed" : "whole"}`, async () => {
        server.answer(answer({ calls: [call1] }, stream), answer({ text: "done" }, stream));
        const d = drive(make(server.url, stream));
        const outcome = await d.start("t");
        expect(outcome.status).toBe("completed");
        expect((await decided(d, outcome.runId)).map((e) => e.answer)).toEqual(want);
      });
    }
  }
});

describe("requests built incrementally", () => {
  /** A random transcript of steps, items kept by identity from step to step as the driver keeps them. */
  function transcripts(seed: number, steps: number): TranscriptItem[][] {
    const r = rng(seed);
    const t: TranscriptItem[] = [{ type: "task", task: r() < 0.5 ? "Tidy the notes \u2028 \ud83d\ude00" : { goal: "tidy", n: 3 } }];
    const out: TranscriptItem[][] = [[...t]];
    for (let s = 1; s <= steps; s++) {
      const n = 1 + Math.floor(r() * 3);
      const calls = Array.from({ length: n }, (_, k) => ({ callId: `c${s}_${k}` as never, name: "read_file", args: JSON.stringify({ path: `f${k}.md`, q: '"quoted"\n' }) }));
      t.push({ type: "decision", step: s, decision: { kind: "calls", calls, ...(r() < 0.3 ? { text: "thinking \u0000 about it" } : {}) } });
      for (const c of calls) {
        const kind = r();
        t.push({
          type: "observation",
          step: s,
          callId: c.callId,
          name: c.name,
          observation:
            kind < 0.6
              ? { type: "result", content: r() < 0.5 ? "text \ud800 lone" : { ok: true, n: s } }
              : kind < 0.8
                ? { type: "tool_error", failure: "error", error: "Error: no" }
                : { type: "denied", error: "Error: denied" },
        });
      }
      if (r() < 0.1) t.splice(1, 0, { type: "summary", text: `Summary before step ${s}`, steps: { from: 1, to: s - 1 } });
      out.push([...t]);
    }
    return out;
  }
  const tools = [{ name: "read_file", description: "Read a file.", inputSchema: { type: "object", properties: { path: { type: "string" } } }, prompt: { snippet: "read_file reads." } }];
  const protocols = [
    ["responses, streamed", openaiProtocol({ model: "m", api: "responses", stream: true, parallelToolCalls: true, strict: "auto", instructions: "Be brief." })],
    ["responses, whole, no instructions", openaiProtocol({ model: "m", api: "responses", stream: false, parallelToolCalls: false, strict: false, maxOutputTokens: 99 })],
    ["chat, streamed", openaiProtocol({ model: "m", api: "chat", stream: true, parallelToolCalls: true, strict: "auto", instructions: "Be brief." })],
    ["chat, whole", openaiProtocol({ model: "m", api: "chat", stream: false, parallelToolCalls: true, strict: true, maxOutputTokens: 7 })],
    ["anthropic, streamed", anthropicProtocol({ model: "m", maxTokens: 100, stream: true, system: "Be brief." })],
    ["anthropic, whole", anthropicProtocol({ model: "m", maxTokens: 100, stream: false })],
  ] as const;
  for (const [name, protocol] of protocols) {
    it(`${name}: the text sent is exactly JSON.stringify of the body, step after step, over 40 random runs`, () => {
      for (let seed = 1; seed <= 40; seed++) {
        for (const transcript of transcripts(seed, 12)) {
          for (const withTools of [true, false]) {
            const view: AgentView = { task: "t", tools: withTools ? tools : [], transcript, step: 1 };
            const req = protocol.request(view);
            expect(req.text, `${name} seed ${seed}`).toBe(JSON.stringify(req.body));
          }
        }
      }
    });
  }
});

describe("a provider's context length exceeded", () => {
  const bodies = {
    responses: JSON.stringify({
      error: {
        message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded",
      },
    }),
    chat: JSON.stringify({
      error: {
        message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130012 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
    anthropic: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 215000 tokens > 200000 maximum" }, request_id: "req_011mock" }),
  };
  const variants = [
    ["OpenAI Responses", (url: string) => openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: url, retry }), (o: object) => ({ chunks: responsesStream(o) }), bodies.responses],
    ["OpenAI Chat Completions", (url: string) => openaiAgent({ apiKey: KEY, model: "gpt-mock", api: "chat", baseUrl: url, retry }), (o: object) => ({ chunks: chatStream(o) }), bodies.chat],
    ["Anthropic Messages", (url: string) => anthropicAgent({ apiKey: KEY, model: "claude-mock", baseUrl: url, retry }), (o: object) => ({ chunks: anthropicStream(o) }), bodies.anthropic],
  ] as const;
  const big = { id: "call_big", name: "read_file", args: '{"path":"big.md"}' };
  for (const [name, make, answer, body] of variants) {
    it(`${name}: compacts once and asks again; the run goes on`, async () => {
      server.answer(answer({ calls: [big] }), answer({ calls: [call1] }), { status: 400, body }, answer({ text: "done" }));
      const d = drive(make(server.url), { context: { budgetTokens: 100_000 } });
      const outcome = await d.start("t");
      expect(outcome).toMatchObject({ status: "completed", output: "done" });
      const compacted = (await d.events(outcome.runId)).filter((e) => e.type === "context.compacted");
      expect(compacted).toMatchObject([{ type: "context.compacted", strategy: "trim", reason: "provider" }]);
      // The retried request no longer carries the 6,000-character output.
      expect(JSON.stringify(server.requests[3]!.body)).not.toContain("b".repeat(6000));
      expect(JSON.stringify(server.requests[2]!.body)).toContain("b".repeat(6000));
    });

    it(`${name}: fails the run with context_exceeded when compacting is not enough, or there is no budget`, async () => {
      server.answer({ status: 400, body }, { status: 400, body });
      const none = await drive(make(server.url)).start("t");
      expect(none.status).toBe("failed");
      expect(none.failure!.reason).toBe("context_exceeded");
      expect(none.failure!.detail).toMatch(
        /passed the model's context window: HTTP 400 invalid_request_error: .*; give the driver a context budget \(createDriver\(\{ context: \{ budgetTokens \} \}\)\) to compact the transcript$/,
      );
      server.answer(answer({ calls: [big] }), { status: 400, body }, { status: 400, body });
      const still = await drive(make(server.url), { context: { budgetTokens: 100_000 } }).start("t");
      expect(still.failure!.reason).toBe("context_exceeded");
      expect(still.failure!.detail).toMatch(/, even after compacting the transcript to about \d+ tokens$/);
    });
  }
});

describe("three adapter details found by replaying captured streams", () => {
  it("Anthropic: a refusal carries the model's explanation (stop_details.explanation), streamed or whole", async () => {
    const explanation = "This request asks for instructions to build a weapon.";
    const whole = { ...anthropicObject({ stop: "refusal" }), stop_details: { type: "refusal", explanation } };
    const stream = anthropicStream({ stop: "refusal" }).map((c) =>
      c.includes("message_delta") ? c.replace('"stop_sequence":null', `"stop_sequence":null,"stop_details":${JSON.stringify({ type: "refusal", explanation })}`) : c,
    );
    for (const [stream_, a] of [
      [false, { body: JSON.stringify(whole) }],
      [true, { chunks: stream }],
    ] as const) {
      server.answer(a);
      const outcome = await drive(anthropicAgent({ apiKey: KEY, model: "claude-mock", baseUrl: server.url, stream: stream_, retry })).start("t");
      expect(outcome.failure).toEqual({ reason: "agent_error", detail: `anthropic: the model refused: ${explanation}` });
    }
  });

  it("OpenAI Responses: an in-stream insufficient_quota is classed as the HTTP 429 it stands for: retried, then the run waits to be resumed", async () => {
    const event = `event: error\ndata: ${JSON.stringify({ type: "error", code: "insufficient_quota", message: "You exceeded your current quota.", param: null, sequence_number: 1 })}\n\n`;
    server.answer({ chunks: [event] }, { chunks: [event] }, { chunks: [event] });
    const stream = await drive(openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: server.url, retry })).start("t");
    server.answer(
      { status: 429, body: JSON.stringify({ error: { message: "You exceeded your current quota.", type: "insufficient_quota", param: null, code: "insufficient_quota" } }) },
      { status: 429, body: JSON.stringify({ error: { message: "You exceeded your current quota.", type: "insufficient_quota", param: null, code: "insufficient_quota" } }) },
      { status: 429, body: JSON.stringify({ error: { message: "You exceeded your current quota.", type: "insufficient_quota", param: null, code: "insufficient_quota" } }) },
    );
    const http = await drive(openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: server.url, retry })).start("t");
    for (const o of [stream, http]) expect(o).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    expect(sleeps).toHaveLength(4);
  });

  it("OpenAI Responses: a commentary-phase message is progress, and the final output is the final answer", async () => {
    const o = {
      phases: [
        { phase: "commentary", text: "Looking at the notes first." },
        { phase: "final_answer", text: "The notes say hello." },
      ],
    };
    for (const a of [{ body: JSON.stringify(responsesObject(o)) }, { chunks: responsesStream(o) }]) {
      server.answer(a);
      const progress: AgentProgress[] = [];
      const outcome = await drive(openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: server.url, retry, stream: "chunks" in a }), {}, progress).start("t");
      expect(outcome).toMatchObject({ status: "completed", output: "The notes say hello." });
      if (!("chunks" in a)) expect(progress).toEqual([{ type: "text", delta: "Looking at the notes first." }]);
    }
  });
});
