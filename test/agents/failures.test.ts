/**
 * Audit finding 6 (issue 21): how the OpenAI Responses adapter meets a
 * provider that fails (a failed response, the `response.failed` and `error`
 * stream events, a stream that ends early), which of those it retries, and
 * the real back-off sleep cut short by an abort. Each test names the
 * mutation it fails with.
 */
import { describe, expect, it } from "vitest";
import { openaiAgent, type ModelRequest, type ModelResponse } from "../../src/agents/openai/index.js";
import { realSleep } from "../../src/retry.js";
import { AgentError, createDriver, memoryStore, type AgentView } from "../../src/index.js";
import { manualClock, sequentialIds } from "../../src/testkit/index.js";
import { responsesObject, responsesStream } from "../helpers/wire.js";

type Answer = { status?: number; headers?: Record<string, string>; body: string | string[] };

/** A transport that answers each request with the next scripted answer (whole bodies, or SSE pieces). */
function scripted(...answers: Answer[]) {
  const requests: ModelRequest[] = [];
  const transport = async (request: ModelRequest): Promise<ModelResponse> => {
    requests.push(request);
    const a = answers.shift();
    if (a === undefined) throw new Error("the test has no answer left");
    const pieces = typeof a.body === "string" ? [a.body] : a.body;
    return {
      status: a.status ?? 200,
      header: (n) => a.headers?.[n.toLowerCase()] ?? null,
      body: (async function* () {
        for (const p of pieces) yield new TextEncoder().encode(p);
      })(),
    };
  };
  return { transport, requests, left: () => answers.length };
}

const sse = (type: string, fields: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
const sleeps: number[] = [];
const retry = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0, maxRetries: 2 };

async function run(answers: Answer[], options: { stream?: boolean } = {}) {
  sleeps.length = 0;
  const t = scripted(...answers);
  const agent = openaiAgent({ model: "gpt-mock", transport: t.transport, retry, ...options });
  const driver = createDriver({ agent, tools: [], clock: manualClock(), ids: sequentialIds(), store: memoryStore() });
  const outcome = await driver.start("t");
  return { outcome, requests: t.requests, left: t.left(), events: await driver.events(outcome.runId) };
}

const ok = (): Answer => ({ body: responsesStream({ text: "ok" }) });
/** A stream that goes well until `last` replaces its final event. */
const endingWith = (last: string | undefined): Answer => {
  const pieces = responsesStream({ text: "partial" }).slice(0, -1);
  return { body: last === undefined ? pieces : [...pieces, last] };
};

describe("audit finding 6: OpenAI Responses when the provider fails", () => {
  it("a whole response with status failed fails the run with the provider's code and message, not retried (fails when fromResponse ignores status failed)", async () => {
    const failed = JSON.stringify(responsesObject({ text: "", status: "failed", error: { code: "server_error", message: "The model crashed." } }));
    const { outcome, requests } = await run([{ body: failed }], { stream: false });
    expect(outcome).toMatchObject({ status: "failed", failure: { reason: "agent_error", detail: "openai: the response failed: server_error: The model crashed." } });
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("a streamed response.failed is retried like a 5xx, with back-off, and the run goes on (fails when it is taken as fatal)", async () => {
    const failed = sse("response.failed", { response: responsesObject({ status: "failed", error: { code: "server_error", message: "The model crashed." } }) });
    const { outcome, requests } = await run([endingWith(failed), ok()]);
    expect(outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(requests).toHaveLength(2);
    expect(sleeps).toEqual([500]);
  });

  it("an error event whose code stands for a 429, 408, 5xx or 529 is retried, as that HTTP status would be (fails when the codes are classed as 400s, or such statuses are not retried)", async () => {
    const { outcome, requests } = await run([
      endingWith(sse("error", { code: "rate_limit_exceeded", message: "Slow down." })),
      endingWith(sse("error", { error: { code: "server_error", message: "Oops." } })),
      ok(),
    ]);
    expect(outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(requests).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
    const more = await run([endingWith(sse("error", { code: "overloaded", message: "Busy." })), endingWith(sse("error", { code: "request_timeout", message: "Late." })), ok()]);
    expect(more.outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(more.requests).toHaveLength(3);
  });

  it("an error event with any other code fails the run at once, saying what the provider said (fails when it is retried, or its code and message are lost)", async () => {
    const fatal = await run([endingWith(sse("error", { code: "invalid_prompt", message: "Your prompt was flagged." })), ok()]);
    expect(fatal.outcome).toMatchObject({ status: "failed", failure: { reason: "agent_error", detail: "openai: the stream reported invalid_prompt: Your prompt was flagged." } });
    expect([fatal.requests.length, fatal.left, sleeps]).toEqual([1, 1, []]);
    const bare = await run([endingWith(sse("error", {}))]);
    expect(bare.outcome.failure?.detail).toBe("openai: the stream reported error: (no message)");
  });

  it("a stream that ends before response.completed is retried, and when it keeps ending early the run waits to be resumed, nothing journaled as failed (fails when an early end is taken as an answer, or as fatal)", async () => {
    const retried = await run([endingWith(undefined), ok()]);
    expect(retried.outcome).toMatchObject({ status: "completed", output: "ok" });
    expect(sleeps).toEqual([500]);
    const given = await run([endingWith(undefined), endingWith(undefined), endingWith(undefined)]);
    expect(given.outcome).toMatchObject({ status: "running", stopped: "agent_unavailable" });
    expect(given.requests).toHaveLength(3);
    expect(given.events.map((e) => e.type)).toEqual(["run.created", "run.resumed"]);
  });

  it("the agent's own error says which failure it gave up on (fails when the last problem is not kept)", async () => {
    const t = scripted(endingWith(undefined), endingWith(undefined), endingWith(undefined));
    const agent = openaiAgent({ model: "gpt-mock", transport: t.transport, retry });
    const view: AgentView = { task: "t", tools: [], transcript: [{ type: "task", task: "t" }], step: 1 };
    const failure: unknown = await agent.decide(view, { signal: new AbortController().signal }).then(
      () => "answered",
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AgentError);
    expect(failure).toMatchObject({ retryable: true, message: "openai: the stream ended before the response was complete; gave up after 3 attempts: the run waits to be resumed" });
  });
});

describe("audit finding 6: realSleep, the back-off's real wait", () => {
  /** A signal that counts its listeners, to see that a sleep leaves none behind. */
  function countingSignal() {
    const c = new AbortController();
    let listeners = 0;
    const signal = {
      get aborted() {
        return c.signal.aborted;
      },
      get reason() {
        return c.signal.reason as unknown;
      },
      addEventListener: (t: "abort", f: () => void, o?: { once?: boolean }) => {
        listeners++;
        c.signal.addEventListener(t, f, o);
      },
      removeEventListener: (t: "abort", f: () => void) => {
        listeners--;
        c.signal.removeEventListener(t, f);
      },
    };
    return { signal, abort: (why: unknown) => c.abort(why), listeners: () => listeners };
  }

  it("waits, then leaves no listener on the signal (fails when the listener is not removed)", async () => {
    const s = countingSignal();
    await realSleep(1, s.signal);
    expect(s.listeners()).toBe(0);
  });

  it("rejects with the signal's reason as soon as it is aborted, long before the wait is over (fails when the abort is not listened to)", async () => {
    const s = countingSignal();
    const why = new Error("lease lost");
    // Ten minutes: only the abort can end it within the test's time.
    const slept = realSleep(600_000, s.signal);
    s.abort(why);
    await expect(slept).rejects.toBe(why);
  });

  it("rejects at once when the signal is already aborted, without waiting or listening (fails when the aborted check is skipped)", async () => {
    const s = countingSignal();
    const why = new Error("stopped");
    s.abort(why);
    await expect(realSleep(600_000, s.signal)).rejects.toBe(why);
    expect(s.listeners()).toBe(0);
  });

  it("cuts the agent's back-off short: a decide waiting out a 503 rejects when its signal aborts (fails when the agent does not pass its signal to the sleep)", async () => {
    const t = scripted({ status: 503, body: JSON.stringify({ error: { message: "Overloaded", type: "server_error", param: null, code: null } }) });
    // The real sleep, and a back-off of ten minutes.
    const agent = openaiAgent({ model: "gpt-mock", transport: t.transport, retry: { baseDelayMs: 600_000, maxDelayMs: 600_000, random: () => 0 } });
    const c = new AbortController();
    const view: AgentView = { task: "t", tools: [], transcript: [{ type: "task", task: "t" }], step: 1 };
    const deciding = agent.decide(view, { signal: c.signal });
    // Abort once the first answer has been read (the agent is then asleep).
    while (t.left() > 0) await new Promise((r) => setTimeout(r, 1));
    const why = new Error("lease lost");
    c.abort(why);
    await expect(deciding).rejects.toBe(why);
  });
});
