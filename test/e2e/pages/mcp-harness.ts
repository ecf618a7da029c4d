/**
 * isoagent/mcp in a page whose CSP forbids code generation from strings: the
 * client (an MCP server on the page's origin, the official SDK's, its tool
 * called through a driver) and the server (mcpServer answering the page's
 * own client through fetch). Every CSP violation is recorded: there must be
 * none but the page's own probe, which proves the CSP is in force.
 */
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type JsonValue, type Tool } from "../../../src/index.js";
import { connectMcp, mcpServer, mcpTools } from "../../../src/mcp/index.js";

const violations: string[] = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(`${e.effectiveDirective}: ${e.blockedURI}`));

/** Everything runs at load: code run through the DevTools protocol is exempt from the page's CSP, so nothing here waits for it. */
const mcp = {
  /** Proves the CSP refuses eval here: the probe throws, and its violation is reported. */
  async probe() {
    let refused = false;
    try {
      new Function("return 1")();
    } catch {
      refused = true;
    }
    for (let k = 0; k < 100 && violations.length === 0; k++) await new Promise((r) => setTimeout(r, 10));
    const seen = [...violations, refused ? "refused" : "allowed"];
    violations.length = 0;
    return seen;
  },
  async run() {
    // The client, against the SDK's server on this origin.
    const connection = await connectMcp({ url: `${location.origin}/mcp` });
    const set = await mcpTools(connection, { trustAnnotations: true });
    const store = memoryStore();
    const driver = createDriver({ store, agent: scriptedAgent([calls(call("echo", { text: "from the page" })), final("done")]), tools: set.tools });
    await driver.start("t", { runId: "run_page" as never });
    const finished = (await store.read("run_page" as never)).find((e) => e.type === "call.finished") as unknown as { observation: JsonValue };
    await connection.close();
    // The server, answering this page's own client through fetch.
    const shout = defineTool<{ text: string }>({
      name: "shout",
      description: "Upper-cases text.",
      inputSchema: strictObject({ text: string() }),
      sideEffect: "read_only",
      timeoutMs: 1000,
      call: (a) => a.text.toUpperCase(),
    });
    const server = mcpServer({ tools: [shout as Tool<never, unknown>] });
    const local = await connectMcp({ url: `${location.origin}/in-page-mcp`, http: { fetch: (url, init) => server.fetch(new Request(url, init as RequestInit) as never) as never } });
    const served = await mcpTools(local, { trustAnnotations: true });
    const out = await served.tools[0]!.call(
      { text: "served" } as never,
      {
        runId: "r",
        step: 1,
        callId: "c",
        attempt: 1,
        idempotencyKey: "k",
        fencingToken: 0,
        signal: new AbortController().signal,
        permit: () => ({ permission: "allow" }),
        progress: () => {},
        putArtifact: async () => ({ sha256: "", size: 0 }),
      } as never,
    );
    await local.close();
    await new Promise((r) => setTimeout(r, 50));
    return { observation: finished.observation, served: out as JsonValue, violations: [...violations] };
  },
};
void (async () => {
  let result: unknown;
  try {
    const probe = await mcp.probe();
    result = { probe, ...(await mcp.run()) };
  } catch (e) {
    result = { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
  document.body.dataset["result"] = JSON.stringify(result);
  document.body.dataset["ready"] = "yes";
})();
