/**
 * `npm run bench -- move`: the two measures of issue 17 (isoagent/move).
 *
 * 1. A run's bundle, out and in: `exportRun` of a run of about 10,000
 *    events naming 200 artifacts, streamed into `importRun` on a fresh
 *    memory store, against reading the same journal and artifacts out of
 *    the source store (`store.read` and `getArtifact` for each). Export
 *    alone (the bundle as text) and import alone (of that text) are shown
 *    beside it, informative. Contenders alternate round by round. The
 *    baseline is the memory store's read (a JSON.parse per event, no I/O),
 *    the cheapest a store offers: on IndexedDB or a Durable Object the same
 *    bundle work is a smaller share of the read.
 * 2. Mirror lag over loopback: a run in a memory store appends 50 times a
 *    second (each append held to its slot), `mirrorRuns` pushes it to an
 *    `isoagent/http` app on 127.0.0.1 (@hono/node-server, a memory store
 *    behind it) through `httpPlace`, notified after each append as a page
 *    does. The lag of an append is from its write to the acknowledgement of
 *    a push that holds it; p50 and p99 over the appends.
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { calls, createDriver, defineTool, final, memoryStore, number, scriptedAgent, strictObject, type JournalEvent, type RunId, type Store, type Tool } from "../src/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../src/http/index.js";
import { artifactNames, bundleText, exportRun, httpPlace, importRun, mirrorRuns, movable } from "../src/move/index.js";
import { consume, formatNs, measureAsync } from "./harness.js";
import { result, type Result } from "./results.js";

const ARTIFACTS = 200;
const LONG = "a line of a long output, long enough to be kept as an artifact\n".repeat(300);

export interface MoveFigure {
  readonly events: number;
  readonly artifacts: number;
  readonly bundleBytes: number;
  readonly ns: Readonly<Record<string, number>>;
  readonly ratio: Readonly<Record<string, number>>;
  readonly spread: Readonly<Record<string, readonly [number, number]>>;
  readonly mirror: { readonly appends: number; readonly perSecond: number; readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
}

const READ = "read: store.read + getArtifact × 200, memory store";
const MOVE = "export → import: importRun(fresh store, exportRun(store))";
const EXPORT = "export: bundleText(exportRun(store))";
const IMPORT = "import: importRun(fresh store, text)";

/** A completed run of about 10,000 events (4 a step) whose tool gives a long output, kept as an artifact, every 12th step, 200 times. */
async function bigRun(steps: number): Promise<{ store: Store; runId: RunId }> {
  const probe = defineTool<{ n: number }>({
    name: "probe",
    description: "Probe.",
    inputSchema: strictObject({ n: number() }),
    sideEffect: "read_only",
    timeoutMs: 1000,
    outputPolicy: { maxVisibleBytes: 1000, keepFull: true },
    call: (a) => (a.n % 12 === 0 && a.n / 12 <= ARTIFACTS ? `${a.n}\n${LONG}` : `ok ${a.n}`),
  }) as Tool<never, unknown>;
  const agent = scriptedAgent((view) => (view.step <= steps ? calls({ name: "probe", args: JSON.stringify({ n: view.step }), callId: `call_${view.step}` }) : final("done")));
  const store = movable(memoryStore());
  const outcome = await createDriver({ store, agent, tools: [probe], limits: { maxSteps: 0 } }).start("bench");
  if (outcome.status !== "completed") throw new Error(`move: the run is ${outcome.status}`);
  return { store, runId: outcome.runId };
}

async function mirrorLag(seconds: number): Promise<MoveFigure["mirror"]> {
  const TOKEN = "bench-operator-token-0123456789abcdef";
  const tool = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
  const edgeStore = movable(memoryStore());
  const edgeDriver = createDriver({ store: edgeStore, owner: "edge", agent: scriptedAgent([final("edge")]), tools: [tool] });
  const app = createHttpApp({ backend: driverBackend(edgeDriver, { move: (drive) => storeMoveBackend(edgeStore, { place: "edge", onOwned: drive }) }), tokens: () => [TOKEN] });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const port = (server.address() as AddressInfo).port;

  // The tab: each append is held to its slot (50 a second) and timed when written.
  const inner = movable(memoryStore());
  const written = new Map<number, number>(); // the append's last seq → when it was written
  const interval = 1000 / 50;
  let next = 0;
  let mirror: ReturnType<typeof mirrorRuns> | undefined;
  const tab: Store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== "append") return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<Store["append"]>) => {
        const now = performance.now();
        next = Math.max(next + interval, now);
        if (next > now) await new Promise((r) => setTimeout(r, next - now));
        const head = await target.append(...args);
        written.set(head.seq, performance.now());
        mirror?.notify();
        return head;
      };
    },
  });
  const steps = Math.ceil((seconds * 50) / 2); // about 2 appends a step
  let step = 0;
  const agent = scriptedAgent(() => (++step <= steps ? calls({ name: "noop", args: "{}", callId: `c${step}` }) : final("done")));
  const lags: number[] = [];
  let acked = 0;
  mirror = mirrorRuns({
    store: tab,
    to: httpPlace({ url: `http://127.0.0.1:${port}`, name: "edge", token: TOKEN }),
    everyMs: 1000,
    onState: (s) => {
      if (s.acked === undefined || s.acked <= acked) return;
      const at = performance.now();
      for (const [seq, t] of written) if (seq > acked && seq <= s.acked) lags.push(at - t);
      acked = s.acked;
    },
  });
  const driver = createDriver({ store: tab, owner: "tab", agent, tools: [tool], limits: { maxSteps: 0 } });
  const t0 = performance.now();
  const outcome = await driver.start("mirror bench");
  const elapsed = (performance.now() - t0) / 1000;
  await mirror.synced(outcome.runId);
  await mirror.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (lags.length !== written.size) throw new Error(`move: ${lags.length} lags for ${written.size} appends`);
  lags.sort((a, b) => a - b);
  const q = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))]!;
  return { appends: written.size, perSecond: written.size / elapsed, p50Ms: q(0.5), p99Ms: q(0.99), maxMs: lags[lags.length - 1]! };
}

export async function benchMove(options: { quick?: boolean } = {}): Promise<MoveFigure> {
  const { store, runId } = await bigRun(2499); // 4 events a step, and a few more: about 10,000
  const events: JournalEvent[] = await store.read(runId);
  const names = [...artifactNames(events).keys()];
  if (names.length !== ARTIFACTS) throw new Error(`move: the run names ${names.length} artifacts, not ${ARTIFACTS}`);
  const text = await bundleText(exportRun(store, runId));
  const check = await importRun(movable(memoryStore()), text);
  if (check.seq !== events.length || check.outcome !== "created") throw new Error(`move: the import wrote ${check.seq} of ${events.length} events`);
  const contenders = [
    { name: READ, ops: 1, run: async () => [await store.read(runId), await Promise.all(names.map((h) => store.getArtifact(h)))] },
    { name: MOVE, ops: 1, run: () => importRun(movable(memoryStore()), exportRun(store, runId)) },
    { name: EXPORT, ops: 1, run: () => bundleText(exportRun(store, runId)) },
    { name: IMPORT, ops: 1, run: () => importRun(movable(memoryStore()), text) },
  ];
  const measured = await measureAsync(contenders, { rounds: options.quick ? 5 : 15, warmup: 2, minMs: 200 });
  consume(check);
  const mirror = await mirrorLag(options.quick ? 6 : 20);
  return {
    events: events.length,
    artifacts: names.length,
    bundleBytes: new TextEncoder().encode(text).length,
    ns: Object.fromEntries(measured.map((m) => [m.name, m.medianNs])),
    ratio: Object.fromEntries(measured.map((m) => [m.name, m.ratio])),
    spread: Object.fromEntries(measured.map((m) => [m.name, [m.ratioMin, m.ratioMax] as const])),
    mirror,
  };
}

export function printMove(f: MoveFigure): void {
  console.log(
    `move: a ${f.events}-event run naming ${f.artifacts} artifacts (bundle ${(f.bundleBytes / 1024 / 1024).toFixed(1)} MiB), exported and imported, against reading it from the memory store`,
  );
  console.log("| contender | time | ÷ read |");
  console.log("|---|---:|---:|");
  for (const name of Object.keys(f.ns)) console.log(`| ${name} | ${formatNs(f.ns[name]!)} | ${f.ratio[name]!.toFixed(2)} (${f.spread[name]![0].toFixed(2)}–${f.spread[name]![1].toFixed(2)}) |`);
  const m = f.mirror;
  console.log(`mirror lag over loopback, ${m.appends} appends at ${m.perSecond.toFixed(1)}/s: p50 ${m.p50Ms.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms, max ${m.maxMs.toFixed(1)} ms`);
}

export function moveResults(f: MoveFigure): Result[] {
  const detail = { events: f.events, artifacts: f.artifacts, bundleBytes: f.bundleBytes, ns: Object.fromEntries(Object.entries(f.ns).map(([k, v]) => [k, Math.round(v)])) };
  return [
    result(
      "move.export-import-vs-read",
      `exportRun streamed into importRun (verified, written) of a ${f.events}-event run naming ${f.artifacts} artifacts ÷ reading its journal and artifacts from the memory store`,
      f.ratio[MOVE]!,
      "informative",
      { ...detail, spread: f.spread[MOVE] },
    ),
    result("move.export-vs-read", "the export alone (the bundle as text) ÷ the same read (informative)", f.ratio[EXPORT]!, "informative", { ...detail, spread: f.spread[EXPORT] }),
    result("move.import-vs-read", "the import alone (of that text) ÷ the same read (informative)", f.ratio[IMPORT]!, "informative", { ...detail, spread: f.spread[IMPORT] }),
    result(
      "move.mirror-lag-p99-vs-interval",
      `mirror lag p99 over loopback at 50 appends/s ÷ the 20 ms between appends (p50 ${f.mirror.p50Ms.toFixed(1)} ms, p99 ${f.mirror.p99Ms.toFixed(1)} ms)`,
      f.mirror.p99Ms / 20,
      "informative",
      { ...f.mirror },
    ),
  ];
}
