/**
 * Server-sent events from a byte stream, as the WHATWG parsing rules say:
 * lines end with CRLF, LF or CR; `data` lines join with LF; a blank line
 * dispatches; a line starting with ":" is a comment; one space after the
 * colon is dropped. Invalid UTF-8 becomes U+FFFD.
 *
 * Each chunk is scanned once (the partial line kept between chunks is never
 * rescanned), and the event being read, its partial line included, is held
 * to a cap: a provider (or whatever answers in its place) that sends one
 * line without end fails the request at the cap, at once, instead of being
 * buffered, and rescanned, until the request's own timeout.
 */
import { utf8StreamDecoder } from "../../web.js";
import { AgentError } from "../port.js";

export interface SseEvent {
  /** "message" when the stream named none. */
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

/** The largest event read from a model's stream (its lines and joined data), in characters: 16 MiB. */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * The events of a stream. Throws an {@link AgentError} naming `provider` when
 * one passes `maxEventChars`; the source is then closed.
 */
export async function* parseSse(chunks: AsyncIterable<Uint8Array>, provider: string, maxEventChars = MAX_SSE_EVENT_CHARS): AsyncGenerator<SseEvent> {
  const decode = utf8StreamDecoder();
  let partial: string[] = [];
  let partialChars = 0;
  let sawCr = false;
  let event = "";
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  let sawData = false;
  const tooLarge = (): AgentError => new AgentError(`${provider}: an event of the answer's stream is larger than ${maxEventChars} characters`);
  /** The lines a chunk completes (the rest is kept as the partial line). */
  function lines(chunk: string): string[] {
    const out: string[] = [];
    if (chunk.length === 0) return out;
    let start = sawCr && chunk.charCodeAt(0) === 10 ? 1 : 0;
    sawCr = false;
    for (let k = start; k < chunk.length; k++) {
      const c = chunk.charCodeAt(k);
      if (c !== 10 && c !== 13) continue;
      if (partialChars + (k - start) + dataChars > maxEventChars) throw tooLarge();
      const piece = chunk.slice(start, k);
      out.push(partial.length === 0 ? piece : partial.join("") + piece);
      partial = [];
      partialChars = 0;
      if (c === 13) {
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (k + 1 === chunk.length) sawCr = true;
        else if (chunk.charCodeAt(k + 1) === 10) k++;
      }
      start = k + 1;
    }
    if (start < chunk.length) {
      if (partialChars + (chunk.length - start) + dataChars > maxEventChars) throw tooLarge();
      partial.push(chunk.slice(start));
      partialChars += chunk.length - start;
    }
    return out;
  }
  function* take(list: readonly string[]): Generator<SseEvent> {
    for (const line of list) {
      if (line === "") {
        if (sawData) yield { event: event === "" ? "message" : event, data: data.join("\n"), ...(id === undefined ? {} : { id }) };
        event = "";
        data = [];
        dataChars = 0;
        sawData = false;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") {
        data.push(value);
        dataChars += value.length + 1;
        if (dataChars > maxEventChars) throw tooLarge();
        sawData = true;
      } else if (field === "event") event = value;
      else if (field === "id" && !value.includes("\0")) id = value;
    }
  }
  for await (const chunk of chunks) yield* take(lines(decode(chunk)));
  const last = lines(decode());
  if (partial.length > 0) last.push(partial.join(""));
  yield* take(last);
}
