/**
 * Listing a server's tools: every page (up to a bound), each entry checked
 * for the shape of a tool definition; what is not one is set aside with its
 * reason, never fatal to the rest.
 */
import { hashJsonSync, type JsonValue } from "../json/index.js";
import type { McpToolAnnotations } from "./classify.js";
import type { McpConnection } from "./connection.js";
import { McpError } from "./errors.js";
import type { JsonObject } from "./jsonrpc.js";

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
  /** A stable code: an isoagent error code (TOOL_NAME_INVALID, SCHEMA_EXTERNAL_REF, ...) or MCP_TOOL_INVALID. */
  readonly code: string;
  readonly reason: string;
}

/** At most this many pages of tools/list are read. */
export const MAX_LIST_PAGES = 64;
/** At most this many tools are taken from one server. */
export const MAX_TOOLS = 1000;

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
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_LIST_PAGES) throw new McpError("MCP_PROTOCOL_ERROR", `the MCP server's tool list runs over ${MAX_LIST_PAGES} pages`);
    const r = await connection.request("tools/list", cursor === undefined ? {} : { cursor });
    if (!Array.isArray(r["tools"])) throw new McpError("MCP_PROTOCOL_ERROR", "the MCP server's tools/list result has no tools list");
    for (const t of r["tools"]) {
      const name = isObject(t) && typeof t["name"] === "string" ? t["name"] : `#${tools.length + refused.length + 1}`;
      if (!isObject(t) || typeof t["name"] !== "string" || !isObject(t["inputSchema"])) {
        refused.push({ name, code: "MCP_TOOL_INVALID", reason: "not a tool definition (a name and an input schema object)" });
        continue;
      }
      if (seen.has(name)) {
        refused.push({ name, code: "MCP_TOOL_INVALID", reason: "listed twice" });
        continue;
      }
      if ((t["description"] !== undefined && typeof t["description"] !== "string") || (t["outputSchema"] !== undefined && !isObject(t["outputSchema"])) || (t["annotations"] !== undefined && !isObject(t["annotations"]))) {
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
