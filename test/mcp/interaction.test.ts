/**
 * What a server asks in the middle of a call: elicitation goes to the
 * application's handler, live (the default declines; what it accepts gets
 * the schema's defaults and must match the schema), sampling is refused
 * unless the application gives a sampling agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, calls, final } from "../../src/index.js";
import { connectMcp, mcpTools, type McpConnectOptions, type McpElicitation } from "../../src/mcp/index.js";
import { startSdkServer, tool, type SdkServer } from "./helpers/sdk-server.js";
import { driverOf, observations } from "./helpers/run.js";

const obj = { type: "object", properties: {}, required: [] };
const REQUESTED = { type: "object", properties: { name: { type: "string", default: "Ana" }, age: { type: "integer", minimum: 0 } }, required: ["age"] };
let server: SdkServer;
const answers: unknown[] = [];

beforeAll(async () => {
  server = await startSdkServer([
    tool({ name: "ask", description: "Asks a person.", inputSchema: obj, annotations: { readOnlyHint: true } }, async (_a, ctx) => {
      const r = await ctx.elicit({ message: "Who are you?\u001b[2J", requestedSchema: REQUESTED });
      answers.push(r);
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    }),
    tool({ name: "ask_url", description: "Asks through a URL.", inputSchema: obj, annotations: { readOnlyHint: true } }, async (_a, ctx) => {
      const r = await ctx.elicit({ mode: "url", message: "Open this", url: "https://example.com/x", elicitationId: "e1" }).catch((e: Error) => ({ error: e.message }));
      answers.push(r);
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    }),
    tool({ name: "ask_nested", description: "Asks for a nested object.", inputSchema: obj, annotations: { readOnlyHint: true } }, async (_a, ctx) => {
      const r = await ctx
        .elicit({ message: "Nested", requestedSchema: { type: "object", properties: { address: { type: "object", properties: { city: { type: "string" } } } } } })
        .catch((e: Error) => ({ error: e.message }));
      answers.push(r);
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    }),
    tool({ name: "think_anyway", description: "Asks for sampling though the client did not offer it.", inputSchema: obj, annotations: { readOnlyHint: true } }, async (_a, ctx) => {
      const r = await ctx.raw("sampling/createMessage", { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 }).catch((e: Error) => ({ error: e.message }));
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    }),
    tool({ name: "think", description: "Asks the client's model.", inputSchema: obj, annotations: { readOnlyHint: true } }, async (_a, ctx) => {
      const r = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 }).catch((e: Error) => ({ error: e.message }));
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    }),
  ]);
});
afterAll(() => server.close());

async function callWith(options: Partial<McpConnectOptions>, toolName: string): Promise<string> {
  const connection = await connectMcp({ url: server.url, ...options });
  try {
    const set = await mcpTools(connection, { trustAnnotations: true });
    const { driver, store } = driverOf(set.tools, [calls(call(toolName)), final("done")]);
    await driver.start("t", { runId: "run_e" as never });
    const [o] = await observations(store, "run_e");
    return String(o?.["content"] ?? o?.["error"]);
  } finally {
    await connection.close();
  }
}

describe("elicitation: live, to the application's handler", () => {
  it("declines by default", async () => {
    answers.length = 0;
    await callWith({}, "ask");
    expect(answers).toEqual([{ action: "decline" }]);
  });

  it("gives the handler the cleaned message, the schema and which call the server interrupted; what it accepts gets the schema's defaults", async () => {
    answers.length = 0;
    const asked: Omit<McpElicitation, "signal">[] = [];
    await callWith({ elicit: ({ signal: _s, ...r }) => (asked.push(r), { action: "accept", content: { age: 30 } }) }, "ask");
    expect(asked).toEqual([{ message: "Who are you?", requestedSchema: REQUESTED, server: "sdk-test-server", tool: "ask", runId: "run_e", callId: "s1c1" }]);
    expect(answers).toEqual([{ action: "accept", content: { age: 30, name: "Ana" } }]);
  });

  it("declines what does not match the schema, and a handler that throws", async () => {
    answers.length = 0;
    await callWith({ elicit: () => ({ action: "accept", content: { age: -1 } }) }, "ask");
    await callWith({ elicit: () => ({ action: "accept", content: { age: "thirty" } as never }) }, "ask");
    await callWith({ elicit: () => ({ action: "accept", content: { age: 3, extra: { nested: true } } as never }) }, "ask");
    await callWith(
      {
        elicit: () => {
          throw new Error("boom");
        },
      },
      "ask",
    );
    expect(answers).toEqual([{ action: "decline" }, { action: "decline" }, { action: "decline" }, { action: "decline" }]);
  });

  it("passes cancel through", async () => {
    answers.length = 0;
    await callWith({ elicit: () => ({ action: "cancel" }) }, "ask");
    expect(answers).toEqual([{ action: "cancel" }]);
  });

  it("declines URL-mode requests and schemas that are not the flat form, without asking the handler", async () => {
    answers.length = 0;
    let asked = 0;
    const elicit = () => (asked++, { action: "accept" as const, content: {} });
    await callWith({ elicit }, "ask_url");
    await callWith({ elicit }, "ask_nested");
    expect(asked).toBe(0);
    // The SDK refuses a URL-mode request to a client that did not declare URL mode before sending it.
    expect(answers[0]).toMatchObject({ error: expect.stringContaining("url") });
    expect(answers[1]).toEqual({ action: "decline" });
  });
});

describe("sampling", () => {
  it("is not offered without a sampling agent, and refused with a clear error when a server asks anyway", async () => {
    expect(JSON.parse((await callWith({}, "think")).split("\n")[1]!)).toEqual({ error: expect.stringContaining("sampling") });
    expect(JSON.parse((await callWith({}, "think_anyway")).split("\n")[1]!)).toEqual({ error: expect.stringContaining("sampling is refused: this isoagent client was given no sampling agent") });
  });

  it("goes to the sampling agent when there is one", async () => {
    const seen: unknown[] = [];
    const out = await callWith({ sampling: (r) => (seen.push([r.tool, r.params["maxTokens"]]), { role: "assistant", content: { type: "text", text: "4" }, model: "test-model" }) }, "think");
    expect(seen).toEqual([["think", 10]]);
    expect(JSON.parse(out.split("\n")[1]!)).toEqual({ model: "test-model", role: "assistant", content: { type: "text", text: "4" } });
  });
});
