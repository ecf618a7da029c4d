/**
 * `npm run bench -- otel`: deriving a run's spans from its journal
 * (`journalSpans`, isoagent/otel) against reading that journal from the
 * memory store (`store.read`), for a run of about 10,000 events: a scripted
 * agent whose every decision carries what a model adapter's does (provider,
 * model, finish reason, token usage), one read-only call a step. Contenders
 * alternate round by round.
 *
 * What the baseline is: the memory store keeps each event as JSON text and
 * parses it on every read (so nothing a caller holds aliases the store), so
 * `read` is 10,000 `JSON.parse` calls of a few hundred bytes each and no
 * I/O: the cheapest read any store offers. A store on disk or across a
 * network (IndexedDB, a Durable Object) reads slower, so the ratio there is
 * smaller than here. The OTLP/JSON encoding of the spans (`otlpJson`) is
 * shown beside, informative.
 */
import { calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type Tool } from "../src/index.js";
import { journalSpans, otlpJson } from "../src/otel/index.js";
import { consume, formatNs, measureAsync } from "./harness.js";
import { result, type Result } from "./results.js";

export interface OtelFigure {
  readonly events: number;
  readonly spans: number;
  readonly journalBytes: number;
  /** Nanoseconds per operation, by contender. */
  readonly ns: Readonly<Record<string, number>>;
  /** Each contender's time ÷ the read's, median of the same-round ratios, and its spread. */
  readonly ratio: Readonly<Record<string, number>>;
  readonly spread: Readonly<Record<string, readonly [number, number]>>;
}

const READ = "read: store.read(runId), memory store";
const DERIVE = "derive: journalSpans(events)";
const ENCODE = "derive and encode: otlpJson(journalSpans(events))";

async function answeredRun(steps: number) {
  const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
  const answer = (finishReason: string) => ({ provider: "openai", model: "gpt-fake", finishReason, usage: { input: 1200, output: 20, cached: 1024 } });
  const agent = scriptedAgent((view) =>
    view.step <= steps ? { ...calls({ name: "noop", args: "{}", callId: `call_${view.step}` }), answer: answer("tool_calls") } : { ...final("done"), answer: answer("stop") },
  );
  const store = memoryStore();
  const outcome = await createDriver({ store, agent, tools: [noop], limits: { maxSteps: 0 } }).start("bench");
  if (outcome.status !== "completed") throw new Error(`otel: the run is ${outcome.status}`);
  return { store, runId: outcome.runId };
}

export async function benchOtel(options: { quick?: boolean } = {}): Promise<OtelFigure> {
  const { store, runId } = await answeredRun(2499); // 4 events a step, and 4 more: about 10,000
  const events: JournalEvent[] = await store.read(runId);
  const spans = journalSpans(events);
  if (spans.length !== 2 * 2499 + 2) throw new Error(`otel: ${spans.length} spans from ${events.length} events`);
  const contenders = [
    { name: READ, ops: 1, run: () => store.read(runId) },
    { name: DERIVE, ops: 1, run: async () => journalSpans(events) },
    { name: ENCODE, ops: 1, run: async () => otlpJson(journalSpans(events)) },
  ];
  consume(spans);
  // A read takes tens of milliseconds here; a sample of at least 200 ms is a few of them, not one.
  const measured = await measureAsync(contenders, { rounds: options.quick ? 5 : 15, warmup: 3, minMs: 200 });
  return {
    events: events.length,
    spans: spans.length,
    journalBytes: events.reduce((n, e) => n + JSON.stringify(e).length + 1, 0),
    ns: Object.fromEntries(measured.map((m) => [m.name, m.medianNs])),
    ratio: Object.fromEntries(measured.map((m) => [m.name, m.ratio])),
    spread: Object.fromEntries(measured.map((m) => [m.name, [m.ratioMin, m.ratioMax] as const])),
  };
}

export function printOtel(f: OtelFigure): void {
  console.log(`otel: spans derived from a ${f.events}-event journal (${(f.journalBytes / 1024).toFixed(0)} KB, ${f.spans} spans) against reading it from the memory store`);
  console.log("| contender | time | ÷ read |");
  console.log("|---|---:|---:|");
  for (const name of Object.keys(f.ns)) console.log(`| ${name} | ${formatNs(f.ns[name]!)} | ${f.ratio[name]!.toFixed(3)} (${f.spread[name]![0].toFixed(3)}–${f.spread[name]![1].toFixed(3)}) |`);
  for (const x of otelResults(f).filter((x) => x.goal !== "informative")) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function otelResults(f: OtelFigure): Result[] {
  const detail = { events: f.events, spans: f.spans, journalBytes: f.journalBytes, ns: Object.fromEntries(Object.entries(f.ns).map(([k, v]) => [k, Math.round(v)])) };
  return [
    result("otel.derive-vs-read", `journalSpans of a ${f.events}-event run ÷ reading its journal from the memory store (store.read: a JSON.parse per event, no I/O)`, f.ratio[DERIVE]!, "<= 0.2", {
      ...detail,
      spread: f.spread[DERIVE],
    }),
    result("otel.derive-and-encode-vs-read", `otlpJson(journalSpans(…)) of the same run ÷ the same read (informative)`, f.ratio[ENCODE]!, "informative", { ...detail, spread: f.spread[ENCODE] }),
  ];
}
