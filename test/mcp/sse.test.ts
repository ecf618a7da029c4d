/**
 * The MCP client's SSE parser against a whole-text reading of the same
 * stream: any split into chunks gives the same events, ids and retry; and the
 * event being read is held to the cap whatever the chunks.
 */
import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "../../src/mcp/sse.js";
import { rng } from "../helpers/rng.js";

/** The HTML standard's reading of a whole stream, line by line (the reference). */
function reference(text: string): { events: SseEvent[]; id: string | undefined; retry: number | undefined } {
  const events: SseEvent[] = [];
  let data: string[] = [];
  let type = "";
  let id: string | undefined;
  let retry: number | undefined;
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the text after the last line end is not a line yet
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) events.push({ event: type === "" ? "message" : type, data: data.join("\n"), id });
      data = [];
      type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") type = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  }
  return { events, id, retry };
}

const PIECES = ["data: ", "data:", "data", "event: up", "id: 7", "id: 8\u0000", "retry: 250", "retry: x", ": note", "a", "é", "\u{1F600}", '{"x":1}', " ", "\n", "\r", "\r\n", "\n\n", "\r\r", ""];

describe("the MCP client's SSE parser", () => {
  it("gives the reference's events, last id and retry for any stream split into any chunks (2,000 random cases)", () => {
    const random = rng(2601);
    for (let n = 0; n < 2000; n++) {
      let text = "";
      const parts = 1 + Math.floor(random() * 40);
      for (let k = 0; k < parts; k++) text += PIECES[Math.floor(random() * PIECES.length)];
      const p = new SseParser();
      const got: SseEvent[] = [];
      for (let at = 0; at < text.length;) {
        const size = Math.floor(random() * 6);
        got.push(...p.push(text.slice(at, at + size)));
        at += size;
      }
      const want = reference(text);
      // A CR at the very end may be the first half of a CRLF: the parser has taken it as a line end already.
      expect({ events: got, id: p.lastEventId, retry: p.retryMs }, JSON.stringify(text)).toEqual(want);
    }
  });

  it("holds the event being read to the cap: a line (data, a comment, any field) or joined data lines past it throw MCP_MESSAGE_TOO_LARGE, however it is split", () => {
    const random = rng(2602);
    const cases = ["data: " + "x".repeat(120), ": " + "c".repeat(120), "event: " + "e".repeat(120), "data: " + "y".repeat(40) + "\ndata: " + "y".repeat(40) + "\ndata: " + "y".repeat(40) + "\n"];
    for (const text of cases) {
      for (let n = 0; n < 50; n++) {
        const p = new SseParser(100);
        let thrown: unknown;
        try {
          for (let at = 0; at < text.length;) {
            const size = 1 + Math.floor(random() * 30);
            p.push(text.slice(at, at + size));
            at += size;
          }
        } catch (e) {
          thrown = e;
        }
        expect(thrown, text.slice(0, 20)).toMatchObject({ code: "MCP_MESSAGE_TOO_LARGE", message: "an event of the stream is larger than 100 characters" });
      }
    }
    const fits = new SseParser(100);
    expect(fits.push(`data: ${"z".repeat(90)}\n\n`)).toEqual([{ event: "message", data: "z".repeat(90), id: undefined }]);
  });
});
