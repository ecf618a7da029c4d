// docs/otel.md's first example: spans derived from a run's journal, as OTLP/JSON, and an exporter
// whose collector (http://localhost:4318 in the example) is a local one here, reached through this
// program's fetch. The interval's tick is taken here and run by hand, once, then again.
import assert from "node:assert/strict";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, defineTool, strictObject, string } from "../../src/index.js";
import { startCollector } from "../helpers/collector.js";

const collector = await startCollector();
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  assert.equal(url.origin, "http://localhost:4318");
  return realFetch(collector.url, init);
};
const ticks: (() => void)[] = [];
const setInterval = (tick: () => void, ms: number) => (assert.equal(ms, 10_000), ticks.push(tick));

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  sideEffect: "read_only",
  timeoutMs: 1000,
  inputSchema: strictObject({ word: string() }),
  call: (a) => `${a.word}: a word`,
});
const store = memoryStore();
const driver = createDriver({ store, tools: [lookup], agent: scriptedAgent([calls(call("lookup", { word: "span" })), final("done")]) });
const { runId } = await driver.start("look up span");

// DOCS: begin
import { journalSpans, otlpJson, otlpExporter, memoryCursor } from "../../src/otel/index.js";

const spans = journalSpans(await store.read(runId)); // pure: the same events give the same spans
const body = otlpJson(spans, { serviceName: "notes-agent" }); // OTLP/JSON, ready for any collector

const exporter = otlpExporter({ endpoint: "http://localhost:4318/v1/traces", cursor: memoryCursor() });
setInterval(() => void exporter.flush(store), 10_000); // in Node; or await exporter.exportRun(store, runId)
// DOCS: end

try {
  assert.deepEqual(journalSpans(await store.read(runId)), spans);
  assert.deepEqual(spans.map((s) => s.name).sort(), ["chat", "chat", "execute_tool lookup", "invoke_agent isoagent"].sort());
  const created = (await store.read(runId))[0]!;
  assert.ok(spans.every((s) => s.traceId === created.hash.slice(0, 32))); // the trace id: the run.created hash's first 32 hex
  const resource = (body as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[] }).resourceSpans[0]!.resource;
  assert.ok(resource.attributes.some((a) => a.key === "service.name" && a.value.stringValue === "notes-agent"));

  // The tick exports every run's spans; the next one sends nothing again (the cursor moved).
  ticks[0]!();
  await exporter.flush(store);
  assert.equal(collector.ids().length, spans.length);
  await exporter.flush(store);
  assert.deepEqual(
    [...collector.seen.values()],
    spans.map(() => 1),
  );
} finally {
  globalThis.fetch = realFetch;
  await collector.close();
}
