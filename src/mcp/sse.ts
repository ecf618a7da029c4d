/**
 * Server-Sent Events for MCP's Streamable HTTP: the client's parser (the
 * one SSE reader of src/sse.ts, its cap failing as MCP_MESSAGE_TOO_LARGE)
 * and the server's writer.
 */
import { SseReader } from "../sse.js";
import { McpError } from "./errors.js";

export type { SseEvent } from "../sse.js";

/**
 * The MCP client's parser ({@link SseReader}): an event past `maxEventChars`
 * (16 MiB unless told) fails the push with MCP_MESSAGE_TOO_LARGE.
 */
export class SseParser extends SseReader {
  protected tooLarge(): McpError {
    return new McpError("MCP_MESSAGE_TOO_LARGE", `an event of the stream is larger than ${this.maxEventChars} characters`);
  }
}

/** One event as text: `event`, `id`, `retry` when given, then the data line by line. */
export function sseEvent(e: { readonly data: string; readonly event?: string; readonly id?: string; readonly retry?: number }): string {
  let out = "";
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(e.retry))}\n`;
  for (const line of e.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}
