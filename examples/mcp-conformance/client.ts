/**
 * isoagent's MCP client as the official conformance suite's client under
 * test: `conformance client --command "tsx examples/mcp-conformance/client.ts"`
 * runs it with the scenario's server URL as its last argument and the
 * scenario's name in MCP_CONFORMANCE_SCENARIO. Every tool call goes through
 * a driver (the gate); the script is the operator and approves what asks.
 */
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JsonValue, type Tool } from "../../src/index.js";
import { connectMcp, mcpTools, type McpElicitHandler } from "../../src/mcp/index.js";

const url = process.argv.at(-1)!;
const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? "initialize";

/** What each scenario calls (none: connect and list only). */
const CALLS: Record<string, { tool: string; args: JsonValue } | undefined> = {
  initialize: undefined,
  tools_call: { tool: "add_numbers", args: { a: 5, b: 3 } },
  "elicitation-sep1034-client-defaults": { tool: "test_client_elicitation_defaults", args: {} },
  "sse-retry": { tool: "test_reconnection", args: {} },
};

/** Accepts whatever is asked, leaving every field to its default (SEP-1034: the client fills them in). */
const elicit: McpElicitHandler = () => ({ action: "accept", content: {} });

async function main(): Promise<void> {
  const connection = await connectMcp({ url, elicit, clientInfo: { name: "isoagent-conformance", version: "0.1.0" } });
  try {
    const set = await mcpTools(connection);
    const target = CALLS[scenario];
    if (target === undefined) return;
    const driver = createDriver({
      store: memoryStore(),
      agent: scriptedAgent([calls(call(target.tool, target.args)), final("done")]),
      tools: set.tools as Tool<never, unknown>[],
      reconcile: set.reconcile,
    });
    let outcome = await driver.start({ scenario });
    // Untrusted, every MCP tool asks: the script is the operator here.
    for (let k = 0; k < 5 && outcome.status === "waiting"; k++) {
      for (const a of outcome.approvals) await driver.approve(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "conformance client" });
      outcome = await driver.resume(outcome.runId);
    }
    const finished = (await driver.events(outcome.runId)).filter((e) => e.type === "call.finished");
    console.log(JSON.stringify({ scenario, status: outcome.status, observations: finished.map((e) => (e as unknown as { observation: JsonValue }).observation) }));
    if (outcome.status !== "completed") process.exitCode = 1;
  } finally {
    await connection.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
