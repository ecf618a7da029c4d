/**
 * The official MCP conformance suite's server scenarios, as isoagent tools:
 * what `conformance server` calls (test_simple_text, test_image_content,
 * ...), served by `mcpServer` through the same gate as any tool. The
 * scenarios that need a tool to log, sample or elicit mid-call are not here:
 * an isoagent tool has no such channel (see expected-failures.yml).
 */
import { defineTool, strictObject, ToolError, type JsonValue, type Tool } from "../../src/index.js";
import type { McpContentBlock } from "../../src/mcp/index.js";

/** A 1x1 red PNG and a tiny WAV, base64. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const none = strictObject({});
const readOnly = { sideEffect: "read_only" as const, timeoutMs: 5000 };

/** Tools whose result is MCP content blocks answer `{ blocks: [...] }`; {@link present} hands them over as they are. */
const blocks = (...b: McpContentBlock[]): JsonValue => ({ blocks: b as JsonValue });

export const conformanceTools: Tool<never, unknown>[] = [
  defineTool({ name: "test_simple_text", description: "Returns a simple text.", inputSchema: none, ...readOnly, call: () => "This is a simple text response for testing." }),
  defineTool({ name: "test_image_content", description: "Returns an image.", inputSchema: none, ...readOnly, call: () => blocks({ type: "image", data: PNG, mimeType: "image/png" }) }),
  defineTool({ name: "test_audio_content", description: "Returns audio.", inputSchema: none, ...readOnly, call: () => blocks({ type: "audio", data: WAV, mimeType: "audio/wav" }) }),
  defineTool({
    name: "test_embedded_resource",
    description: "Returns an embedded resource.",
    inputSchema: none,
    ...readOnly,
    call: () => blocks({ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }),
  }),
  defineTool({
    name: "test_multiple_content_types",
    description: "Returns text, an image and a resource.",
    inputSchema: none,
    ...readOnly,
    call: () =>
      blocks(
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' } },
      ),
  }),
  defineTool({
    name: "test_error_handling",
    description: "Always fails.",
    inputSchema: none,
    ...readOnly,
    call: () => {
      throw new ToolError("This tool intentionally returns an error for testing");
    },
  }),
  defineTool({
    name: "test_tool_with_progress",
    description: "Reports progress: 0, 50 and 100 of 100.",
    inputSchema: none,
    ...readOnly,
    call: async (_a, ctx) => {
      for (const n of [0, 50, 100]) {
        ctx.progress({ progress: n, total: 100 });
        if (n < 100) await new Promise((r) => setTimeout(r, 50));
      }
      return "Progress reported: 0, 50, 100.";
    },
  }),
  defineTool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
    ...readOnly,
    call: (a) => ({ received: a as JsonValue }),
  }),
] as Tool<never, unknown>[];

/** Hands over the blocks of a tool that answered `{ blocks }`; anything else is shown as text (the default). */
export function present(_tool: string, value: JsonValue): readonly McpContentBlock[] | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray(value["blocks"])) return value["blocks"] as McpContentBlock[];
  return undefined;
}
