// docs/mcp.md's stdio example: a server started as a child process (the SDK's stdio server in
// test/mcp/fixtures), its tools through isoagent's gate like any server's.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { mcpTools } from "../../src/mcp/index.js";
import { bareContext } from "../mcp/helpers/run.js";

const serverScript = fileURLToPath(new URL("../mcp/fixtures/stdio-server.mjs", import.meta.url));

// DOCS: begin
import { connectStdio } from "../../adapters/mcp-stdio/index.js";
const connection = await connectStdio({ command: "node", args: [serverScript] }); // or: { command: "npx", args: ["-y", "some-mcp-server"] }
// DOCS: end

try {
  const { tools, refused } = await mcpTools(connection);
  assert.deepEqual([tools.map((t) => t.name), refused], [["whoami"], []]);
  const answer = String(await tools[0]!.call({} as never, bareContext()));
  const pid = Number(/\bpid (\d+);/.exec(answer)?.[1]);
  assert.ok(pid > 0 && pid !== process.pid); // another process answers
  assert.match(answer, /^\[Untrusted content from MCP server "stdio-fixture"/); // marked as any server's result is
} finally {
  await connection.close();
}
