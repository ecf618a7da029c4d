/**
 * Server-sent events from a byte stream, as the WHATWG parsing rules say:
 * lines end with CRLF, LF or CR; `data` lines join with LF; a blank line
 * dispatches; a line starting with ":" is a comment; one space after the
 * colon is dropped. Invalid UTF-8 becomes U+FFFD.
 */
import { utf8StreamDecoder } from "../../web.js";

export interface SseEvent {
  /** "message" when the stream named none. */
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

export async function* parseSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decode = utf8StreamDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let sawData = false;
  function* lines(final: boolean): Generator<string> {
    for (;;) {
      const m = /\r\n|\n|\r/.exec(buffer);
      if (m === null) break;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (m[0] === "\r" && m.index === buffer.length - 1 && !final) break;
      yield buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
    }
    if (final && buffer !== "") {
      yield buffer;
      buffer = "";
    }
  }
  function* take(final: boolean): Generator<SseEvent> {
    for (const line of lines(final)) {
      if (line === "") {
        if (sawData) yield { event: event === "" ? "message" : event, data: data.join("\n"), ...(id === undefined ? {} : { id }) };
        event = "";
        data = [];
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
        sawData = true;
      } else if (field === "event") event = value;
      else if (field === "id" && !value.includes("\0")) id = value;
    }
  }
  for await (const chunk of chunks) {
    buffer += decode(chunk);
    yield* take(false);
  }
  buffer += decode();
  yield* take(true);
}
