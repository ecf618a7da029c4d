/**
 * The typed errors of isoagent/mcp, each with a stable code.
 */
import { IsoagentError, type IsoagentErrorCode } from "../errors.js";

/** The codes of {@link McpError}. */
export type McpErrorCode = Extract<IsoagentErrorCode, `MCP_${string}`>;

/**
 * A failure talking to an MCP server (or serving one): `code` says which.
 *
 * - `MCP_OPTIONS_INVALID`: options that cannot be meant (no URL, a bad prefix, ...).
 * - `MCP_CONNECT_FAILED`: the server could not be reached or initialized.
 * - `MCP_HTTP_ERROR`: an HTTP status the transport cannot go on from (`status`).
 * - `MCP_PROTOCOL_ERROR`: something that is not MCP (not JSON-RPC, a result of the wrong shape, a refused protocol version).
 * - `MCP_RPC_ERROR`: the server answered with a JSON-RPC error (`rpcCode`).
 * - `MCP_SESSION_EXPIRED`: the server ended the session (HTTP 404) and a new one could not be started.
 * - `MCP_MESSAGE_TOO_LARGE`: a message over the size limit.
 * - `MCP_CANCELLED`: the request was cancelled (its signal aborted).
 * - `MCP_CLOSED`: the connection is closed.
 */
export class McpError extends IsoagentError {
  declare readonly code: McpErrorCode;
  /** The HTTP status, for MCP_HTTP_ERROR. */
  readonly status: number | undefined;
  /** The JSON-RPC error code, for MCP_RPC_ERROR. */
  readonly rpcCode: number | undefined;
  /** The server's own message, for MCP_RPC_ERROR (cleaned, one line, cut). */
  readonly serverMessage: string | undefined;
  constructor(code: McpErrorCode, message: string, options: { status?: number; rpcCode?: number; serverMessage?: string; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "McpError";
    this.status = options.status;
    this.rpcCode = options.rpcCode;
    this.serverMessage = options.serverMessage;
  }
}
