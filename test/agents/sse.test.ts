import { describe, expect, it } from "vitest";
import { MAX_SSE_EVENT_CHARS, parseSse, type SseEvent } from "../../src/agents/model/sse.js";
import { AgentError } from "../../src/index.js";

async function events(...chunks: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const enc = new TextEncoder();
  async function* source() {
    for (const c of chunks) yield typeof c === "string" ? enc.encode(c) : c;
  }
  const out: SseEvent[] = [];
  for await (const e of parseSse(source(), "test")) out.push(e);
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

  it("fails at the cap (16 MiB), at once, on one line that never ends: no more than the cap and a chunk is read, and the source is closed", async () => {
    expect(MAX_SSE_EVENT_CHARS).toBe(16 * 1024 * 1024);
    const chunk = new TextEncoder().encode("a".repeat(4096));
    let pulled = 0;
    let closed = false;
    async function* source() {
      try {
        yield new TextEncoder().encode("data: ");
        for (let k = 0; k < (60 * 1024 * 1024) / 4096; k++) {
          pulled += chunk.length;
          yield chunk;
        }
      } finally {
        closed = true;
      }
    }
    let thrown: unknown;
    try {
      for await (const _ of parseSse(source(), "openai")) throw new Error("no event was expected");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AgentError);
    expect((thrown as AgentError).message).toBe("openai: an event of the answer's stream is larger than 16777216 characters");
    expect(pulled).toBeGreaterThanOrEqual(16 * 1024 * 1024 - 4096);
    expect(pulled).toBeLessThanOrEqual(16 * 1024 * 1024 + 2 * 4096);
    expect(closed).toBe(true);
  }, 60_000);

  it("holds data lines joined into one event to the cap too, and counts a partial line split anywhere", async () => {
    const line = `data: ${"b".repeat(40)}\n`;
    const enc = new TextEncoder();
    async function* source() {
      for (const c of (line + line + line).match(/[\s\S]{1,7}/g)!) yield enc.encode(c);
    }
    await expect(
      (async () => {
        for await (const _ of parseSse(source(), "anthropic", 100)) throw new Error("no event was expected");
      })(),
    ).rejects.toThrow("anthropic: an event of the answer's stream is larger than 100 characters");
    async function* fits() {
      yield enc.encode(`data: ${"c".repeat(90)}\n\n`);
    }
    const out: SseEvent[] = [];
    for await (const e of parseSse(fits(), "anthropic", 100)) out.push(e);
    expect(out).toEqual([{ event: "message", data: "c".repeat(90) }]);
  });
});
