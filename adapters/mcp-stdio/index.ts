/**
 * isoagent/mcp/stdio (Node only): an MCP server started as a child process,
 * through the official SDK's stdio transport, as a transport for isoagent's
 * MCP client. Kept out of the isomorphic core (it spawns processes): the
 * platform check excludes this entry, and says so.
 *
 * The SDK reads each line with `JSON.parse` before isoagent sees it, so a
 * repeated key in a server's message is collapsed there rather than refused
 * (over Streamable HTTP isoagent reads the bytes itself, through its strict
 * JSON boundary). Every message is still checked for its JSON-RPC shape.
 *
 * @module
 */
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/client/stdio";
import type { JsonValue } from "../../src/index.js";
import { connectMcp, McpError, toMessage, type McpConnection, type McpConnectOptions, type McpTransport } from "../../src/mcp/index.js";

export type { StdioServerParameters };

/**
 * The SDK's stdio transport, as an isoagent MCP transport. The process
 * starts with the first message and stops on close.
 *
 * @example
 * ```ts
 * const connection = await connectMcp({ transport: stdioTransport({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }) })
 * ```
 */
export function stdioTransport(params: StdioServerParameters): McpTransport {
  const sdk = new StdioClientTransport(params);
  let started: Promise<void> | undefined;
  let closed = false;
  const transport: McpTransport = {
    answersInline: false,
    async send(message) {
      if (closed) throw new McpError("MCP_CLOSED", "the MCP server's process is closed");
      try {
        await (started ??= sdk.start());
        await sdk.send(message as never);
      } catch (e) {
        throw new McpError("MCP_CONNECT_FAILED", `could not talk to the MCP server process (${params.command})`, { cause: e });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await sdk.close();
    },
  };
  sdk.onmessage = (m) => {
    const checked = toMessage(m as unknown as JsonValue);
    if (typeof checked === "string") transport.onerror?.(new McpError("MCP_PROTOCOL_ERROR", `the MCP server process sent ${checked}`));
    else transport.onmessage?.(checked, undefined);
  };
  sdk.onerror = (e) => transport.onerror?.(e);
  sdk.onclose = () => {
    closed = true;
    transport.onclose?.();
  };
  return transport;
}

/**
 * Starts an MCP server as a child process and connects to it.
 *
 * @example
 * ```ts
 * const connection = await connectStdio({ command: "node", args: ["server.js"] })
 * const { tools } = await mcpTools(connection)
 * ```
 */
export function connectStdio(params: StdioServerParameters, options: Omit<McpConnectOptions, "url" | "transport" | "http"> = {}): Promise<McpConnection> {
  return connectMcp({ ...options, transport: stdioTransport(params) });
}
