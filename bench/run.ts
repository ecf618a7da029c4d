/**
 * `npm run bench [-- <id-prefix>...] [--quick] [--report-only]`: runs the
 * benchmarks whose id starts with a given prefix (all when none is given),
 * prints their tables, and writes the results: a full run (all, not quick)
 * to the committed bench/results/latest.json and bench/RESULTS.md, anything
 * else to bench/results/quick.json (ignored by git). It exits 1 when a goal
 * is missed, unless --report-only. Every figure is a ratio to a baseline or
 * a peer measured in the same run. The peers are the bench's own dev
 * dependencies (bench/package.json), installed on first use.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

// Every peer, not one: a checkout that installed the peers before one was added installs again.
const peers = Object.keys((JSON.parse(readFileSync("bench/package.json", "utf8")) as { devDependencies: Record<string, string> }).devDependencies);
if (peers.some((p) => !existsSync(`bench/node_modules/${p}/package.json`))) {
  console.log("installing the peers the benchmarks compare with (bench/package.json)…");
  execFileSync("npm", ["ci", "--prefix", "bench", "--no-audit", "--no-fund"], { stdio: "inherit" });
}

const { benchCheckArgs, benchHostile, checkArgsResults, printCheckArgs } = await import("./check-args.js");
const { benchSteps, printSteps, stepsResults } = await import("./steps.js");
const { benchStepsAdapter, printStepsAdapter, stepsAdapterResults } = await import("./steps-adapter.js");
const { benchIdb, idbResults, printIdb } = await import("./idb.js");
const { benchDo, doResults, printDo } = await import("./do.js");
const { benchScaleIdb, printScaleIdb, scaleIdbResults } = await import("./scale-idb.js");
const { benchScaleDo, printScaleDo, scaleDoResults } = await import("./scale-do.js");
const { benchResume, printResume, resumeResults } = await import("./resume.js");
const { benchResumeAsk, printResumeAsk, resumeAskResults } = await import("./resume-ask.js");
const { benchConversation, conversationResults, printConversation } = await import("./conversation.js");
const { benchLongRun, longRunResults, printLongRun } = await import("./long-run.js");
const { benchOtel, otelResults, printOtel } = await import("./otel.js");
const { benchMove, moveResults, printMove } = await import("./move.js");
const { benchBundles, bundleResults, printBundles } = await import("./bundles.js");
const { benchMemory, memoryResults, printMemory } = await import("./memory.js");
const { benchBash, bashResults, printBash } = await import("./bash.js");
const { benchBashDeadline, bashDeadlineResults, printBashDeadline } = await import("./bash-deadline.js");
const { benchMcp, mcpResults, printMcp } = await import("./mcp.js");
const { benchPush, printPush, pushResults } = await import("./push.js");
const { exitCode, load, writeResults } = await import("./results.js");
type Result = import("./results.js").Result;

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const prefixes = args.filter((a) => !a.startsWith("--"));
const options = quick ? { rounds: 5, batchMs: 15 } : { rounds: 15, batchMs: 40 };

const BENCHMARKS: Record<string, () => Promise<Result[]>> = {
  "check-args": async () => {
    const f = benchCheckArgs(options);
    printCheckArgs(f);
    return [...checkArgsResults(f), benchHostile(options)];
  },
  steps: async () => {
    const f = await benchSteps({ quick });
    printSteps(f);
    return stepsResults(f);
  },
  "steps-adapter": async () => {
    const f = await benchStepsAdapter({ quick });
    printStepsAdapter(f);
    return stepsAdapterResults(f);
  },
  idb: async () => {
    const f = await benchIdb({ quick });
    printIdb(f);
    return idbResults(f);
  },
  do: async () => {
    const f = await benchDo({ quick });
    printDo(f);
    return doResults(f);
  },
  "scale-idb": async () => {
    const f = await benchScaleIdb({ quick });
    printScaleIdb(f);
    return scaleIdbResults(f);
  },
  "scale-do": async () => {
    const runsArg = args.find((a) => a.startsWith("--runs="));
    const f = await benchScaleDo({ quick, ...(runsArg === undefined ? {} : { runs: Number(runsArg.slice("--runs=".length)) }) });
    printScaleDo(f);
    return scaleDoResults(f);
  },
  resume: async () => {
    const f = await benchResume({ quick });
    printResume(f);
    return resumeResults(f);
  },
  conversation: async () => {
    const f = await benchConversation({ quick });
    printConversation(f);
    return conversationResults(f);
  },
  "resume-ask": async () => {
    const f = await benchResumeAsk({ quick });
    printResumeAsk(f);
    return resumeAskResults(f);
  },
  "long-run": async () => {
    const f = await benchLongRun({ quick });
    printLongRun(f);
    return longRunResults(f);
  },
  otel: async () => {
    const f = await benchOtel({ quick });
    printOtel(f);
    return otelResults(f);
  },
  move: async () => {
    const f = await benchMove({ quick });
    printMove(f);
    return moveResults(f);
  },
  bundle: async () => {
    const f = await benchBundles();
    printBundles(f);
    return bundleResults(f);
  },
  memory: async () => {
    const f = benchMemory();
    printMemory(f);
    return memoryResults(f);
  },
  bash: async () => {
    const f = await benchBash({ quick });
    printBash(f);
    return bashResults(f);
  },
  "bash-deadline": async () => {
    const f = await benchBashDeadline({ quick });
    printBashDeadline(f);
    return bashDeadlineResults(f);
  },
  mcp: async () => {
    const f = await benchMcp({ quick });
    printMcp(f);
    return mcpResults(f);
  },
  push: async () => {
    const f = await benchPush({ quick });
    printPush(f);
    return pushResults(f);
  },
};

const selected = Object.keys(BENCHMARKS).filter((id) => prefixes.length === 0 || prefixes.some((p) => id.startsWith(p)));
if (selected.length === 0) {
  console.error(`no benchmark matches ${prefixes.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  process.exit(2);
}
console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ", quick" : ""}`);
const results: Result[] = [];
// What a benchmark leaves open (a socket, a server, a timer, a child) keeps
// the runner from exiting: each is named, and the run fails for it.
const leaks: string[] = [];
function openResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}
/** What is open now and was not before, after a moment for the closes that were asked for to land. */
async function leftOpen(before: Map<string, number>): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 500));
  return [...openResources()].filter(([r, n]) => n > (before.get(r) ?? 0)).map(([r, n]) => `${r} × ${n - (before.get(r) ?? 0)}`);
}
for (const id of selected) {
  const t = performance.now();
  const start = load();
  const opened = openResources();
  console.log(`\n(${id}: load ${start} at the start)`);
  const fresh = await BENCHMARKS[id]!();
  const end = load();
  results.push(...fresh.map((r) => ({ ...r, load: { start, end } })));
  console.log(`(${id}: ${((performance.now() - t) / 1000).toFixed(0)} s, load ${start} → ${end})`);
  const open = await leftOpen(opened);
  if (open.length > 0) leaks.push(`${id}: ${open.join(", ")}`);
}
const full = selected.length === Object.keys(BENCHMARKS).length;
const file = writeResults(results, { quick, full });
const missed = results.filter((r) => !r.met);
console.log(`\nwrote ${file} (${results.length} figures; ${missed.length} goals not met${missed.length === 0 ? "" : `: ${missed.map((r) => r.id).join(", ")}`})`);
if (!full || quick) console.log("(a partial or quick run: the committed bench/results/latest.json and bench/RESULTS.md are left as they are)");
if (leaks.length > 0) console.error(`\nleft open by a benchmark (each must close what it opens):\n  ${leaks.join("\n  ")}`);
process.exitCode = leaks.length > 0 ? 1 : exitCode(results, { reportOnly: args.includes("--report-only") });
