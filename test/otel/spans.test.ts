/**
 * isoagent/otel (issue 20): spans derived from the journal, checked against
 * a golden run with every event kind, against the official OTLP .proto
 * definitions (loaded by protobufjs from @opentelemetry/otlp-transformer's
 * generated root), and against @opentelemetry/semantic-conventions'
 * constants; and the exporter's cursor across a crash.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Tool } from "../../src/index.js";
import { Crash, sequentialIds } from "../../src/testkit/index.js";
import { GENAI_ATTRIBUTES, journalSpans, memoryCursor, otlpExporter, otlpJson, type ExportCursor } from "../../src/otel/index.js";
import { asyncHandler } from "../helpers/handler.js";

const journal = JSON.parse(readFileSync("test/fixtures/otel/run-journal.json", "utf8")) as JournalEvent[];
const golden = JSON.parse(readFileSync("test/fixtures/otel/run-spans.json", "utf8")) as unknown[];

describe("spans derived from the journal", () => {
  it("match the golden spans of a run with approvals, an interrupted side effect, compactions, a timeout and an abort", () => {
    expect(JSON.parse(JSON.stringify(journalSpans(journal)))).toEqual(golden);
  });

  it("mark a conversation's turns, an output schema's refusals, moves and reopened calls (the journal fixtures)", () => {
    const load = (name: string) => JSON.parse(readFileSync(`test/fixtures/journals/${name}.json`, "utf8")) as JournalEvent[];
    const rootOf = (events: JournalEvent[]) => journalSpans(events).find((s) => s.name === "invoke_agent isoagent")!;
    const chat = rootOf(load("v5-conversation"));
    const names = chat.events.map((e) => e.name);
    expect(names.filter((n) => n === "isoagent.turn.message")).toHaveLength(3);
    expect(names).toContain("isoagent.turn.regenerated");
    expect(chat.events.filter((e) => e.name === "isoagent.turn.ended").map((e) => e.attributes["isoagent.turn.reason"])).toEqual(["answered", "stopped", "answered", "answered"]);
    expect(chat.status).toEqual({ code: 1 });
    const output = rootOf(load("v5-output"));
    expect(output.events.filter((e) => e.name === "isoagent.output.rejected").map((e) => e.attributes["isoagent.step"])).toEqual([1]);
    // And the older fixtures' moves and reopened calls.
    expect(rootOf(load("v3-moved")).events.filter((e) => e.name === "isoagent.run.moved")).toHaveLength(2);
    const reopened = journalSpans(load("v2-reopened")).flatMap((s) => s.events.filter((e) => e.name === "isoagent.call.reopened"));
    expect(reopened.length).toBeGreaterThan(0);
  });

  it("have deterministic, distinct ids in one trace, every child under the run's span", () => {
    const a = journalSpans(journal);
    const b = journalSpans(JSON.parse(JSON.stringify(journal)) as JournalEvent[]);
    expect(b.map((s) => s.spanId)).toEqual(a.map((s) => s.spanId));
    expect(new Set(a.map((s) => s.spanId)).size).toBe(a.length);
    expect(new Set(a.map((s) => s.traceId))).toEqual(new Set([journal[0]!.hash.slice(0, 32)]));
    const root = a.find((s) => s.name === "invoke_agent isoagent")!;
    expect(a.filter((s) => s !== root).every((s) => s.parentSpanId === root.spanId)).toBe(true);
    for (const s of a) expect([s.traceId.length, s.spanId.length]).toEqual([32, 16]);
  });

  it("say what a trace needs: model, provider, usage and finish reason on chat spans; tool, call id, side effect and error type on tool spans", () => {
    const spans = journalSpans(journal);
    expect(spans.find((s) => s.name.startsWith("chat"))!.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "isoagent.step": 1,
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-golden",
      "gen_ai.response.model": "gpt-golden",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 10,
      "gen_ai.usage.cache_read.input_tokens": 5,
    });
    const write = spans.find((s) => s.name === "execute_tool write_file")!;
    expect(write.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "write_file", "gen_ai.tool.call.id": "s2c1", "isoagent.tool.side_effect": "local_mutation" });
    expect(write.events.map((e) => e.name)).toEqual([
      "isoagent.permission",
      "isoagent.approval.requested",
      "isoagent.approval.resolved",
      "isoagent.call.started",
      "isoagent.approval.requested",
      "isoagent.approval.resolved",
      "isoagent.call.reconciled",
    ]);
    expect(spans.find((s) => s.name === "execute_tool slow")!).toMatchObject({ status: { code: 2, message: "timeout" }, attributes: { "error.type": "timeout" } });
    const root = spans.at(-1)!;
    expect(root).toMatchObject({ name: "invoke_agent isoagent", status: { code: 2, message: "tool_abort" }, attributes: { "error.type": "tool_abort", "gen_ai.agent.id": "run_1" } });
    expect(root.events.filter((e) => e.name === "isoagent.context.compacted")).toHaveLength(2);
    expect(root.events.filter((e) => e.name === "isoagent.lease.acquired").map((e) => e.attributes["isoagent.lease.owner"])).toEqual(["driver-a", "driver-a", "driver-b", "driver-b"]);
  });

  it("capture no content by default; with captureContent, the journal's own (redacted) text, cut", () => {
    const off = JSON.stringify(journalSpans(journal));
    expect(off).not.toContain("gen_ai.tool.call.arguments");
    expect(off).not.toContain("gen_ai.output.messages");
    expect(off).not.toContain("zzzz");
    const on = journalSpans(journal, { captureContent: true, contentMaxChars: 100 });
    const dump = on.find((s) => s.name === "execute_tool dump")!;
    expect(dump.attributes["gen_ai.tool.call.arguments"]).toBe("{}");
    expect(dump.attributes["gen_ai.tool.call.result"]).toBe(`${"z".repeat(100)}…`);
  });

  it("use the GenAI attribute names of @opentelemetry/semantic-conventions", () => {
    const constants = new Set(
      Object.entries(semconv)
        .filter(([k]) => k.startsWith("ATTR_"))
        .map(([, v]) => v as string),
    );
    for (const name of Object.values(GENAI_ATTRIBUTES)) expect(constants.has(name), name).toBe(true);
    expect(semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT).toBe("chat");
    expect(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL).toBe("execute_tool");
    expect(semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT).toBe("invoke_agent");
  });
});

describe("the OTLP/JSON payload", () => {
  // The official opentelemetry-proto definitions, as protobufjs static code.
  const root = createRequire(import.meta.url)("@opentelemetry/otlp-transformer/build/src/generated/root.js") as any;
  const proto = root.opentelemetry.proto;
  const Request = proto.collector.trace.v1.ExportTraceServiceRequest;

  /** Every key of the JSON names a field of its message (checked on the message classes' prototypes). */
  function known(value: any, type: any, where: string, problems: string[]): void {
    for (const k of Object.keys(value)) if (!(k in type.prototype)) problems.push(`${where}.${k} is not a field of ${type.name}`);
  }
  const hexToBytes = (h: string): Uint8Array => Uint8Array.from(h.match(/../g)!.map((x) => parseInt(x, 16)));

  it("is an ExportTraceServiceRequest by the official .proto definitions (ids hex, as OTLP/JSON says)", () => {
    const body = JSON.parse(JSON.stringify(otlpJson(journalSpans(journal, { captureContent: true }), { serviceName: "golden" })));
    const problems: string[] = [];
    known(body, Request, "request", problems);
    for (const rs of body.resourceSpans) {
      known(rs, proto.trace.v1.ResourceSpans, "resourceSpans", problems);
      for (const ss of rs.scopeSpans) {
        known(ss, proto.trace.v1.ScopeSpans, "scopeSpans", problems);
        for (const s of ss.spans) {
          known(s, proto.trace.v1.Span, "span", problems);
          for (const e of s.events) known(e, proto.trace.v1.Span.Event, "event", problems);
          for (const a of [...s.attributes, ...s.events.flatMap((e: any) => e.attributes)]) known(a.value, proto.common.v1.AnyValue, "value", problems);
          expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
          expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
          // OTLP/JSON writes ids as hex; protobuf's own JSON mapping would read base64.
          s.traceId = hexToBytes(s.traceId);
          s.spanId = hexToBytes(s.spanId);
          if (s.parentSpanId !== undefined) s.parentSpanId = hexToBytes(s.parentSpanId);
        }
      }
    }
    expect(problems).toEqual([]);
    // 64-bit integers are decimal strings in OTLP/JSON (protobuf's JSON mapping): checked here, then given
    // to verify() as numbers (it type-checks; the exact values go through the wire format below).
    const sixtyFour = JSON.parse(JSON.stringify(body, (k, v) => (["startTimeUnixNano", "endTimeUnixNano", "timeUnixNano", "intValue"].includes(k) ? (expect(v).toMatch(/^\d+$/), Number(v)) : v)));
    // The ids, as bytes (JSON.stringify made them objects).
    sixtyFour.resourceSpans[0].scopeSpans[0].spans.forEach((s: any, k: number) => {
      const b = body.resourceSpans[0].scopeSpans[0].spans[k];
      Object.assign(s, { traceId: b.traceId, spanId: b.spanId, ...(b.parentSpanId === undefined ? {} : { parentSpanId: b.parentSpanId }) });
    });
    expect(Request.verify(sixtyFour)).toBeNull();
    // Through the wire format and back.
    const decoded = Request.toObject(Request.decode(Request.encode(Request.fromObject(body)).finish()), { longs: String, enums: Number });
    const spans = decoded.resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toHaveLength(golden.length);
    expect(spans.map((s: any) => s.name)).toEqual(golden.map((s: any) => s.name));
    expect(spans[0].startTimeUnixNano).toBe(`${journal[1]!.at}000000`);
    expect(decoded.resourceSpans[0].resource.attributes[0]).toEqual({ key: "service.name", value: { stringValue: "golden" } });
  });
});

describe("the exporter", () => {
  let server: Server;
  let url: string;
  const seen = new Map<string, number>();
  let refuse = 0;
  beforeAll(async () => {
    // A collector that answers 503 when told to, and counts each span by id (dedupe by id).
    server = createServer(
      asyncHandler(async (req, res) => {
        let raw = "";
        for await (const c of req) raw += c;
        if (refuse > 0) {
          refuse--;
          res.writeHead(503).end();
          return;
        }
        const body = JSON.parse(raw);
        for (const s of body.resourceSpans[0].scopeSpans[0].spans) seen.set(s.spanId, (seen.get(s.spanId) ?? 0) + 1);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

  it("sends what ended after the cursor, in batches, retries a 503, and resumes after a crash between the collector's acceptance and the cursor's commit: every span arrives, each with the same id", async () => {
    seen.clear();
    const store = memoryStore();
    const driver = createDriver({ store, agent: scriptedAgent([...Array.from({ length: 10 }, () => calls(call("noop"))), final("done")]), tools: [noop], ids: sequentialIds() });
    const { runId } = await driver.start("t");
    const inner = memoryCursor();
    let crashOnce = true;
    const cursor: ExportCursor = {
      get: (id) => inner.get(id),
      set: async (id, seq) => {
        if (crashOnce && seq > 10) {
          crashOnce = false;
          throw new Crash("killed between the collector's answer and the cursor's commit");
        }
        await inner.set(id, seq);
      },
    };
    const sleeps: number[] = [];
    const exporter = otlpExporter({ endpoint: url, cursor, batchSize: 4, sleep: async (ms) => void sleeps.push(ms) });
    refuse = 1;
    await expect(exporter.exportRun(store, runId)).rejects.toThrow("killed between");
    expect(sleeps).toEqual([500]);
    const again = await exporter.exportRun(store, runId);
    const spans = journalSpans(await store.read(runId));
    expect(again).toEqual({ runId, exported: spans.length - 4, cursor: spans.at(-1)!.endSeq });
    expect([...seen.keys()].sort()).toEqual(spans.map((s) => s.spanId).sort());
    // The batch accepted before the crash went twice; a dedupe-by-id collector keeps it once.
    expect([...seen.values()].filter((n) => n > 1)).toHaveLength(4);
    // Nothing new: nothing sent.
    expect(await exporter.exportRun(store, runId)).toEqual({ runId, exported: 0, cursor: spans.at(-1)!.endSeq });
  });

  it("leaves the cursor where it was when the collector cannot be reached, and says so", async () => {
    const store = memoryStore();
    const driver = createDriver({ store, agent: scriptedAgent([calls(call("noop")), final("done")]), tools: [noop], ids: sequentialIds() });
    const { runId } = await driver.start("t");
    const cursor = memoryCursor();
    const exporter = otlpExporter({ endpoint: "http://127.0.0.1:9/v1/traces", cursor, maxRetries: 1, sleep: async () => {} });
    expect(await exporter.exportRun(store, runId as RunId)).toEqual({
      runId,
      exported: 0,
      cursor: 0,
      error: "the collector could not be reached; the next export tries again from event 1",
      retry: true,
    });
    expect(await cursor.get(runId)).toBe(0);
  });
});
