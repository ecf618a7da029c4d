/**
 * Server-sent events from a model's byte stream, read by the one SSE reader
 * (src/sse.ts: the WHATWG rules). Invalid UTF-8 becomes U+FFFD.
 *
 * The event being read, its partial line included, is held to a cap: a
 * provider (or whatever answers in its place) that sends one line without
 * end fails the request at the cap, at once, instead of being buffered, and
 * rescanned, until the request's own timeout.
 */
import { SseReader } from "../../sse.js";
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
  const reader = new (class extends SseReader {
    protected tooLarge(): AgentError {
      return new AgentError(`${provider}: an event of the answer's stream is larger than ${this.maxEventChars} characters`);
    }
  })(maxEventChars);
  const events = function* (text: string): Generator<SseEvent> {
    for (const e of reader.push(text)) yield e.id === undefined ? { event: e.event, data: e.data } : { event: e.event, data: e.data, id: e.id };
  };
  for await (const chunk of chunks) yield* events(decode(chunk));
  // The stream's end: what is left dispatches nothing (an event the stream did not finish is dropped).
  yield* events(decode());
}
