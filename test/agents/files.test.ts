/**
 * The files of a user's message (issue 29), as each model adapter shows
 * them: images and PDFs as the provider's own parts (a data URL, or base64
 * blocks), text as text, anything else and a missing file as a note the
 * model reads. The driver hands the adapter their bytes with the view.
 */
import { describe, expect, it } from "vitest";
import { createDriver, final, memoryStore, type Agent, type AgentView, type TranscriptItem } from "../../src/index.js";
import { openaiAgent } from "../../src/agents/openai/index.js";
import { anthropicAgent } from "../../src/agents/anthropic/index.js";
import { sha256HexSync } from "../../src/json/index.js";

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
const pdf = new TextEncoder().encode("%PDF-1.7");
const txt = new TextEncoder().encode("milk, eggs");
const zip = new Uint8Array([0x50, 0x4b, 3, 4]);
const file = (bytes: Uint8Array, mediaType: string, name: string) => ({ sha256: sha256HexSync(bytes), mediaType, size: bytes.length, name });
const message: TranscriptItem = {
  type: "user",
  turn: 1,
  messageId: "m1",
  text: "look",
  files: [
    file(png, "image/png", "a.png"),
    file(pdf, "application/pdf", "b.pdf"),
    file(txt, "text/plain", "c.txt"),
    file(zip, "application/zip", "d.zip"),
    { ...file(new Uint8Array([1]), "image/png", "gone.png") },
  ],
};
const view: AgentView = {
  task: "Be brief.",
  tools: [],
  step: 1,
  transcript: [{ type: "task", task: "Be brief." }, message],
  files: new Map([png, pdf, txt, zip].map((b) => [sha256HexSync(b), b])),
};
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const noTransport = async () => new Response("unused", { status: 500 });

describe("a message's files, as each adapter shows them", () => {
  it("OpenAI Responses: input_image and input_file as data URLs, text and notes as input_text", () => {
    const body = openaiAgent({ model: "m", transport: noTransport as never }).request(view).body as { input: { role?: string; content: unknown }[] };
    expect(body.input[1]).toEqual({
      role: "user",
      content: [
        { type: "input_text", text: "look" },
        { type: "input_image", image_url: `data:image/png;base64,${b64(png)}`, detail: "auto" },
        { type: "input_file", filename: "b.pdf", file_data: `data:application/pdf;base64,${b64(pdf)}` },
        { type: "input_text", text: '[File "c.txt" (text/plain):]\nmilk, eggs' },
        { type: "input_text", text: '[The user sent "d.zip" (application/zip, 4 bytes): this model is shown images, PDFs and text files only.]' },
        { type: "input_text", text: '[The user sent "gone.png" (image/png, 1 bytes), which is not available here.]' },
      ],
    });
  });

  it("OpenAI Chat Completions: image_url and file parts", () => {
    const body = openaiAgent({ model: "m", api: "chat", transport: noTransport as never }).request(view).body as { messages: { role: string; content: { type: string }[] }[] };
    const user = body.messages.filter((m) => m.role === "user")[1]!;
    expect(user.content.map((p) => p.type)).toEqual(["text", "image_url", "file", "text", "text", "text"]);
    expect(user.content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${b64(png)}` } });
    expect(user.content[2]).toEqual({ type: "file", file: { filename: "b.pdf", file_data: `data:application/pdf;base64,${b64(pdf)}` } });
  });

  it("Anthropic: image and document blocks (base64, or text), in the user's message", () => {
    const body = anthropicAgent({ model: "m", transport: noTransport as never }).request(view).body as { messages: { role: string; content: { type: string }[] }[] };
    const user = body.messages[0]!;
    expect(user.role).toBe("user");
    expect(user.content.slice(1)).toEqual([
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(png) } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: b64(pdf) } },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "milk, eggs" }, title: "c.txt" },
      { type: "text", text: '[The user sent "d.zip" (application/zip, 4 bytes): this model is shown images, PDFs and text files only.]' },
      { type: "text", text: '[The user sent "gone.png" (image/png, 1 bytes), which is not available here.]' },
    ]);
  });

  it("the driver hands the agent the bytes of every file the conversation's messages carry", async () => {
    const seen: (ReadonlyMap<string, Uint8Array> | undefined)[] = [];
    const agent: Agent = {
      async decide(v) {
        seen.push(v.files);
        return final("ok");
      },
    };
    const driver = createDriver({ store: memoryStore(), agent, tools: [] });
    const chat = await driver.create(null, { conversation: true });
    await driver.send(chat, { id: "m1", text: "first", files: [{ mediaType: "image/png", data: png, name: "a.png" }] });
    await driver.resume(chat);
    await driver.send(chat, { id: "m2", text: "second" });
    await driver.resume(chat);
    expect(seen.map((m) => (m === undefined ? [] : [...m.entries()].map(([k, v]) => [k, [...v]])))).toEqual([[[sha256HexSync(png), [...png]]], [[sha256HexSync(png), [...png]]]]);
  });
});
