/**
 * Server-Sent Events, as the HTML standard reads them: the one incremental
 * parser the model adapters' streams and the MCP client's both read with.
 * Lines end with CRLF, LF or CR (a CR may end one chunk and its LF start the
 * next); `data` lines are joined with newlines; a blank line dispatches; a
 * line starting with ":" is a comment; one space after the colon is dropped;
 * `id` sets the last event id, `retry` the reconnection delay.
 *
 * Each chunk is scanned once (the partial line kept between chunks is never
 * rescanned), and the event being read, its partial line included, is held
 * to a cap: a line that would pass it fails the push that would take it
 * past, before it is buffered, with the error the reader's layer names.
 */

/** One dispatched event. */
export interface SseEvent {
  /** "message" when the stream named none. */
  readonly event: string;
  readonly data: string;
  /** The last event id after this event (the stream's cursor). */
  readonly id: string | undefined;
}

/**
 * An incremental parser: feed it decoded text, it answers the events
 * completed so far. A layer's reader says what its cap's error is
 * (`tooLarge`, with the cap in `maxEventChars`).
 */
export abstract class SseReader {
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

  /** The largest event read, in characters: 16 MiB unless told. */
  constructor(protected readonly maxEventChars = 16 * 1024 * 1024) {}

  /** The error thrown when the event being read passes `maxEventChars`. */
  protected abstract tooLarge(): Error;

  /** Parses a chunk; answers the events it completed. Throws `tooLarge`'s error when the event being read passes the cap. */
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
