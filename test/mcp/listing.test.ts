/**
 * A tools/list answer read tool by tool (src/mcp/listing.ts): the linear
 * split finds exactly the entries of result.tools in any valid answer, however
 * keys, strings and nesting are arranged; one entry the strict boundary
 * refuses is left out alone with its reason; an envelope it refuses still
 * fails the whole answer; garbage never throws.
 */
import { describe, expect, it } from "vitest";
import { isIsoagentError } from "../../src/index.js";
import { connectMcp, listTools, MAX_LIST_CHARS, MAX_TOOL_CHARS, parseMessage } from "../../src/mcp/index.js";
import { splitToolsList, UnreadableTool } from "../../src/mcp/listing.js";
import { fakeServer } from "./helpers/fake.js";
import { rng } from "../helpers/rng.js";

function value(random: () => number, depth: number): unknown {
  const r = random();
  if (depth > 4 || r < 0.35) {
    const scalars = [null, true, false, 0, -1.5e3, "", "tools", 'a "quoted" ]}{,: \\ string', "name", "\u00e9\u{1F600}"];
    return scalars[Math.floor(random() * scalars.length)];
  }
  if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => value(random, depth + 1));
  const o: Record<string, unknown> = {};
  const keys = ["name", "tools", "result", "type", "x]", "{y", 'q"', "inputSchema"];
  for (let k = Math.floor(random() * 4); k > 0; k--) o[keys[Math.floor(random() * keys.length)]!] = value(random, depth + 1);
  return o;
}

/** JSON with random whitespace between tokens. */
function spaced(v: unknown, random: () => number): string {
  const ws = () => [" ", "", "\n", "\t ", "\r\n"][Math.floor(random() * 5)]!;
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => spaced(x, random)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (typeof v === "object" && v !== null)
    return `{${ws()}${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}${ws()}:${ws()}${spaced(x, random)}`)
      .join(`${ws()},${ws()}`)}${ws()}}`;
  return JSON.stringify(v);
}

describe("splitting a tools/list answer", () => {
  it("finds exactly the entries of result.tools, with their names, in 3,000 random valid answers (keys and strings that look like brackets, nesting, whitespace)", () => {
    const random = rng(2603);
    for (let n = 0; n < 3000; n++) {
      const tools = Array.from({ length: Math.floor(random() * 5) }, () =>
        random() < 0.7 ? { ...(random() < 0.8 ? { name: `t${n}` } : {}), inputSchema: value(random, 1), extra: value(random, 1) } : value(random, 1),
      );
      const message = {
        ...(random() < 0.5 ? { before: value(random, 1) } : {}),
        jsonrpc: "2.0",
        id: n,
        result: { ...(random() < 0.5 ? { tool: value(random, 2) } : {}), tools, ...(random() < 0.5 ? { nextCursor: "c" } : {}) },
      };
      const text = spaced(message, random);
      const split = splitToolsList(text);
      expect(split, text).toBeDefined();
      expect(split!.entries.map((e) => JSON.parse(e.text))).toEqual(tools);
      expect(split!.entries.map((e) => e.name)).toEqual(
        tools.map((t) => (typeof t === "object" && t !== null && !Array.isArray(t) && typeof (t as { name?: unknown }).name === "string" ? (t as { name: string }).name : undefined)),
      );
      expect(JSON.parse(split!.envelope)).toEqual({ ...message, result: { ...message.result, tools: tools.map(() => null) } });
    }
  });

  it("never throws on random cuts and corruptions of answers, and a corrupted answer the boundary refused is never read as more tools than it listed", () => {
    const random = rng(2604);
    for (let n = 0; n < 3000; n++) {
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: {
          tools: [
            { name: "a", inputSchema: value(random, 1) },
            { name: "b", inputSchema: {} },
          ],
        },
      });
      const at = Math.floor(random() * text.length);
      const bad = random() < 0.5 ? text.slice(0, at) : text.slice(0, at) + '{[]}"\\,:'[Math.floor(random() * 8)] + text.slice(at + 1);
      const m = parseMessage(bad);
      if (typeof m === "string") continue;
      const listed = (m as { result?: { tools?: unknown[] } }).result?.tools;
      if (Array.isArray(listed)) expect(listed.length).toBeLessThanOrEqual(2);
    }
  });

  it("an answer the boundary refuses outside result.tools (a repeated key, a nesting too deep) still fails whole, with the boundary's first reason", () => {
    const deep = `${"[".repeat(300)}${"]".repeat(300)}`;
    expect(parseMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":${deep}}]},"id":2}`)).toBe("not valid JSON: nesting deeper than 256 levels at line 1, column 322");
    expect(parseMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]},"id":2}`)).toBe('not valid JSON: duplicate key "id" at line 1, column 76');
    expect(parseMessage(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":${deep}}}`)).toMatch(/^not valid JSON: nesting deeper than 256 levels/);
  });
});

describe("one bad tool never takes down the rest", () => {
  it("a tool with a repeated key or a lone surrogate is left out with the boundary's code; its neighbours are kept", () => {
    const m = parseMessage(
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}},{"name":"dup","inputSchema":{"type":"object","type":"string"}},{"name":"lone","description":"\\ud800","inputSchema":{}},{"name":"b","inputSchema":{}}]}}`,
    );
    const tools = (m as unknown as { result: { tools: unknown[] } }).result.tools;
    expect(tools[0]).toEqual({ name: "a", inputSchema: {} });
    expect(tools[1]).toBeInstanceOf(UnreadableTool);
    expect((tools[1] as UnreadableTool).error.code).toBe("JSON_DUPLICATE_KEY");
    expect((tools[2] as UnreadableTool).error.code).toBe("JSON_LONE_SURROGATE");
    expect(tools[3]).toEqual({ name: "b", inputSchema: {} });
  });

  it("a definition nested past 256 levels that came parsed (stdio: the SDK reads lines with JSON.parse) is left out as JSON_TOO_DEEP, without recursion", async () => {
    let deep: unknown = "end";
    for (let k = 0; k < 100_000; k++) deep = { a: deep };
    const c = await connectMcp({
      transport: fakeServer(
        async () =>
          ({
            tools: [
              { name: "ok", inputSchema: { type: "object" } },
              { name: "deep", inputSchema: { type: "object" }, annotations: { title: deep } },
            ],
          }) as never,
      ),
    });
    const listed = await listTools(c);
    expect(listed.tools.map((t) => t.name)).toEqual(["ok"]);
    expect(listed.refused).toEqual([{ name: "deep", code: "JSON_TOO_DEEP", reason: "its definition is not strict JSON: nesting deeper than 256 levels" }]);
    await c.close();
  });

  it(`a definition larger than ${MAX_TOOL_CHARS} characters is left out (MCP_TOOL_TOO_LARGE); a listing over ${MAX_LIST_CHARS} in all fails with MCP_MESSAGE_TOO_LARGE`, async () => {
    const big = (name: string, chars: number) => ({ name, description: "x".repeat(chars), inputSchema: { type: "object" } });
    const one = await connectMcp({ transport: fakeServer(async () => ({ tools: [big("huge", MAX_TOOL_CHARS), big("fine", 1000)] }) as never) });
    const listed = await listTools(one);
    expect(listed.tools.map((t) => t.name)).toEqual(["fine"]);
    expect(listed.refused).toEqual([{ name: "huge", code: "MCP_TOOL_TOO_LARGE", reason: `its definition is larger than ${MAX_TOOL_CHARS} characters of JSON` }]);
    await one.close();
    // 17 tools of almost 1 MiB each, over two pages.
    const page = (from: number, count: number, next?: string) => ({
      tools: Array.from({ length: count }, (_, k) => big(`t${from + k}`, MAX_TOOL_CHARS - 200)),
      ...(next === undefined ? {} : { nextCursor: next }),
    });
    const many = await connectMcp({ transport: fakeServer(async (_m, p) => (p["cursor"] === "2" ? page(9, 8) : page(0, 9, "2")) as never) });
    let error: unknown;
    try {
      await listTools(many);
    } catch (e) {
      error = e;
    }
    expect(isIsoagentError(error, "MCP_MESSAGE_TOO_LARGE")).toBe(true);
    expect((error as Error).message).toBe(`the MCP server's tool list is larger than ${MAX_LIST_CHARS} characters of JSON`);
    await many.close();
  });
});
