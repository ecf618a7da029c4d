import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropicAgent } from "../../src/agents/anthropic/index.js";
import { openaiAgent } from "../../src/agents/openai/index.js";
import type { ModelAgent } from "../../src/agents/model/agent.js";
import { createDriver, defineTool, integer, memoryStore, strictObject, string, type AgentProgress, type Tool } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import {
  anthropicErrorBody,
  anthropicObject,
  anthropicStream,
  chatObject,
  chatStream,
  mockModelServer,
  openaiErrorBody,
  responsesObject,
  responsesStream,
  type MockCall,
  type MockModelServer,
} from "../helpers/mock-model.js";

const KEY = "sk-test-secret-0123456789";

interface Variant {
  readonly name: string;
  readonly provider: "openai" | "anthropic";
  make(url: string, extra?: Record<string, unknown>): ModelAgent;
  stream(o: { text?: string; refusal?: string; calls?: MockCall[] }): string[];
  whole(o: { text?: string; refusal?: string; calls?: MockCall[] }): string;
  error(status: number, message: string): string;
  errorType(status: number): string;
}

const sleeps: number[] = [];
const retry = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0, maxRetries: 2 };

const VARIANTS: Variant[] = [
  {
    name: "OpenAI Responses",
    provider: "openai",
    make: (url, extra = {}) => openaiAgent({ apiKey: KEY, model: "gpt-mock", baseUrl: url, instructions: "Be brief.", retry, ...extra }),
    stream: (o) => responsesStream(o),
    whole: (o) => JSON.stringify(responsesObject(o)),
    error: (status, message) =>
      openaiErrorBody(
        status === 429 ? "requests" : status >= 500 ? "server_error" : status === 401 ? "invalid_request_error" : "invalid_request_error",
        message,
        status === 401 ? "invalid_api_key" : null,
      ),
    errorType: (status) => (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error"),
  },
  {
    name: "OpenAI Chat Completions",
    provider: "openai",
    make: (url, extra = {}) => openaiAgent({ apiKey: KEY, model: "gpt-mock", api: "chat", baseUrl: url, instructions: "Be brief.", retry, ...extra }),
    stream: (o) => chatStream(o),
    whole: (o) => JSON.stringify(chatObject(o)),
    error: (status, message) => openaiErrorBody(status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error", message),
    errorType: (status) => (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error"),
  },
  {
    name: "Anthropic Messages",
    provider: "anthropic",
    make: (url, extra = {}) => anthropicAgent({ apiKey: KEY, model: "claude-mock", baseUrl: url, system: "Be brief.", retry, ...extra }),
    stream: (o) => (o.refusal !== undefined ? anthropicStream({ text: o.refusal, stop: "refusal" }) : anthropicStream(o)),
    whole: (o) => JSON.stringify(o.refusal !== undefined ? anthropicObject({ text: o.refusal, stop: "refusal" }) : anthropicObject(o)),
    error: (status, message) =>
      anthropicErrorBody(
        status === 429 ? "rate_limit_error" : status === 529 ? "overloaded_error" : status >= 500 ? "api_error" : status === 401 ? "authentication_error" : "invalid_request_error",
        message,
      ),
    errorType: (status) => (status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error"),
  },
];

const readFile = defineTool<{ path: string }>({
  name: "read_file",
  description: "Read a file.",
  inputSchema: strictObject({ path: string("Path") }),
  sideEffect: "read_only",
  parallelSafe: true,
  timeoutMs: 1000,
  call: (a) => ({ "notes.md": "hello", "todo.md": "milk" })[a.path] ?? null,
}) as Tool<never, unknown>;

let server: MockModelServer;
beforeEach(async () => {
  server = await mockModelServer();
  sleeps.length = 0;
});
afterEach(async () => {
  await server.close();
});

function driverFor(agent: ModelAgent, progress: AgentProgress[] = []) {
  return createDriver({ agent, tools: [readFile], clock: manualClock(), ids: sequentialIds(), store: memoryStore(), onProgress: (_r, _s, p) => void (p.type === "tool" || progress.push(p)) });
}

const call1: MockCall = { id: "call_1", name: "read_file", args: '{"path":"notes.md"}' };
const call2: MockCall = { id: "call_2", name: "read_file", args: '{"path":"todo.md"}' };

describe.each(VARIANTS)("$name", (v) => {
  it("streams a call, sends its observation back, and completes with the final text; progress shown, the decision journaled once", async () => {
    server.answer({ chunks: v.stream({ text: "Let me read.", calls: [call1] }) }, { chunks: v.stream({ text: "The notes say hello." }) });
    const progress: AgentProgress[] = [];
    const driver = driverFor(v.make(server.url), progress);
    const outcome = await driver.start("Summarise notes.md");
    expect(outcome).toMatchObject({ status: "completed", output: "The notes say hello." });
    const decided = (await driver.events(outcome.runId)).filter((e) => e.type === "step.decided");
    expect(decided.map((e) => (e as { decision: unknown }).decision)).toEqual([
      { kind: "calls", calls: [{ callId: "call_1", name: "read_file", args: '{"path":"notes.md"}' }], text: "Let me read." },
      { kind: "final", output: "The notes say hello." },
    ]);
    expect(
      progress
        .filter((p) => p.type === "text")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("Let me read.The notes say hello.");
    expect(progress.some((p) => p.type === "call" && p.name === "read_file")).toBe(true);
    expect(
      progress
        .filter((p) => p.type === "call")
        .map((p) => (p as { argsDelta: string }).argsDelta)
        .join(""),
    ).toBe('{"path":"notes.md"}');
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    if (v.provider === "openai") expect(first!.headers["authorization"]).toBe(`Bearer ${KEY}`);
    else expect([first!.headers["x-api-key"], first!.headers["anthropic-version"]]).toEqual([KEY, "2023-06-01"]);
    expect(second!.body).toEqual(EXPECTED_SECOND[v.name]);
  });

  it("runs parallel calls of one answer, and answers each by its id", async () => {
    server.answer({ chunks: v.stream({ calls: [call1, call2] }) }, { chunks: v.stream({ text: "hello, milk" }) });
    const outcome = await driverFor(v.make(server.url)).start("Read both");
    expect(outcome).toMatchObject({ status: "completed", output: "hello, milk" });
    const body = JSON.stringify(server.requests[1]!.body);
    for (const id of ["call_1", "call_2"]) expect(body).toContain(id);
    expect(body).toContain("milk");
  });

  it("reads whole (non-streamed) answers too", async () => {
    server.answer({ body: v.whole({ calls: [call1] }) }, { body: v.whole({ text: "done" }) });
    const outcome = await driverFor(v.make(server.url, { stream: false })).start("Read");
    expect(outcome).toMatchObject({ status: "completed", output: "done" });
    expect(server.requests[0]!.body.stream ?? false).toBe(false);
  });

  it("waits as a 429's Retry-After says, retries a 500 with backoff, then succeeds", async () => {
    server.answer(
      { status: 429, headers: { "retry-after": "1" }, body: v.error(429, "Rate limit reached") },
      { status: v.provider === "anthropic" ? 529 : 503, body: v.error(529, "Overloaded") },
      { chunks: v.stream({ text: "ok" }) },
    );
    const outcome = await driverFor(v.make(server.url)).start("t");
    expect(outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(sleeps).toEqual([1000, 1000]); // Retry-After, then backoff 500 * 2^1 (no jitter here)
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => JSON.stringify(r.body))).toEqual(Array(3).fill(JSON.stringify(server.requests[0]!.body)));
  });

  it("leaves the run waiting to resume when the provider asks to wait longer than it waits, and resumes it", async () => {
    server.answer({ status: 429, headers: { "retry-after": "120" }, body: v.error(429, "Rate limit reached") });
    const driver = driverFor(v.make(server.url));
    const waiting = await driver.start("t");
    expect(waiting).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    server.answer({ chunks: v.stream({ text: "ok" }) });
    expect(await driver.resume(waiting.runId)).toMatchObject({ status: "completed", output: "ok" });
  });

  it("retries a stream cut in the middle, and a connection dropped before any answer", async () => {
    server.answer({ chunks: v.stream({ text: "Let me read.", calls: [call1] }), cutAfter: 3 }, { hangUp: true }, { chunks: v.stream({ text: "ok" }) });
    const progress: AgentProgress[] = [];
    const outcome = await driverFor(v.make(server.url), progress).start("t");
    expect(outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(server.requests).toHaveLength(3);
    expect(progress.filter((p) => p.type === "restart")).toHaveLength(2);
  });

  it("leaves the run waiting when the provider cannot be reached at all, and resumes it when it can", async () => {
    const url = server.url;
    await server.close();
    const driver = driverFor(v.make(url));
    const waiting = await driver.start("t");
    expect(waiting).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    const events = await driver.events(waiting.runId);
    expect(events.map((e) => e.type)).toEqual(["run.created", "run.resumed"]);
    server = await mockModelServer(Number(new URL(url).port));
    server.answer({ chunks: v.stream({ text: "back" }) });
    expect(await driver.resume(waiting.runId)).toMatchObject({ status: "completed", output: "back" });
  });

  it("turns malformed arguments into an invalid_decision the model corrects", async () => {
    server.answer(
      { chunks: v.stream({ calls: [{ id: "call_1", name: "read_file", args: '{"path": "notes.md"' }] }) },
      { chunks: v.stream({ calls: [call1] }) },
      { chunks: v.stream({ text: "hello" }) },
    );
    const driver = driverFor(v.make(server.url));
    const outcome = await driver.start("t");
    expect(outcome).toMatchObject({ status: "completed", output: "hello" });
    const body = JSON.stringify(server.requests[1]!.body);
    expect(body).toContain("Error: invalid arguments for read_file: the arguments are not valid JSON");
  });

  it("under an output schema, asks the provider's structured mode for it, takes the answer's JSON, and shows a refusal of it", async () => {
    const schema = strictObject({ title: string(), count: integer() });
    const answer = (json: string) => (v.provider === "anthropic" ? v.stream({ calls: [{ id: "toolu_a", name: "final_answer", args: json }] }) : v.stream({ text: json }));
    server.answer({ chunks: answer('{"title":"milk"}') }, { chunks: answer('{"title":"milk","count":2}') });
    const outcome = await driverFor(v.make(server.url)).start("Count the milk.", { outputSchema: schema });
    expect(outcome).toMatchObject({ status: "completed", output: { title: "milk", count: 2 } });
    const [first, second] = server.requests.map((r) => r.body as Record<string, unknown>);
    // The schema, as each provider's mode takes it (strict: the schema is closed, every property required).
    const format = { name: "final_answer", schema, strict: true };
    if (v.name === "OpenAI Responses") expect(first!["text"]).toEqual({ format: { type: "json_schema", ...format } });
    else if (v.name === "OpenAI Chat Completions") expect(first!["response_format"]).toEqual({ type: "json_schema", json_schema: format });
    else {
      expect(first!["tool_choice"]).toEqual({ type: "any" });
      expect((first!["tools"] as { name: string; input_schema: unknown }[]).at(-1)).toMatchObject({ name: "final_answer", input_schema: schema });
    }
    // The second request shows the agent why its first answer was refused.
    expect(JSON.stringify(second)).toContain('Error: invalid final answer: missing required property \\"count\\"');
  });

  it("fails the run with the model's refusal, and on a 4xx with the provider's reason, never with the key", async () => {
    server.answer({ chunks: v.stream({ refusal: "I can't help with that." }) });
    const refused = await driverFor(v.make(server.url)).start("t");
    expect(refused).toMatchObject({ status: "failed", failure: { reason: "agent_error", detail: `${v.provider}: the model refused: I can't help with that.` } });

    server.answer({ status: 400, body: v.error(400, "Invalid schema for function 'read_file'.") });
    const bad = await driverFor(v.make(server.url)).start("t");
    expect(bad.failure?.detail).toBe(`${v.provider} refused the request: HTTP 400 ${v.errorType(400)}: Invalid schema for function 'read_file'.`);

    server.answer({ status: 401, body: v.error(401, `Incorrect API key provided: ${KEY}.`) });
    const driver = driverFor(v.make(server.url));
    const denied = await driver.start("t");
    expect(denied.failure?.detail).toMatch(/HTTP 401 .*Incorrect API key provided: \[REDACTED\]\./);
    expect(JSON.stringify(await driver.events(denied.runId))).not.toContain(KEY);
    expect(sleeps).toEqual([]); // none of these is retried
  });

  it("asks again after an empty answer, then fails the run saying so", async () => {
    server.answer({ chunks: v.stream({ text: "" }) }, { chunks: v.stream({ text: "  " }) });
    const outcome = await driverFor(v.make(server.url)).start("t");
    expect(outcome.status).toBe("failed");
    expect(outcome.failure?.detail).toMatch(new RegExp(`^${v.provider}: the model gave an empty answer \\(.*\\), 2 times$`));
    expect(server.requests).toHaveLength(2);
  });
});

const TOOL_SCHEMA = { type: "object", properties: { path: { type: "string", description: "Path" } }, required: ["path"], additionalProperties: false };

/** The second request of the first test, exactly: what the model is sent after one call and its observation. */
const EXPECTED_SECOND: Record<string, unknown> = {
  "OpenAI Responses": {
    model: "gpt-mock",
    instructions: "Be brief.",
    input: [
      { role: "user", content: "Summarise notes.md" },
      { role: "assistant", content: "Let me read." },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"notes.md"}' },
      { type: "function_call_output", call_id: "call_1", output: "hello" },
    ],
    tools: [{ type: "function", name: "read_file", description: "Read a file.", parameters: TOOL_SCHEMA, strict: true }],
    parallel_tool_calls: true,
    store: false,
    stream: true,
  },
  "OpenAI Chat Completions": {
    model: "gpt-mock",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Summarise notes.md" },
      { role: "assistant", content: "Let me read.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.md"}' } }] },
      { role: "tool", tool_call_id: "call_1", content: "hello" },
    ],
    tools: [{ type: "function", function: { name: "read_file", description: "Read a file.", parameters: TOOL_SCHEMA, strict: true } }],
    parallel_tool_calls: true,
    stream: true,
    stream_options: { include_usage: true },
  },
  "Anthropic Messages": {
    model: "claude-mock",
    max_tokens: 4096,
    system: "Be brief.",
    messages: [
      { role: "user", content: [{ type: "text", text: "Summarise notes.md" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me read." },
          { type: "tool_use", id: "call_1", name: "read_file", input: { path: "notes.md" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "hello" }] },
    ],
    tools: [{ name: "read_file", description: "Read a file.", input_schema: TOOL_SCHEMA }],
    stream: true,
  },
};
