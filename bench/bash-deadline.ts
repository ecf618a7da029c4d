/**
 * `npm run bench -- bash-deadline` (or `tsx bench/bash-deadline.ts [--quick]`,
 * which prints and writes nothing): how bash keeps its deadline (issue 26).
 *
 * - worker: in Node the interpreter runs in a worker thread, terminated at
 *   the deadline. A sed branch loop that never yields, run again and again
 *   through a driver with timeoutMs 1000: when its observation is journaled,
 *   from the call's start, ÷ the timeout; the p99 and the worst (goal: the
 *   p99 within the timeout, <= 1).
 * - limits: where the interpreter runs in the calling thread (workerd), its
 *   limits are derived from the timeout (src/toolkit/bash/limits.ts). Each
 *   looping command's worst case, at the limits for timeouts of 1, 3 and
 *   10 s, each in a process of its own (killed at 4× the timeout): how long
 *   the call took ÷ the timeout (goal <= 0.5 for the looping commands;
 *   the rows marked "not bounded" are what just-bash's limits cannot bound,
 *   reported without a goal; see docs/tools/bash.md).
 */
import { spawn } from "node:child_process";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JournalEvent, type Tool } from "../src/index.js";
import { memoryWorkspace } from "../src/toolkit/index.js";
import { bashTool } from "../src/toolkit/bash/index.js";
import { nodeWorkerRunner } from "../adapters/bash-node/index.js";
import { nodeBashWorkerUrl } from "../test/helpers/bash-worker.js";
import { result, type Result } from "./results.js";

/** A looping command at its worst, and whether just-bash's limits can bound it. */
export interface LoopCase {
  readonly id: string;
  readonly command: string;
  /** False: no limit of just-bash bounds it (reported, no goal). */
  readonly bounded: boolean;
}

const LINE = "a".repeat(130);

export const CASES: readonly LoopCase[] = [
  // sed: branch loops (one statement for just-bash: its deadline is not checked inside).
  { id: "sed-grow", command: "echo a | sed ':a; s/a/aa/; ba'", bounded: true },
  { id: "sed-grow-130", command: `echo ${LINE} | sed ':a; s/a/aa/; ba'`, bounded: true },
  { id: "sed-branch", command: "echo a | sed ':a; ba'", bounded: true },
  { id: "sed-hold", command: "echo a | sed ':a; H; x; ba'", bounded: true },
  { id: "sed-join-lines", command: "yes | head -n 100000 | sed ':a;N;$!ba;s/\\n/ /g' | wc -c", bounded: true },
  { id: "sed-big-line", command: "sed ':a; s/lorem/LOREM/; ta' big.txt | wc -c", bounded: false },
  { id: "sed-doubling", command: "echo a | sed ':a; s/a*/&&/; ba'", bounded: false },
  { id: "sed-per-line", command: "yes | head -n 100000 | sed ':a; s/^/x/; ta'", bounded: false },
  // awk
  { id: "awk-while", command: "awk 'BEGIN { while (1) x++ }'", bounded: true },
  { id: "awk-for", command: "awk 'BEGIN { for (;;) x++ }'", bounded: true },
  { id: "awk-gsub-doubling", command: `awk 'BEGIN { s = "a"; while (1) gsub(/a/, "aa", s) }'`, bounded: true },
  { id: "awk-concat-doubling", command: `awk 'BEGIN { s = "a"; while (1) s = s s }'`, bounded: true },
  { id: "awk-grow-scan", command: `awk 'BEGIN { while (1) { s = s "a"; n = index(s, "b") } }'`, bounded: true },
  { id: "awk-array", command: "awk 'BEGIN { for (;;) a[n++] = n }'", bounded: true },
  { id: "awk-per-line", command: "yes | head -n 100000 | awk '{ i = 0; while (i++ < 1000000) x++ }'", bounded: false },
  // bash
  { id: "bash-while", command: "while true; do :; done", bounded: true },
  { id: "bash-until", command: "until false; do :; done", bounded: true },
  { id: "bash-for-arith", command: "for ((;;)); do :; done", bounded: true },
  { id: "bash-for-seq", command: "for i in $(seq 1000000); do :; done", bounded: true },
  { id: "bash-recursion", command: "f() { f; f; }; f", bounded: true },
  { id: "bash-string-doubling", command: "s=a; while true; do s=$s$s; done", bounded: true },
  { id: "bash-string-grow-match", command: "s=a; while true; do s=$s.a; [[ $s == *b* ]]; done", bounded: true },
  { id: "bash-brace", command: "printf 'a%.0s' {1..100000} | wc -c", bounded: true },
  { id: "bash-array", command: "a=(); while true; do a+=(x); done", bounded: true },
  // jq
  { id: "jq-range", command: "jq -n 'last(range(1e12))'", bounded: true },
  { id: "jq-until-doubling", command: `jq -n '"a" | until(length > 1e12; . + .)'`, bounded: true },
  { id: "jq-reduce", command: "jq -n 'reduce range(1e9) as $i (0; . + $i)'", bounded: true },
  { id: "jq-recursion", command: "jq -n 'def f: f; f'", bounded: true },
  // others that loop over a generated input
  { id: "seq", command: "seq 1 100000000 | wc -l", bounded: true },
  { id: "xargs", command: "yes | head -n 100000 | xargs -n 1 echo | wc -l", bounded: true },
];

export const TIMEOUTS = [1000, 3000, 10_000] as const;

/** One case in a process of its own; killed at 4× the timeout. */
function runCase(timeoutMs: number, command: string): Promise<{ ms: number; outcome: string }> {
  return new Promise((resolve) => {
    const child = spawn("node_modules/.bin/tsx", ["bench/bash-deadline-case.ts", String(timeoutMs), JSON.stringify(command)], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const cap = 4 * timeoutMs + 15_000; // the process's own start (tsx, just-bash) is not timed: it comes before the call
    const kill = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone already
      }
    }, cap);
    child.on("close", () => {
      clearTimeout(kill);
      const line = out.trim().split("\n").at(-1);
      try {
        resolve(JSON.parse(line ?? "") as { ms: number; outcome: string });
      } catch {
        resolve({ ms: 4 * timeoutMs, outcome: "killed at 4× the timeout (or failed)" });
      }
    });
  });
}

export interface LimitFigure {
  readonly id: string;
  readonly timeoutMs: number;
  readonly ms: number;
  readonly ratio: number;
  readonly bounded: boolean;
  readonly outcome: string;
}

export interface WorkerFigure {
  readonly timeoutMs: number;
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly worst: number;
  readonly outcomes: string[];
}

async function workerFigure(samples: number): Promise<WorkerFigure> {
  const timeoutMs = 1000;
  const runner = nodeWorkerRunner({
    url: await nodeBashWorkerUrl(),
    onUnavailable: (e) => {
      throw e;
    },
  });
  const bash = bashTool({ workspace: memoryWorkspace(), requireApproval: false, timeoutMs, runner });
  const times: number[] = [];
  const outcomes = new Set<string>();
  for (let k = 0; k < samples; k++) {
    const driver = createDriver({
      store: memoryStore(),
      tools: [bash.tool as Tool<never, unknown>],
      agent: scriptedAgent([calls(call("bash", { command: "echo a | sed ':a; s/a/aa/; ba'" })), final("ok")]),
    });
    const outcome = await driver.start("t");
    const events = await driver.events(outcome.runId);
    const started = events.find((e) => e.type === "call.started")!;
    const finished = events.find((e): e is Extract<JournalEvent, { type: "call.finished" }> => e.type === "call.finished")!;
    times.push(finished.at - started.at);
    outcomes.add(finished.observation.type === "tool_error" ? `tool_error/${finished.observation.failure}` : finished.observation.type);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { timeoutMs, samples, p50: at(0.5), p99: at(0.99), worst: sorted.at(-1)!, outcomes: [...outcomes] };
}

export async function benchBashDeadline(
  options: { quick?: boolean; only?: readonly string[]; timeouts?: readonly number[]; noWorker?: boolean } = {},
): Promise<{ worker: WorkerFigure; limits: LimitFigure[] }> {
  const worker = options.noWorker === true ? { timeoutMs: 1000, samples: 0, p50: 0, p99: 0, worst: 0, outcomes: [] } : await workerFigure(options.quick ? 10 : 50);
  const limits: LimitFigure[] = [];
  for (const timeoutMs of options.timeouts ?? (options.quick ? [3000] : TIMEOUTS)) {
    for (const c of CASES.filter((x) => options.only === undefined || options.only.includes(x.id))) {
      const r = await runCase(timeoutMs, c.command);
      limits.push({ id: c.id, timeoutMs, ms: r.ms, ratio: r.ms / timeoutMs, bounded: c.bounded, outcome: r.outcome });
      console.log(`  ${c.id} at ${timeoutMs} ms: ${r.ms.toFixed(0)} ms (${(r.ms / timeoutMs).toFixed(2)}× the timeout): ${r.outcome}`);
    }
  }
  return { worker, limits };
}

export function printBashDeadline(f: { worker: WorkerFigure; limits: LimitFigure[] }): void {
  const w = f.worker;
  console.log(
    `bash's deadline, in a worker thread: a sed loop with timeoutMs ${w.timeoutMs}, ${w.samples} runs: observation after p50 ${w.p50} ms, p99 ${w.p99} ms, worst ${w.worst} ms (${w.outcomes.join(", ")})`,
  );
  console.log("bash's deadline in the calling thread (the limits derived from the timeout): each looping command's worst case ÷ the timeout");
  const ids = [...new Set(f.limits.map((l) => l.id))];
  const ts = [...new Set(f.limits.map((l) => l.timeoutMs))];
  console.log(`| command | ${ts.map((t) => `${t} ms`).join(" | ")} | bounded by the limits |`);
  console.log(`|---|${ts.map(() => "---:").join("|")}|---|`);
  for (const id of ids) {
    const row = ts.map((t) => f.limits.find((l) => l.id === id && l.timeoutMs === t)?.ratio.toFixed(2) ?? "");
    console.log(`| ${id} | ${row.join(" | ")} | ${f.limits.find((l) => l.id === id)!.bounded ? "yes" : "no"} |`);
  }
}

export function bashDeadlineResults(f: { worker: WorkerFigure; limits: LimitFigure[] }): Result[] {
  const w = f.worker;
  const out = [
    result(
      "bash-deadline.worker.p99",
      `bash in a worker thread: a loop that never yields, its observation's p99 from the call's start ÷ the timeout (${w.timeoutMs} ms)`,
      w.p99 / w.timeoutMs,
      "<= 1",
      { ...w },
    ),
  ];
  for (const l of f.limits) {
    out.push(
      result(
        `bash-deadline.limits.${l.id}.${l.timeoutMs}`,
        `bash in the calling thread, limits from a ${l.timeoutMs} ms timeout: ${CASES.find((c) => c.id === l.id)!.command} ÷ the timeout`,
        l.ratio,
        l.bounded ? "<= 0.5" : "informative",
        { ms: Math.round(l.ms), outcome: l.outcome, bounded: l.bounded },
      ),
    );
  }
  return out;
}

// Run directly: print, write nothing.
if (process.argv[1]?.endsWith("bench/bash-deadline.ts")) {
  // Calibration: --only=<id>,<id> --timeouts=<ms>,<ms> --no-worker.
  const arg = (name: string): string[] | undefined =>
    process.argv
      .find((a) => a.startsWith(`--${name}=`))
      ?.slice(name.length + 3)
      .split(",");
  const timeouts = arg("timeouts")?.map(Number);
  const only = arg("only");
  const f = await benchBashDeadline({
    quick: process.argv.includes("--quick"),
    noWorker: process.argv.includes("--no-worker"),
    ...(only === undefined ? {} : { only }),
    ...(timeouts === undefined ? {} : { timeouts }),
  });
  printBashDeadline(f);
  for (const r of bashDeadlineResults(f)) if (!r.met) console.log(`${r.id}: ${r.ratio} (${r.goal}, NOT met)`);
}
