/**
 * The client's size limits hold against a hostile server (issue 26): an SSE
 * line larger than the message cap fails its request at the cap, at once,
 * rather than being buffered (and rescanned) until the call's timeout; a
 * tool nested past the JSON depth limit is left out alone, with its reason,
 * and the rest of the listing is kept.
 */
import { describe, expect, it } from "vitest";
import { isIsoagentError } from "../../src/index.js";
import { connectMcp, mcpTools, McpError } from "../../src/mcp/index.js";
import type { FetchLike } from "../../src/web.js";
import { scaled } from "../helpers/time.js";

const MiB = 1024 * 1024;
const CHUNK = 4096;

/**
 * A server as a fetch function: initialize answers JSON; every other request
 * answers an SSE stream that is one `data:` line of `lineBytes` bytes, sent
 * in 4 KiB chunks as the reader asks for them (no coalescing), and that never
 * ends. `pulled` counts the bytes the client took.
 */
function hugeLineServer(lineBytes: number): { fetch: FetchLike; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const chunk = new TextEncoder().encode("a".repeat(CHUNK));
  const fetch: FetchLike = async (_url, init) => {
    const m = JSON.parse(init.body ?? "{}") as { id?: string; method?: string };
    if (m.method === "initialize") {
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "huge", version: "1" } } }), {
        headers: { "content-type": "application/json" },
      }) as never;
    }
    if (m.id === undefined) return new Response(null, { status: 202 }) as never;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (sent === 0) c.enqueue(new TextEncoder().encode("data: "));
          if (sent >= lineBytes) return new Promise<void>(() => {}); // the line never ends, nor the stream
          sent += CHUNK;
          pulled += CHUNK;
          c.enqueue(chunk);
          return undefined;
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { headers: { "content-type": "text/event-stream" } }) as never;
  };
  return { fetch, pulled: () => pulled, cancelled: () => cancelled };
}

describe("an SSE line larger than the message cap (16 MiB)", () => {
  it(
    "fails the request at the cap, with MCP_MESSAGE_TOO_LARGE, having read no more than the cap and a chunk; the stream is cancelled",
    async () => {
      const server = hugeLineServer(60 * MiB);
      const c = await connectMcp({ url: "http://huge.test/mcp", http: { fetch: server.fetch }, listen: false });
      // A timeout far past what reading 16 MiB takes: the request must fail by the cap, not by this.
      const e = await c.request("tools/list", {}, { timeoutMs: scaled(600_000) }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(McpError);
      expect(isIsoagentError(e, "MCP_MESSAGE_TOO_LARGE")).toBe(true);
      expect((e as Error).message).toBe("an event of the stream is larger than 16777216 characters");
      expect(server.pulled()).toBeGreaterThanOrEqual(16 * MiB - CHUNK);
      expect(server.pulled()).toBeLessThanOrEqual(16 * MiB + 2 * CHUNK);
      expect(server.cancelled()).toBe(true);
      await c.close();
    },
    scaled(60_000),
  );

  it(
    "a smaller cap (maxMessageBytes) is held the same way",
    async () => {
      const server = hugeLineServer(60 * MiB);
      const c = await connectMcp({ url: "http://huge.test/mcp", http: { fetch: server.fetch, maxMessageBytes: MiB }, listen: false });
      const e = await c.request("tools/list", {}, { timeoutMs: scaled(600_000) }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(isIsoagentError(e, "MCP_MESSAGE_TOO_LARGE")).toBe(true);
      expect(server.pulled()).toBeLessThanOrEqual(MiB + 2 * CHUNK);
      await c.close();
    },
    scaled(60_000),
  );
});

/** A schema nested `levels` times (`properties.a` in each): two JSON levels a time. */
function deepSchema(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`;
}

/** A server as a fetch function whose tools/list answer is the raw `tools` text given (as JSON, or as one SSE event). */
function listingServer(toolsText: string, as: "json" | "sse" = "json"): FetchLike {
  return async (_url, init) => {
    const m = JSON.parse(init.body ?? "{}") as { id?: string; method?: string };
    const json = (text: string) => new Response(text, { headers: { "content-type": "application/json" } }) as never;
    if (m.method === "initialize")
      return json(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "deep", version: "1" } } }));
    if (m.id === undefined) return new Response(null, { status: 202 }) as never;
    const text = `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":${toolsText}}}`;
    return as === "json" ? json(text) : (new Response(`event: message\ndata: ${text}\n\n`, { headers: { "content-type": "text/event-stream" } }) as never);
  };
}

const good = (name: string) => JSON.stringify({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: { q: { type: "string" } } }, annotations: { readOnlyHint: true } });

describe("a tool nested deeper than the JSON depth limit (256)", () => {
  for (const [levels, as] of [
    [200, "json"],
    [200, "sse"],
    [100_000, "json"],
    [100_000, "sse"],
  ] as const) {
    it(
      `${levels} levels (${as}): that tool alone is left out with its reason; the others are kept; no RangeError`,
      async () => {
        const tools = `[${good("before")},{"name":"deep","description":"Nested.","inputSchema":${deepSchema(levels)}},${good("after")}]`;
        const c = await connectMcp({ url: "http://deep.test/mcp", http: { fetch: listingServer(tools, as) }, listen: false });
        const set = await mcpTools(c);
        expect(set.tools.map((t) => t.name)).toEqual(["before", "after"]);
        expect(set.refused).toEqual([{ name: "deep", code: "JSON_TOO_DEEP", reason: "its definition is not strict JSON: nesting deeper than 256 levels" }]);
        await c.close();
      },
      scaled(60_000),
    );
  }
});
