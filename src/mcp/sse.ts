/**
 * Server-Sent Events, as the HTML standard reads them: an incremental
 * parser (lines end with CRLF, LF or CR, a CR may end one chunk and its LF
 * start the next; `data` lines are joined with newlines; `id` sets the last
 * event id, `retry` the reconnection delay; comments are skipped), with a cap
 * on an event's size, and a writer.
 */
import { McpError } from "./errors.js";

/** One dispatched event. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** The last event id after this event (the stream's cursor). */
  readonly id: string | undefined;
}

/**
 * An incremental parser: feed it decoded text, it answers the events
 * completed so far. Each chunk is scanned once (the partial line kept between
 * chunks is never rescanned), and the event being read, its partial line
 * included, is held to `maxEventChars`: a line that would pass the cap fails
 * the push that would take it past, before it is buffered.
 */
export class SseParser {
  /** The line read so far (no line end yet), in pieces: joined once it ends. */
  private partial: string[] = [];
  private partialChars = 0;
  private data: string[] = [];
  private dataChars = 0;
  private type = "";
  private sawCr = false;
  /** The last event id seen (set by an `id` field, even on an event with no data). */
  lastEventId: string | undefined;
  /** The reconnection delay the server asked for, in ms. */
  retryMs: number | undefined;

  constructor(private readonly maxEventChars = 16 * 1024 * 1024) {}

  private tooLarge(): McpError {
    return new McpError("MCP_MESSAGE_TOO_LARGE", `an event of the stream is larger than ${this.maxEventChars} characters`);
  }

  /** Parses a chunk; answers the events it completed. Throws MCP_MESSAGE_TOO_LARGE when the event being read passes the cap. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    if (chunk.length === 0) return out;
    let start = 0;
    if (this.sawCr && chunk.charCodeAt(0) === 10) start = 1;
    this.sawCr = false;
    for (let k = start; k < chunk.length; k++) {
      const c = chunk.charCodeAt(k);
      if (c !== 10 && c !== 13) continue;
      if (this.partialChars + (k - start) + this.dataChars > this.maxEventChars) throw this.tooLarge();
      const piece = chunk.slice(start, k);
      const line = this.partial.length === 0 ? piece : this.partial.join("") + piece;
      this.partial = [];
      this.partialChars = 0;
      if (c === 13) {
        if (k + 1 === chunk.length) this.sawCr = true;
        else if (chunk.charCodeAt(k + 1) === 10) k++;
      }
      start = k + 1;
      const e = this.line(line);
      if (e !== undefined) out.push(e);
    }
    const rest = chunk.length - start;
    if (rest > 0) {
      if (this.partialChars + rest + this.dataChars > this.maxEventChars) throw this.tooLarge();
      this.partial.push(start === 0 ? chunk : chunk.slice(start));
      this.partialChars += rest;
    }
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        this.dataChars += value.length + 1;
        if (this.dataChars > this.maxEventChars) throw this.tooLarge();
        break;
      case "event":
        this.type = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const had = this.data.length > 0;
    const e = { event: this.type === "" ? "message" : this.type, data: this.data.join("\n"), id: this.lastEventId };
    this.data = [];
    this.dataChars = 0;
    this.type = "";
    return had ? e : undefined;
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
