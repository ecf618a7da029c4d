/** A running tool's progress reaches the API's live stream, as an agent's streaming does. */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../../src/index.js";
import { sequentialIds } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";

const TOKEN = "t0k3n-for-tests-0123456789";

describe("the live event stream", () => {
  it("carries a running tool's progress in its progress event", async () => {
    let release!: () => void;
    const indexer = defineTool({
      name: "indexer",
      description: "Indexes.",
      inputSchema: strictObject({}),
      sideEffect: "read_only",
      timeoutMs: 30_000,
      call: async (_a, ctx) => {
        ctx.progress({ progress: 2, total: 5, message: "indexed 2 of 5" });
        await new Promise<void>((r) => (release = r));
        return "done";
      },
    }) as Tool<never, unknown>;
    const driver = createDriver({ store: memoryStore(), ids: sequentialIds(), agent: scriptedAgent([calls(call("indexer")), final("ok")]), tools: [indexer] });
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
    const created = await app.request("/runs", { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ task: "index" }) });
    const { runId } = (await created.json()) as { runId: string };
    const res = await app.request(`/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!/event: progress\ndata: .*\n/.test(text)) {
      const r = await reader.read();
      if (r.done) break;
      text += decoder.decode(r.value, { stream: true });
    }
    await reader.cancel();
    release();
    const data = JSON.parse(/event: progress\ndata: (.*)\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(data).toEqual({ step: 1, text: "", calls: [], tools: [{ callId: "s1c1", tool: "indexer", progress: 2, total: 5, message: "indexed 2 of 5" }] });
  });
});
