/**
 * A server's schemas that assert formats (uri, date-time: common in real
 * servers) are listed without the application loading full schema support
 * itself: the listing loads it when a schema needs it, and the formats are
 * then checked exactly. (Its own file: module state starts without full
 * support loaded.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, calls, final } from "../../src/index.js";
import { connectMcp, mcpTools, type McpConnection } from "../../src/mcp/index.js";
import { fullSupport } from "../../src/schema/support.js";
import { driverOf, eventsOf } from "./helpers/run.js";
import { startSdkServer, tool, type SdkServer } from "./helpers/sdk-server.js";

let server: SdkServer;
let connection: McpConnection;
beforeAll(async () => {
  server = await startSdkServer([
    tool(
      {
        name: "fetch_page",
        description: "Fetches a page.",
        inputSchema: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
        outputSchema: { type: "object", properties: { at: { type: "string", format: "date-time" } } },
        annotations: { readOnlyHint: true },
      },
      (a) => ({ content: [{ type: "text", text: `fetched ${String(a["url"])}` }], structuredContent: { at: "2026-12-01T10:00:00Z" } }),
    ),
  ]);
  connection = await connectMcp({ url: server.url });
});
afterAll(async () => {
  await connection?.close();
  await server?.close();
});

describe("MCP schemas with formats", () => {
  it("are listed (full schema support loaded by the listing, only then), and the format is checked exactly", async () => {
    expect(fullSupport()).toBeUndefined();
    const set = await mcpTools(connection, { trustAnnotations: true });
    expect(set.refused).toEqual([]);
    expect(set.tools.map((t) => t.name)).toEqual(["fetch_page"]);
    expect(fullSupport()).toBeDefined();
    const { driver, store } = driverOf(set.tools, [calls(call("fetch_page", { url: "not a uri" }), call("fetch_page", { url: "https://example.com/a" })), final("done")]);
    const done = await driver.start("t");
    expect(done.status).toBe("completed");
    const seen = (await eventsOf(store, done.runId)).filter((e) => e["type"] === "call.finished" || e["type"] === "call.rejected").map((e) => e["observation"] as Record<string, unknown>);
    expect(seen[0]).toMatchObject({ type: "invalid_decision" });
    expect(String(seen[0]!["error"])).toContain("uri");
    expect(seen[1]).toMatchObject({ type: "result" });
  });
});
