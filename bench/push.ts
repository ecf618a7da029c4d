/**
 * `npm run bench -- push --quick`: how soon an appended event reaches a
 * live event stream (GET /runs/:id/events over SSE), now that streams are
 * pushed (issue 15, finding 7). Never asserted in a test.
 *
 * - In Node, through createHttpApp and driverBackend: from the moment the
 *   memory store took an append to the moment the stream's reader parsed
 *   that event, pushed (Driver.watch) against the stream as it was before,
 *   which looked for new events every 300 ms (rebuilt here as the
 *   baseline, on the same app and driver). Each sample waits a different
 *   time (0 to 300 ms, the same for both) before the append, so the poll's
 *   phase is spread; the contenders alternate round by round. Then the
 *   pushed stream alone, many appends in a row, for its p50 and p99; and
 *   the same run with 100 streams open on it, from the append to the last
 *   of them delivering it (the fan-out).
 * - In workerd (miniflare, the Worker of examples/worker): an operator's
 *   approval, from sending it to the stream's delivery of its
 *   approval.resolved, against the approval's own round trip (the answer is
 *   appended before the reply leaves, so a pushed stream delivers it about
 *   as soon as the reply comes back).
 */
import { Miniflare } from "miniflare";
import { calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type JournalEvent, type RunId, type Store, type Tool } from "../src/index.js";
import { createHttpApp, driverBackend, type EventStreamBody, type RunsBackend } from "../src/http/index.js";
import { bundleWorker } from "../scripts/lib/bundle.js";
import { RUN_OBJECTS } from "../scripts/lib/worker.js";
import { DEMO_TASK } from "../examples/notes-agent.js";
import { alternate, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

export interface PushFigure {
  readonly rounds: number;
  /** Node: median milliseconds from append to delivery, by contender. */
  readonly pushMs: number;
  readonly pollMs: number;
  /** Node, pushed, one append after another: p50 and p99 milliseconds over `samples`. */
  readonly pushP50Ms: number;
  readonly pushP99Ms: number;
  readonly samples: number;
  /** The poll, over the alternating rounds: p50 and the slowest. */
  readonly pollP50Ms: number;
  readonly pollMaxMs: number;
  /** Node, pushed, 100 streams on the run: p50 and p99 milliseconds from an append to the last stream's delivery. */
  readonly fanOut: number;
  readonly fanOutP50Ms: number;
  readonly fanOutP99Ms: number;
  /** push ÷ poll, median of the same-round ratios, and its spread. */
  readonly ratio: number;
  readonly spread: readonly [number, number];
  /** workerd: median milliseconds from sending an approval to the stream's delivery of it, and to the approval's reply. */
  readonly doDeliveryMs: number;
  readonly doAnswerMs: number;
  readonly doRatio: number;
  readonly doSpread: readonly [number, number];
}

const TOKEN = "bench-push-token-0123456789";
const POLL_MS = 300;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAN_OUT = 100;

/** The `q` quantile (0–1) of `xs`, nearest rank. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** The stream as it was before push: it read the journal, the progress and the state every 300 ms while nothing was new. */
function pollingStream(backend: RunsBackend, runId: RunId, from: number): EventStreamBody {
  let next = from;
  const enc = new TextEncoder();
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      while (!closed) {
        const events = await backend.events(runId, next);
        if (events.length > 0) {
          c.enqueue(enc.encode(events.map((e) => `id: ${e.seq}\nevent: journal\ndata: ${JSON.stringify(e)}\n\n`).join("")));
          next = events.at(-1)!.seq + 1;
          return;
        }
        await backend.progress?.(runId);
        await backend.state(runId);
        await pause(POLL_MS);
      }
    },
    cancel() {
      closed = true;
    },
  });
}

/** Reads an SSE body in the background, noting when each journal event arrived. */
function deliveries(body: ReadableStream<Uint8Array>, seen: Map<number, number>, event = "journal"): () => Promise<void> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buffer = "";
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (r.done) return;
      buffer += dec.decode(r.value, { stream: true });
      for (let k = buffer.indexOf("\n\n"); k >= 0; k = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, k);
        buffer = buffer.slice(k + 2);
        if (!block.includes(`event: ${event}\n`)) continue;
        const data = /^data: (.*)$/m.exec(block)![1]!;
        seen.set((JSON.parse(data) as JournalEvent).seq, performance.now());
      }
    }
  })();
  return () => reader.cancel();
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`push bench: timed out waiting for ${what}`);
    await pause(1);
  }
}

async function benchNode(rounds: number, samples: number, fanRounds: number): Promise<{ push: number[]; poll: number[]; series: number[]; fan: number[] }> {
  const gates = new Map<string, (() => void)[]>();
  const step = defineTool({
    name: "step",
    description: "Wait for the bench.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 600_000,
    call: (_a, ctx) => new Promise<string>((r) => gates.set(ctx.runId, [...(gates.get(ctx.runId) ?? []), () => r("ok")])),
  }) as Tool<never, unknown>;
  const memory = memoryStore();
  const appendedAt = new Map<string, number>();
  const store: Store = {
    ...memory,
    // Timed from the moment the append is asked for (the store tells its watchers before it resolves).
    append: async (runId, events, guard, status) => {
      const at = performance.now();
      for (const e of events) appendedAt.set(`${runId}:${e.seq}`, at);
      return memory.append(runId, events, guard, status);
    },
  };
  const driver = createDriver({
    store,
    agent: scriptedAgent((v) => (v.step <= rounds + samples + fanRounds + 1 ? calls({ name: "step", args: "{}" }) : final("done"))),
    tools: [step],
    limits: { maxSteps: 0 },
  });
  const pushed = driverBackend(driver);
  const polled: RunsBackend = { ...pushed, stream: async (runId, from) => pollingStream(pushed, runId, from) };
  const apps = { push: createHttpApp({ backend: pushed, tokens: () => [TOKEN] }), poll: createHttpApp({ backend: polled, tokens: () => [TOKEN] }) };
  const runs = {} as Record<"push" | "poll", { runId: RunId; seen: Map<number, number>; stop: () => Promise<void> }>;
  const drives: Promise<unknown>[] = [];
  for (const name of ["push", "poll"] as const) {
    const runId = await driver.create(name);
    drives.push(driver.resume(runId));
    const seen = new Map<number, number>();
    const res = await apps[name].request(`/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    runs[name] = { runId, seen, stop: deliveries(res.body as ReadableStream<Uint8Array>, seen) };
  }
  // Settled: the run waits on its call, and the stream has shown everything so far.
  const settled = async (name: "push" | "poll") => {
    const { runId, seen } = runs[name];
    await until(`${name}'s call`, () => (gates.get(runId)?.length ?? 0) > 0);
    const last = (await driver.events(runId)).at(-1)!.seq;
    await until(`${name}'s stream to catch up`, () => seen.has(last));
    return last;
  };
  const fans: { seen: Map<number, number>; stop: () => Promise<void> }[] = [];
  try {
    const { push, poll } = await alternate(rounds, ["push", "poll"] as const, async (name, round) => {
      const { runId, seen } = runs[name];
      const last = await settled(name);
      await pause((round * 97) % POLL_MS);
      gates.get(runId)!.shift()!();
      const seq = last + 1;
      await until(`${name} to deliver event ${seq}`, () => seen.has(seq));
      return seen.get(seq)! - appendedAt.get(`${runId}:${seq}`)!;
    });
    // The pushed stream alone, one append after another.
    const { runId, seen } = runs.push;
    const series: number[] = [];
    for (let k = 0; k < samples; k++) {
      const seq = (await settled("push")) + 1;
      gates.get(runId)!.shift()!();
      await until(`push to deliver event ${seq}`, () => seen.has(seq));
      series.push(seen.get(seq)! - appendedAt.get(`${runId}:${seq}`)!);
    }
    // The fan-out: as many streams on the run, opened while it waits, each append timed to the last of them.
    const start = await settled("push");
    for (let k = 1; k < FAN_OUT; k++) {
      const res = await apps.push.request(`/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream", "last-event-id": String(start) } });
      const mine = new Map<number, number>();
      fans.push({ seen: mine, stop: deliveries(res.body as ReadableStream<Uint8Array>, mine) });
    }
    const fan: number[] = [];
    for (let k = 0; k < fanRounds; k++) {
      const last = await settled("push");
      await until("every stream to catch up", () => last === start || fans.every((f) => f.seen.has(last)));
      gates.get(runId)!.shift()!();
      const seq = last + 1;
      await until(`every stream to deliver event ${seq}`, () => seen.has(seq) && fans.every((f) => f.seen.has(seq)));
      fan.push(Math.max(seen.get(seq)!, ...fans.map((f) => f.seen.get(seq)!)) - appendedAt.get(`${runId}:${seq}`)!);
    }
    return { push, poll, series, fan };
  } finally {
    for (const r of Object.values(runs)) await r.stop();
    for (const f of fans) await f.stop();
    // The runs end here (cancelled, their waiting call let go), so that no
    // drive goes on calling, renewing its lease, after the bench.
    for (const r of Object.values(runs)) await driver.cancel(r.runId, { by: "bench" });
    for (const g of gates.values()) for (const release of g.splice(0)) release();
    await Promise.all(drives);
  }
}

async function benchDo(rounds: number): Promise<{ delivery: number[]; answer: number[] }> {
  const mf = new Miniflare({ modules: true, script: await bundleWorker("examples/worker/index.ts"), compatibilityDate: "2026-07-01", ...RUN_OBJECTS, bindings: { ISOAGENT_TOKEN: TOKEN } } as never);
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await mf.dispatchFetch(`http://localhost${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } } as never);
    return (await res.json()) as any;
  };
  const delivery: number[] = [];
  const answer: number[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      const { runId } = await api("/runs", { method: "POST", body: JSON.stringify({ task: DEMO_TASK }) });
      let approval: { approvalId: string; requestHash: string } | undefined;
      await until("the demo run to ask", async () => (approval = (await api(`/runs/${runId}`)).run.approvals[0]) !== undefined);
      const seen = new Map<number, number>();
      const res = await mf.dispatchFetch(`http://localhost/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
      const stop = deliveries(res.body as unknown as ReadableStream<Uint8Array>, seen);
      const head = ((await api(`/runs/${runId}/events`)).events as JournalEvent[]).at(-1)!.seq;
      await until("the stream to catch up", () => seen.has(head));
      const t0 = performance.now();
      await api(`/runs/${runId}/approvals/${approval!.approvalId}`, { method: "POST", body: JSON.stringify({ decision: "approve", requestHash: approval!.requestHash, by: "bench" }) });
      const replied = performance.now();
      await until("the approval's delivery", () => seen.has(head + 1));
      await stop();
      // Round 0 warms the isolate and the objects up.
      if (round > 0) {
        delivery.push(seen.get(head + 1)! - t0);
        answer.push(replied - t0);
      }
    }
  } finally {
    await mf.dispose();
  }
  return { delivery, answer };
}

export async function benchPush(options: { quick?: boolean } = {}): Promise<PushFigure> {
  const rounds = options.quick ? 7 : 15;
  const samples = options.quick ? 100 : 400;
  const fanRounds = options.quick ? 30 : 100;
  const node = await benchNode(rounds, samples, fanRounds);
  const vsPoll = ratioOf(node.push, node.poll);
  const workerd = await benchDo(options.quick ? 5 : 10);
  const vsAnswer = ratioOf(workerd.delivery, workerd.answer);
  return {
    rounds,
    pushMs: median(node.push),
    pollMs: median(node.poll),
    pushP50Ms: quantile(node.series, 0.5),
    pushP99Ms: quantile(node.series, 0.99),
    samples,
    pollP50Ms: quantile(node.poll, 0.5),
    pollMaxMs: Math.max(...node.poll),
    fanOut: FAN_OUT,
    fanOutP50Ms: quantile(node.fan, 0.5),
    fanOutP99Ms: quantile(node.fan, 0.99),
    ratio: vsPoll.ratio,
    spread: [vsPoll.min, vsPoll.max],
    doDeliveryMs: median(workerd.delivery),
    doAnswerMs: median(workerd.answer),
    doRatio: vsAnswer.ratio,
    doSpread: [vsAnswer.min, vsAnswer.max],
  };
}

export function printPush(f: PushFigure): void {
  console.log(`push: from an append to its delivery on a live event stream (${f.rounds} rounds)`);
  console.log("| where | pushed | baseline | ratio (spread) |");
  console.log("|---|---:|---:|---:|");
  console.log(
    `| Node, driverBackend: append → delivery | ${f.pushMs.toFixed(2)} ms | ${f.pollMs.toFixed(1)} ms (300 ms poll) | ${f.ratio.toFixed(3)} (${f.spread[0].toFixed(3)}–${f.spread[1].toFixed(3)}) |`,
  );
  console.log(
    `| Node, pushed alone, ${f.samples} appends: p50 / p99 | ${f.pushP50Ms.toFixed(2)} / ${f.pushP99Ms.toFixed(2)} ms | poll p50 / slowest: ${f.pollP50Ms.toFixed(1)} / ${f.pollMaxMs.toFixed(1)} ms | |`,
  );
  console.log(`| Node, pushed to ${f.fanOut} streams: append → the last one's delivery, p50 / p99 | ${f.fanOutP50Ms.toFixed(2)} / ${f.fanOutP99Ms.toFixed(2)} ms | | |`);
  console.log(
    `| workerd, the run's object: approval sent → delivered | ${f.doDeliveryMs.toFixed(1)} ms | ${f.doAnswerMs.toFixed(1)} ms (the approval's reply) | ${f.doRatio.toFixed(2)} (${f.doSpread[0].toFixed(2)}–${f.doSpread[1].toFixed(2)}) |`,
  );
  for (const x of pushResults(f)) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function pushResults(f: PushFigure): Result[] {
  return [
    result(
      "push.node-vs-poll",
      "Node (createHttpApp + driverBackend): append → SSE delivery, pushed ÷ the 300 ms poll it replaced (median of same-round ratios; each round's append 0–300 ms into the poll's cycle)",
      f.ratio,
      "<= 0.1",
      {
        pushMs: f.pushMs,
        pollMs: f.pollMs,
        rounds: f.rounds,
        spread: f.spread,
        pushP50Ms: f.pushP50Ms,
        pushP99Ms: f.pushP99Ms,
        samples: f.samples,
        pollP50Ms: f.pollP50Ms,
        pollMaxMs: f.pollMaxMs,
        fanOut: f.fanOut,
        fanOutP50Ms: f.fanOutP50Ms,
        fanOutP99Ms: f.fanOutP99Ms,
      },
    ),
    result("push.do-vs-answer", "workerd (the run's Durable Object holds the stream): approval sent → its event delivered ÷ approval sent → its reply", f.doRatio, "<= 1.5", {
      deliveryMs: f.doDeliveryMs,
      answerMs: f.doAnswerMs,
      spread: f.doSpread,
    }),
  ];
}
