/**
 * Listing a server's tools: every page (up to a bound), each entry checked
 * for the shape of a tool definition; what is not one is set aside with its
 * reason, never fatal to the rest.
 */
import { hashJsonSync, MAX_JSON_DEPTH, type JsonValue } from "../json/index.js";
import type { McpToolAnnotations } from "./classify.js";
import type { McpConnection } from "./connection.js";
import { McpError } from "./errors.js";
import type { JsonObject } from "./jsonrpc.js";
import { UnreadableTool } from "./listing.js";

/** A tool as an MCP server describes it (untrusted). */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: McpToolAnnotations & JsonObject;
}

/** A server tool left out, and why. */
export interface McpRefusedTool {
  readonly name: string;
  /**
   * A stable code: an isoagent error code (TOOL_NAME_INVALID,
   * SCHEMA_EXTERNAL_REF, JSON_TOO_DEEP, JSON_DUPLICATE_KEY, ...),
   * MCP_TOOL_INVALID or MCP_TOOL_TOO_LARGE.
   */
  readonly code: string;
  readonly reason: string;
}

/** At most this many pages of tools/list are read. */
export const MAX_LIST_PAGES = 64;
/** At most this many tools are taken from one server. */
export const MAX_TOOLS = 1000;
/** The largest tool definition taken, in characters of JSON (a larger one is left out with MCP_TOOL_TOO_LARGE). */
export const MAX_TOOL_CHARS = 1024 * 1024;
/** The largest listing taken, all pages together, in characters of JSON (a larger one fails with MCP_MESSAGE_TOO_LARGE). */
export const MAX_LIST_CHARS = 16 * 1024 * 1024;

/**
 * The size of a JSON value as text (strings and keys counted without their
 * escapes), or "deep" when it nests past `maxDepth`; `stopAt` ends the count
 * early. A loop over a stack, never recursion: a value parsed elsewhere (the
 * SDK's stdio reads lines with JSON.parse) may nest 100,000 levels.
 */
function jsonSize(value: unknown, maxDepth: number, stopAt: number): number | "deep" {
  const todo: [unknown, number][] = [[value, 0]];
  let size = 0;
  while (todo.length > 0 && size <= stopAt) {
    const [v, depth] = todo.pop()!;
    if (typeof v === "string") size += v.length + 2;
    else if (typeof v !== "object" || v === null) size += String(v).length;
    else {
      if (depth >= maxDepth) return "deep";
      const items = Array.isArray(v) ? v : Object.values(v);
      size += 1 + Math.max(1, items.length);
      if (!Array.isArray(v)) for (const key of Object.keys(v)) size += key.length + 3;
      for (const item of items) todo.push([item, depth + 1]);
    }
  }
  return size;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Every tool the server lists (all pages, up to {@link MAX_LIST_PAGES}), and
 * the entries that are not tool definitions.
 *
 * @example
 * ```ts
 * const { tools, refused } = await listTools(connection)
 * ```
 */
export async function listTools(connection: McpConnection): Promise<{ tools: McpToolDefinition[]; refused: McpRefusedTool[] }> {
  const tools: McpToolDefinition[] = [];
  const refused: McpRefusedTool[] = [];
  const seen = new Set<string>();
  let total = 0;
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_LIST_PAGES) throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server's tool list runs over ${MAX_LIST_PAGES} pages`);
    const r = await connection.request("tools/list", cursor === undefined ? {} : { cursor });
    if (!Array.isArray(r["tools"])) throw new McpError("MCP_PROTOCOL_ERROR", "the MCP server's tools/list result has no tools list");
    for (const t of r["tools"] as unknown[]) {
      const unnamed = `#${tools.length + refused.length + 1}`;
      if (t instanceof UnreadableTool) {
        refused.push({ name: t.name ?? unnamed, code: t.error.code, reason: `its definition is not strict JSON: ${t.error.reason}` });
        continue;
      }
      const name = isObject(t) && typeof t["name"] === "string" ? t["name"] : unnamed;
      const size = jsonSize(t, MAX_JSON_DEPTH, MAX_TOOL_CHARS);
      if (size === "deep") {
        refused.push({ name, code: "JSON_TOO_DEEP", reason: `its definition is not strict JSON: nesting deeper than ${MAX_JSON_DEPTH} levels` });
        continue;
      }
      if (size > MAX_TOOL_CHARS) {
        refused.push({ name, code: "MCP_TOOL_TOO_LARGE", reason: `its definition is larger than ${MAX_TOOL_CHARS} characters of JSON` });
        continue;
      }
      total += size;
      if (total > MAX_LIST_CHARS) throw new McpError("MCP_MESSAGE_TOO_LARGE", `the MCP server's tool list is larger than ${MAX_LIST_CHARS} characters of JSON`);
      if (!isObject(t) || typeof t["name"] !== "string" || !isObject(t["inputSchema"])) {
        refused.push({ name, code: "MCP_TOOL_INVALID", reason: "not a tool definition (a name and an input schema object)" });
        continue;
      }
      if (seen.has(name)) {
        refused.push({ name, code: "MCP_TOOL_INVALID", reason: "listed twice" });
        continue;
      }
      if (
        (t["description"] !== undefined && typeof t["description"] !== "string") ||
        (t["outputSchema"] !== undefined && !isObject(t["outputSchema"])) ||
        (t["annotations"] !== undefined && !isObject(t["annotations"]))
      ) {
        refused.push({ name, code: "MCP_TOOL_INVALID", reason: "a description that is not text, or an output schema or annotations that are not objects" });
        continue;
      }
      if (tools.length >= MAX_TOOLS) throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server lists more than ${MAX_TOOLS} tools`);
      seen.add(name);
      tools.push(t as unknown as McpToolDefinition);
    }
    const next = r["nextCursor"];
    if (typeof next !== "string" || next === "" || next === cursor) break;
    cursor = next;
  }
  return { tools, refused };
}

/**
 * What pins a server tool: its name, title, description, schemas and
 * annotations, hashed (canonical JSON, SHA-256) as the server gave them.
 *
 * @example
 * ```ts
 * definitionHash({ name: "echo", inputSchema: { type: "object" } }) // 64 hex digits
 * ```
 */
export function definitionHash(t: McpToolDefinition): string {
  const pick = (k: string): JsonValue => ((t as unknown as JsonObject)[k] ?? null) as JsonValue;
  return hashJsonSync({ name: t.name, title: pick("title"), description: pick("description"), inputSchema: pick("inputSchema"), outputSchema: pick("outputSchema"), annotations: pick("annotations") });
}
