/**
 * isoagent/mcp/stdio (Node only): an MCP server started as a child process,
 * through the official SDK's stdio transport, as a transport for isoagent's
 * MCP client. Kept out of the isomorphic core (it spawns processes): the
 * platform check excludes this entry, and says so.
 *
 * The SDK (@modelcontextprotocol/client, an optional peer dependency) is
 * imported with the first message; not installed, that message fails with
 * PEER_MISSING, naming the package and the supported range.
 *
 * The SDK reads each line with `JSON.parse` before isoagent sees it, so a
 * repeated key in a server's message is collapsed there rather than refused
 * (over Streamable HTTP isoagent reads the bytes itself, through its strict
 * JSON boundary). Every message is still checked for its JSON-RPC shape.
 *
 * @module
 */
import type { StdioClientTransport, StdioServerParameters } from "@modelcontextprotocol/client/stdio";
import { isIsoagentError, type JsonValue } from "../../src/index.js";
import { connectMcp, McpError, toMessage, type McpConnection, type McpConnectOptions, type McpTransport } from "../../src/mcp/index.js";
import { importPeer } from "../../src/peers.js";

/** How the server's process is started (command, arguments, environment, working directory): the MCP SDK's type, re-exported so a caller can name it. */
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
  let sdk: StdioClientTransport | undefined;
  let started: Promise<StdioClientTransport> | undefined;
  let closed = false;
  const transport: McpTransport = {
    answersInline: false,
    async send(message) {
      if (closed) throw new McpError("MCP_CLOSED", "the MCP server's process is closed");
      try {
        const s = await (started ??= open());
        await s.send(message as never);
      } catch (e) {
        if (isIsoagentError(e, "PEER_MISSING")) throw e;
        throw new McpError("MCP_CONNECT_FAILED", `could not talk to the MCP server process (${params.command})`, { cause: e });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await sdk?.close();
    },
  };
  // The SDK is imported once, with the first message.
  async function open(): Promise<StdioClientTransport> {
    const { StdioClientTransport } = await importPeer("@modelcontextprotocol/client", "isoagent/mcp/stdio", () => import("@modelcontextprotocol/client/stdio"));
    const s = (sdk = new StdioClientTransport(params));
    s.onmessage = (m) => {
      const checked = toMessage(m as unknown as JsonValue);
      if (typeof checked === "string") transport.onerror?.(new McpError("MCP_PROTOCOL_ERROR", `the MCP server process sent ${checked}`));
      else transport.onmessage?.(checked, undefined);
    };
    s.onerror = (e) => transport.onerror?.(e);
    s.onclose = () => {
      closed = true;
      transport.onclose?.();
    };
    await s.start();
    return s;
  }
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
