/** An MCP server in memory: a transport that answers from a handler, for tests that need many servers fast. */
import type { JsonObject, JsonRpcId, JsonRpcMessage, McpTransport } from "../../../src/mcp/index.js";

export function fakeServer(
  handler: (method: string, params: JsonObject) => JsonObject | Promise<JsonObject>,
  options: { name?: string; capabilities?: JsonObject } = {},
): McpTransport & { sent: JsonRpcMessage[] } {
  const sent: JsonRpcMessage[] = [];
  const t: McpTransport & { sent: JsonRpcMessage[] } = {
    sent,
    answersInline: true,
    async send(message) {
      sent.push(message);
      if (!("method" in message) || !("id" in message)) return;
      const id = message.id as JsonRpcId;
      const params = (message.params ?? {}) as JsonObject;
      let reply: JsonRpcMessage;
      if (message.method === "initialize")
        reply = { jsonrpc: "2.0", id, result: { protocolVersion: "2025-11-25", capabilities: options.capabilities ?? { tools: {} }, serverInfo: { name: options.name ?? "fake", version: "1" } } };
      else {
        try {
          reply = { jsonrpc: "2.0", id, result: await handler(message.method, params) };
        } catch (e) {
          reply = { jsonrpc: "2.0", id, error: { code: -32603, message: e instanceof Error ? e.message : "failed" } };
        }
      }
      t.onmessage?.(reply, id);
    },
    async close() {},
  };
  return t;
}
