import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCollector, type Collector } from "../helpers/collector.js";
import { until as waitFor } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

// The Worker wrangler.toml names, bundled as wrangler would and run in workerd.
const TOKEN = "example-worker-token-0123456789";
let mf: Miniflare;
let collector: Collector;

beforeAll(async () => {
  collector = await startCollector();
  // The collector as OpenTelemetry's variables name it: its base URL, and an API key (a secret in a deployment).
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url.replace("/v1/traces", ""), OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=example-key" };
  mf = await startWorker("examples/worker/index.ts", { ...RUN_OBJECTS, bindings: { ISOAGENT_TOKEN: TOKEN, ...otel } });
});
afterAll(async () => {
  await mf?.dispose();
  await collector?.close();
});

const api = async (path: string, body?: unknown): Promise<any> => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return res.json();
};

async function until(runId: string, ok: (run: any) => boolean): Promise<any> {
  return waitFor(`run ${runId} to get there`, async () => {
    const { run } = await api(`/runs/${runId}`);
    return ok(run) ? run : undefined;
  });
}

describe("examples/worker (wrangler.toml's main) in workerd", () => {
  it("runs the demo agent in its run object: reads, asks before writing, writes once approved", async () => {
    const { runId } = await api("/runs", { task: "summarise notes/todo.md into notes/summary.md" });
    const waiting = await until(runId, (r) => r.status === "waiting");
    expect(waiting.approvals).toHaveLength(1);
    const [pending] = waiting.approvals;
    expect(pending.request).toMatchObject({ kind: "call", tool: "write_file", sideEffect: "local_mutation", resources: [{ kind: "path", value: "notes/summary.md" }] });
    expect(pending.request.args.content).toBe("# Summary\n\n3 things to do:\n- buy milk\n- call Ana about the trip\n- renew the passport\n");
    // A new file: every line added.
    expect(pending.request.preview).toBe("--- /dev/null\n+++ b/notes/summary.md\n@@ -0,0 +1,6 @@\n+# Summary\n+\n+3 things to do:\n+- buy milk\n+- call Ana about the trip\n+- renew the passport\n");
    await api(`/runs/${runId}/approvals/${pending.approvalId}`, { decision: "approve", requestHash: pending.requestHash, by: "test" });
    const done = await until(runId, (r) => r.status === "completed");
    expect(done.output).toEqual({ done: true, summary: "notes/summary.md written and checked" });
    const events = (await api(`/runs/${runId}/events`)).events as { type: string; observation?: { content?: unknown } }[];
    // The last read sees the file the approved write made, in the run's own object.
    const reads = events.filter((e) => e.type === "call.finished").map((e) => e.observation?.content);
    const lines = (pending.request.args.content as string).split("\n").slice(0, -1);
    expect(reads.at(-1)).toBe([`notes/summary.md (${lines.length} lines)`, ...lines.map((l, k) => `${String(k + 1).padStart(6)}\t${l}`)].join("\n"));
  });

  it("exports each run's spans to the collector its env names, with the API key, under the trace id the API shows", async () => {
    const { runId } = await api("/runs", { task: "summarise notes/todo.md into notes/summary.md" });
    const waiting = await until(runId, (r) => r.status === "waiting");
    await waitFor("the spans before the approval at the collector", () => [...collector.names.values()].includes("execute_tool read_file") && collector.traceIds.includes(waiting.traceId));
    expect(collector.lastHeaders?.["x-honeycomb-team"]).toBe("example-key");
  });

  it("serves the console page with a CSP that refuses eval", async () => {
    const res = await mf.dispatchFetch("http://localhost/", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).not.toContain("unsafe-eval");
  });
});
