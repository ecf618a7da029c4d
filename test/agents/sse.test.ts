import { describe, expect, it } from "vitest";
import { parseSse, type SseEvent } from "../../src/agents/model/sse.js";

async function events(...chunks: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const enc = new TextEncoder();
  async function* source() {
    for (const c of chunks) yield typeof c === "string" ? enc.encode(c) : c;
  }
  const out: SseEvent[] = [];
  for await (const e of parseSse(source())) out.push(e);
  return out;
}

describe("parseSse", () => {
  it("follows the WHATWG rules: fields, joined data lines, comments, one leading space, the three line ends", async () => {
    expect(await events("event: a\ndata: 1\ndata:  2\n\n: comment\r\ndata:3\r\rid: 7\ndata\n\n")).toEqual([
      { event: "a", data: "1\n 2" },
      { event: "message", data: "3" },
      { event: "message", data: "", id: "7" },
    ]);
  });

  it("reassembles events split anywhere, a CRLF split across chunks and a character split across bytes included", async () => {
    const bytes = new TextEncoder().encode("data: é\r\n\r\n");
    expect(await events("da", "ta: x", "\r", "\n\r", "\n", bytes.slice(0, 7), bytes.slice(7))).toEqual([
      { event: "message", data: "x" },
      { event: "message", data: "é" },
    ]);
  });

  it("drops an event the stream did not finish", async () => {
    expect(await events("data: done\n\ndata: half")).toEqual([{ event: "message", data: "done" }]);
  });

  it("turns invalid UTF-8 into U+FFFD instead of failing", async () => {
    expect(await events(new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a]))).toEqual([{ event: "message", data: "\uFFFD" }]);
  });
});
