/**
 * `npm run bench -- steps-adapter`: the cost of a step with a real model
 * adapter. isoagent's driver with its OpenAI Responses adapter
 * (`openaiAgent`, over fetch), every step journaled with its hash chain in
 * the memory store, against the OpenAI Agents SDK and the Vercel AI SDK with
 * their own OpenAI Responses providers, all talking to the same fake
 * provider on loopback HTTP (bench/fake-responses.ts, a node:http server in
 * this process): each request built, sent and parsed by the fake, each
 * answer read back, streamed (SSE) or whole, as each contender asks. A run is
 * N steps of one no-op tool call each, then a final answer; every run checks
 * it made exactly N tool calls. Contenders alternate round by round.
 *
 * The goal compares isoagent streamed (its default) with the fastest peer in
 * either mode; the same-mode ratios are shown beside it. A floor contender
 * (no agent: the same requests, prebuilt, POSTed with fetch and the answers
 * read as text) measures what every contender pays for the HTTP round trip
 * and the fake's own work, which bounds any ratio: with the floor at a
 * quarter of the fastest peer's time, not even a loop that cost nothing
 * could be 5× faster. The time each loop adds above the floor is reported
 * too (informative).
 */
import { openaiAgent } from "../src/agents/openai/index.js";
import { createDriver, defineTool, memoryStore, strictObject, type Tool } from "../src/index.js";
import { fakeResponsesServer, type FakeResponsesServer } from "./fake-responses.js";
import { formatNs, measureAsync } from "./harness.js";
import { ADAPTER_PEERS, FINAL_TEXT } from "./peers/steps-adapter.js";
import { result, type Result } from "./results.js";

export interface StepsAdapterFigure {
  readonly steps: number;
  /** Nanoseconds per step, by contender. */
  readonly nsPerStep: Readonly<Record<string, number>>;
  /** Each contender's time ÷ isoagent streamed's, median of the same-round ratios, and its spread. */
  readonly ratio: Readonly<Record<string, number>>;
  readonly spread: Readonly<Record<string, readonly [number, number]>>;
  readonly modes: Readonly<Record<string, "streamed" | "whole">>;
  readonly versions: Readonly<Record<string, string>>;
  /** Requests the fake answered, by how they asked, during this N's measurement. */
  readonly requests: { readonly streamed: number; readonly whole: number };
}

const ISO_STREAMED = "isoagent (openaiAgent responses, streamed; memory store)";
const ISO_WHOLE = "isoagent (openaiAgent responses, whole; memory store)";
const FLOOR = "floor (no agent: the same requests prebuilt, POSTed with fetch, answers read as text)";

/**
 * What every contender pays whatever its loop does: the N + 1 requests of a
 * run (as isoagent's adapter shapes them, built before the clock starts),
 * sent with fetch to the same fake, each answer streamed and read whole as
 * text. The rest of a contender's time is its own.
 */
function floorRun(): (baseUrl: string, n: number) => Promise<void> {
  const built = new Map<number, string[]>();
  const texts = (n: number): string[] => {
    let t = built.get(n);
    if (t === undefined) {
      const input: unknown[] = [{ role: "user", content: "go" }];
      t = [];
      for (let k = 1; k <= n + 1; k++) {
        t.push(
          JSON.stringify({
            model: "gpt-fake",
            instructions: "Call noop.",
            input,
            tools: [{ type: "function", name: "noop", description: "Do nothing.", parameters: { type: "object", properties: {}, additionalProperties: false }, strict: true }],
            parallel_tool_calls: true,
            store: false,
            stream: true,
          }),
        );
        input.push({ type: "function_call", call_id: `call_${k}`, name: "noop", arguments: "{}" }, { type: "function_call_output", call_id: `call_${k}`, output: "ok" });
      }
      built.set(n, t);
    }
    return t;
  };
  return async (baseUrl, n) => {
    let last = "";
    for (const body of texts(n)) {
      const res = await fetch(`${baseUrl}/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench-not-a-key" }, body });
      last = await res.text();
      if (res.status !== 200) throw new Error(`floor: HTTP ${res.status}: ${last}`);
    }
    if (!last.includes(`"text":"${FINAL_TEXT}"`)) throw new Error("floor: no final answer");
  };
}

function isoagentRun(stream: boolean): (baseUrl: string, n: number) => Promise<void> {
  return async (baseUrl, n) => {
    let executed = 0;
    const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => (executed++, "ok") }) as Tool<
      never,
      unknown
    >;
    const agent = openaiAgent({ apiKey: "sk-bench-not-a-key", model: "gpt-fake", baseUrl, instructions: "Call noop.", stream });
    const driver = createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: n + 1 } });
    const outcome = await driver.start("go");
    if (outcome.status !== "completed" || executed !== n || outcome.output !== FINAL_TEXT)
      throw new Error(`isoagent: ${outcome.status} after ${executed} of ${n} calls${outcome.failure === undefined ? "" : `: ${outcome.failure.detail}`}`);
  };
}

/** The contenders, isoagent streamed first: name, how it asks, version, and a run of n steps against a base URL. */
export function adapterContenders() {
  return [
    { name: ISO_STREAMED, mode: "streamed" as const, version: "this checkout", run: isoagentRun(true) },
    { name: ISO_WHOLE, mode: "whole" as const, version: "this checkout", run: isoagentRun(false) },
    ...ADAPTER_PEERS,
    { name: FLOOR, mode: "streamed" as const, version: "node's fetch (undici)", run: floorRun() },
  ];
}

export async function benchStepsAdapter(options: { quick?: boolean } = {}): Promise<StepsAdapterFigure[]> {
  let steps = 0;
  const server: FakeResponsesServer = await fakeResponsesServer({ steps: () => steps, tool: "noop", finalText: FINAL_TEXT });
  try {
    const all = adapterContenders();
    const figures: StepsAdapterFigure[] = [];
    for (const n of [50, 200]) {
      steps = n;
      const before = { ...server.counts };
      const contenders = all.map((c) => ({ name: c.name, ops: n, run: () => c.run(server.baseUrl, n) }));
      const measured = await measureAsync(contenders, { rounds: options.quick ? 3 : 7, warmup: 2 });
      if (server.counts.refused > 0) throw new Error(`the fake refused ${server.counts.refused} requests: ${server.lastRefusal}`);
      figures.push({
        steps: n,
        nsPerStep: Object.fromEntries(measured.map((m) => [m.name, m.medianNs])),
        ratio: Object.fromEntries(measured.map((m) => [m.name, m.ratio])),
        spread: Object.fromEntries(measured.map((m) => [m.name, [m.ratioMin, m.ratioMax] as const])),
        modes: Object.fromEntries(all.map((c) => [c.name, c.mode])),
        versions: Object.fromEntries(all.map((c) => [c.name, c.version])),
        requests: { streamed: server.counts.streamed - before.streamed, whole: server.counts.whole - before.whole },
      });
    }
    return figures;
  } finally {
    await server.close();
  }
}

export function printStepsAdapter(figures: StepsAdapterFigure[]): void {
  const names = Object.keys(figures[0]!.nsPerStep);
  console.log("steps-adapter: time per step (a no-op tool call, then a final answer), each contender's OpenAI Responses provider against one fake provider on loopback HTTP, same runs");
  console.log(`| contender | ${figures.map((f) => `N = ${f.steps}`).join(" | ")} | ÷ isoagent streamed at N = ${figures.at(-1)!.steps} |`);
  console.log(`|---|${figures.map(() => "---:").join("|")}|---:|`);
  const last = figures.at(-1)!;
  for (const n of names)
    console.log(`| ${n} | ${figures.map((f) => formatNs(f.nsPerStep[n]!)).join(" | ")} | ${last.ratio[n]!.toFixed(2)} (${last.spread[n]![0].toFixed(2)}–${last.spread[n]![1].toFixed(2)}) |`);
  for (const f of figures) console.log(`N = ${f.steps}: the fake answered ${f.requests.streamed} streamed and ${f.requests.whole} whole requests`);
  for (const x of stepsAdapterResults(figures).filter((x) => x.goal !== "informative")) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function stepsAdapterResults(figures: StepsAdapterFigure[]): Result[] {
  const f = figures.find((x) => x.steps === 200);
  if (f === undefined) return [];
  const peers = Object.keys(f.nsPerStep).filter((k) => !k.startsWith("isoagent") && k !== FLOOR);
  const fastestOf = (names: string[]) => names.reduce((a, b) => (f.nsPerStep[b]! < f.nsPerStep[a]! ? b : a));
  const fastest = fastestOf(peers);
  const out: Result[] = [
    // A peer's time over isoagent's, round by round: isoagent's steps/s over the peer's.
    result(
      "steps-adapter.vs-fastest-peer",
      `isoagent steps/s (Responses adapter, streamed, memory store, hash chain) ÷ the fastest peer's (${fastest}) at N = 200, every contender against the same fake provider on loopback HTTP`,
      f.ratio[fastest]!,
      ">= 5",
      {
        nsPerStep: f.nsPerStep,
        spread: f.spread[fastest],
        versions: f.versions,
        requests: f.requests,
      },
    ),
  ];
  for (const mode of ["streamed", "whole"] as const) {
    const iso = mode === "streamed" ? ISO_STREAMED : ISO_WHOLE;
    const same = fastestOf(peers.filter((p) => f.modes[p] === mode));
    // Both ratios are to isoagent streamed in the same rounds; their quotient is the peer's over isoagent in this mode.
    out.push(
      result(
        `steps-adapter.${mode}.vs-fastest-${mode}-peer`,
        `isoagent steps/s (Responses adapter, ${mode}, memory store) ÷ the fastest ${mode} peer's (${same}) at N = 200 (informative)`,
        f.ratio[same]! / f.ratio[iso]!,
        "informative",
        { nsPerStep: { [iso]: f.nsPerStep[iso], [same]: f.nsPerStep[same] } },
      ),
    );
  }
  // Above the floor: what each loop adds to the HTTP round trip and the fake's work that all of them pay.
  const floor = f.nsPerStep[FLOOR]!;
  const above = (name: string) => f.nsPerStep[name]! - floor;
  out.push(
    result(
      "steps-adapter.above-floor.vs-fastest-peer",
      `the fastest peer's time per step above the floor ÷ isoagent streamed's above it (${fastest}; the floor: the same requests POSTed with fetch, no agent) at N = 200 (informative)`,
      above(fastest) / Math.max(1, above(ISO_STREAMED)),
      "informative",
      {
        floorNs: floor,
        floorShareOfIsoagent: floor / f.nsPerStep[ISO_STREAMED]!,
        aboveFloorNs: Object.fromEntries(Object.keys(f.nsPerStep).map((k) => [k, above(k)])),
      },
    ),
  );
  return out;
}
