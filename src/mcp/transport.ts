/**
 * What carries MCP messages between isoagent's client and a server:
 * Streamable HTTP over `fetch` (http.ts, every platform) or the SDK's stdio
 * transport (isoagent/mcp/stdio, Node only).
 */
import type { AbortSignalLike } from "../web.js";
import type { JsonRpcId, JsonRpcMessage } from "./jsonrpc.js";

/** One message channel to a server. */
export interface McpTransport {
  /**
   * Sends one message. For a request, what the server sends in relation to
   * it (progress, its own requests, the response) arrives through
   * `onmessage`; the promise settles once it is delivered (over HTTP: once
   * the response arrived or the stream ended). Rejects with an
   * {@link McpError} when the message could not be delivered.
   */
  send(message: JsonRpcMessage, options?: { readonly signal?: AbortSignalLike | undefined }): Promise<void>;
  /** True when `send` settles only after a request's response was delivered (Streamable HTTP); a response missing then is a protocol error. */
  readonly answersInline?: boolean | undefined;
  /** Stops: open streams are closed, nothing more is delivered. */
  close(): Promise<void>;
  /** Every message from the server; `related` is the id of the client request whose stream carried it, when the transport can tell. */
  onmessage?: ((message: JsonRpcMessage, related: JsonRpcId | undefined) => void) | undefined;
  /** A failure outside any request (a listening stream that broke for good). */
  onerror?: ((error: unknown) => void) | undefined;
  onclose?: (() => void) | undefined;
  /** The session the server gave (Streamable HTTP), to keep and resume. */
  sessionId?: string | undefined;
  /** Sets the negotiated protocol version (sent as a header over HTTP). */
  setProtocolVersion?(version: string): void;
  /** Opens the stream on which the server sends what does not belong to a request (list_changed); transports without one ignore it. */
  listen?(): void;
  /** Ends the session on the server (HTTP DELETE); transports without sessions ignore it. */
  terminate?(): Promise<void>;
}
