/**
 * `npm run bench -- mcp`: the cost of an MCP tool call through isoagent (a
 * driver run: the gate, the journal with its hash chain, isoagent's client
 * over Streamable HTTP) against the official SDK client (v2) calling the same
 * tool of the same server directly, on loopback, alternating round by round
 * in one process; and what isoagent/mcp adds to the core's browser bundle,
 * beside the SDK's client and server bundled the same way.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { call, calls, createDriver, final, memoryStore, scriptedAgent } from "../src/index.js";
import { connectMcp, mcpTools, type McpToolSet } from "../src/mcp/index.js";
import { browserBundle, coreBrowserBundle } from "../scripts/lib/bundle.js";
import { startSdkServer, tool } from "../test/mcp/helpers/sdk-server.js";
import { formatNs, measureAsync } from "./harness.js";
import { result, type Result } from "./results.js";

const CALLS = 20;

export interface McpFigure {
  readonly nsPerCall: Record<string, number>;
  readonly ratio: Record<string, number>;
  readonly spread: Record<string, readonly [number, number]>;
  readonly bundle: { coreGzip: number; coreAndMcpGzip: number; mcpAddedGzip: number; sdkClientGzip: number; sdkServerGzip: number; sdkCodegenSites: number };
}

/** The SDK's bundle, unminified, searched for zod's code generation (`Function` aliased, then called with code). */
async function sdkCodegenSites(): Promise<number> {
  const r = await build({
    stdin: { contents: 'export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";', resolveDir: process.cwd() },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return (r.outputFiles[0]!.text.match(/const F = Function;/g) ?? []).length;
}

export async function benchMcp(options: { quick?: boolean } = {}): Promise<McpFigure> {
  const server = await startSdkServer(
    [
      tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, annotations: { readOnlyHint: true } }, (a) => ({
        content: [{ type: "text", text: String(a["text"]) }],
      })),
    ],
    { json: true },
  );
  const sdk = new Client({ name: "bench", version: "1" });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const connection = await connectMcp({ url: server.url, listen: false });
  const set: McpToolSet = await mcpTools(connection, { trustAnnotations: true });
  const echo = set.tools[0]!;
  let n = 0;
  try {
    const sdkRun = async (): Promise<void> => {
      for (let k = 0; k < CALLS; k++) {
        const r = await sdk.callTool({ name: "echo", arguments: { text: `hello ${k}` } });
        if ((r.content as { text: string }[])[0]?.text !== `hello ${k}`) throw new Error("the SDK call answered something else");
      }
    };
    const isoagentRun = async (): Promise<void> => {
      const agent = scriptedAgent((v) => (v.step <= CALLS ? calls(call("echo", { text: `hello ${v.step}` })) : final("done")));
      const driver = createDriver({ store: memoryStore(), agent, tools: set.tools, limits: { maxSteps: CALLS + 1 } });
      const outcome = await driver.start("bench");
      if (outcome.status !== "completed" || outcome.seq < CALLS * 2) throw new Error(`isoagent: ${outcome.status}`);
    };
    const clientRun = async (): Promise<void> => {
      for (let k = 0; k < CALLS; k++) {
        const r = await echo.call(
          { text: `hello ${k}` } as never,
          {
            runId: "bench",
            step: 1,
            callId: `c${++n}`,
            attempt: 1,
            idempotencyKey: `k${n}`,
            fencingToken: 1,
            signal: new AbortController().signal,
            permit: () => ({ permission: "allow" }),
            progress: () => {},
            putArtifact: async () => ({ sha256: "", size: 0 }),
          } as never,
        );
        if (!String(r).includes(`hello ${k}`)) throw new Error("isoagent's client answered something else");
      }
    };
    const contenders = [
      { name: "SDK client, direct", ops: CALLS, run: sdkRun },
      { name: "isoagent (driver, gate, journal)", ops: CALLS, run: isoagentRun },
      { name: "isoagent client alone", ops: CALLS, run: clientRun },
    ];
    const measured = await measureAsync(contenders, { rounds: options.quick ? 7 : 21, warmupMs: 500 });
    const core = await coreBrowserBundle();
    const both = await browserBundle({ stdin: { contents: 'export * from "./src/index.ts"; export * from "./src/mcp/index.ts";', resolveDir: process.cwd(), loader: "ts" } });
    const sdkClient = await browserBundle({ stdin: { contents: 'export { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";', resolveDir: process.cwd(), loader: "ts" } });
    const sdkServer = await browserBundle({
      stdin: { contents: 'export { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";', resolveDir: process.cwd(), loader: "ts" },
    });
    return {
      nsPerCall: Object.fromEntries(measured.map((m) => [m.name, m.medianNs])),
      ratio: Object.fromEntries(measured.map((m) => [m.name, m.ratio])),
      spread: Object.fromEntries(measured.map((m) => [m.name, [m.ratioMin, m.ratioMax] as const])),
      bundle: {
        coreGzip: core.gzipBytes,
        coreAndMcpGzip: both.gzipBytes,
        mcpAddedGzip: both.gzipBytes - core.gzipBytes,
        sdkClientGzip: sdkClient.gzipBytes,
        sdkServerGzip: sdkServer.gzipBytes,
        sdkCodegenSites: await sdkCodegenSites(),
      },
    };
  } finally {
    await sdk.close();
    await connection.close();
    await server.close();
  }
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

export function printMcp(f: McpFigure): void {
  console.log(`mcp: time per call of one MCP tool (loopback, the SDK's server), ${CALLS} calls a run, same process, alternating`);
  console.log("| contender | per call | ÷ SDK client | spread |");
  console.log("|---|---:|---:|---:|");
  for (const [name, ns] of Object.entries(f.nsPerCall)) console.log(`| ${name} | ${formatNs(ns)} | ${f.ratio[name]!.toFixed(3)} | ${f.spread[name]![0].toFixed(2)}–${f.spread[name]![1].toFixed(2)} |`);
  console.log(
    `bundle (browser, minified + gzipped): core ${kb(f.bundle.coreGzip)}, core + isoagent/mcp ${kb(f.bundle.coreAndMcpGzip)} (isoagent/mcp adds ${kb(f.bundle.mcpAddedGzip)}); the SDK's client ${kb(f.bundle.sdkClientGzip)}, server ${kb(f.bundle.sdkServerGzip)}, with ${f.bundle.sdkCodegenSites} sites of zod's code generation from strings`,
  );
  for (const r of mcpResults(f).filter((x) => x.goal !== "informative")) console.log(`${r.id}: ${r.ratio} (goal ${r.goal}) ${r.met ? "met" : "NOT met"}`);
}

export function mcpResults(f: McpFigure): Result[] {
  return [
    result(
      "mcp.call-overhead",
      "time per MCP tool call through isoagent (driver, gate, journal, isoagent's client) ÷ the SDK client calling the same tool directly, loopback",
      f.ratio["isoagent (driver, gate, journal)"]!,
      "<= 1.15",
      { nsPerCall: f.nsPerCall, spread: f.spread["isoagent (driver, gate, journal)"] },
    ),
    result("mcp.client-alone", "time per call of isoagent's MCP client alone (the tool, no driver) ÷ the SDK client's (informative)", f.ratio["isoagent client alone"]!, "informative", {
      nsPerCall: f.nsPerCall,
    }),
    result(
      "mcp.bundle-added",
      "what isoagent/mcp adds to the core's browser bundle ÷ the SDK client's bundle alone, minified + gzipped (informative)",
      f.bundle.mcpAddedGzip / f.bundle.sdkClientGzip,
      "informative",
      f.bundle,
    ),
  ];
}
