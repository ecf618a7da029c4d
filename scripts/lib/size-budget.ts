/**
 * The size budget of the core: bytes, minified and gzipped, of the chunks
 * every load of an entry fetches (scripts/lib/bundle.ts: entryBundle).
 * It only ratchets down: a change that makes an entry larger than its
 * budget fails `npm test` and `npm run build`; one that makes it smaller
 * by more than {@link SLACK_BYTES} fails until the budget is lowered to
 * the new size.
 */
import { entryBundle, SIZE_ENTRIES, type SplitBundle } from "./bundle.js";

/**
 * Bytes, minified and gzipped: what issue 18 reached, rounded up to 100
 * bytes, with what the work merged beside it added (MCP's ToolContext
 * progress and putArtifact, the preview's permit, leases in the stores'
 * summaries and the busy outcome, the lease renewed inline when a run never
 * yields to timers: +0.8 KB; issue 17's custody, the refusals every store
 * makes of a run it does not own and the seal that ends its ownership,
 * +0.5 KB: everything else of moves is isoagent/move), and issue 15's
 * console and push (Driver.watch, told by every append and progress, and
 * memoryStore's watch; run titles and the `before` cursor in the memory
 * store; Driver.artifact: +0.4 KB), and the last fixes of this round
 * (grants judged on every kind of resource, a URL by its host; snapshots
 * that leave the transcript out without a context budget, rebuilt when the
 * agent is asked: +0.3 KB); a drive stopped by a failing store at its last
 * flush stops with store_error and reports the run as the store holds it,
 * instead of throwing out of start(): +0.04 KB, driver to 41,100); a lease
 * lost at the last flush is a lease_lost stop reporting the stored run, and
 * fastUnsupported walks only the keywords that hold schemas (two bugs found
 * through surviving mutants), and a $ref must land at a schema position,
 * never in data (a third): +0.15 KB, index to 46,600, driver to 41,200,
 * isoagent/mcp to 39,900 and isoagent/move to 33,600. Issue 26's bounded
 * recovery (the lease that says which one it took over, a takeover
 * journaled at once and counted, the run failed no_progress at its limit,
 * an interrupted call's count and cause checked against
 * maxInterruptions, the two options, and the operator's texts for each):
 * +0.65 KB. Issue 26's hostile content: hygiene removes invisible
 * formatting characters (bidirectional controls, tag characters) and
 * counts them, keys and tool descriptions included (+0.26 KB); together
 * index to 47,500, driver to 42,200. isoagent/mcp also reads a refused
 * tools/list tool by tool (a linear split, 0.8 KB), neutralizes
 * marker-like text in results (toolkit/untrusted.ts, 1.1 KB), parses SSE
 * in one pass with the cap on the partial line, measures each definition's
 * depth and size by a loop and lists again before a call sent in a new
 * session: +2.5 KB, to 42,300. Issue 26's signed handovers: the reducer
 * lets a call reopened after a move go back to recovery and a store's
 * seal records how far it vouches (+5 bytes); isoagent/move signs and
 * verifies bundles (WebCrypto, Ed25519 or ECDSA P-256, key import with a
 * typed refusal for each bad key) and decides again what a run from an
 * untrusted place brings (+2.2 KB; with the recovery fields it reads, move to 35,900).
 * Issue 26's linear-time patterns (src/pattern/: the parser, the program, the lazy
 * DFA, the proof that lets safe patterns stay on RegExp, 8.0 KB minified;
 * the reference evaluator's pattern slots are in the lazy chunk): +3.9 KB,
 * with the rest of issue 26, index to 51,800, driver to 46,400,
 * isoagent/mcp to 46,300 and isoagent/move to 39,900. Every pattern from outside (an MCP server's
 * schema, a model's search) froze the process on RegExp; loading the
 * engine on demand instead would make compileTool refuse most schemas with
 * a pattern until a load (compileTool is synchronous), and re2js, the
 * other candidate, is 50 KB alone and answers differently. Issue 26's lease
 * cover (a call that blocks the event loop up to its timeout keeps the
 * run's lease: the session renews for the timeout before the call, and
 * the gate before a preview) and ToolError's timedOut (a tool that stops
 * itself at its deadline is a timeout observation): +0.21 KB. Issue 27's
 * smaller root (80 exports; the rest in isoagent/driver, tools, schema,
 * json, journal, store, policy and testkit): the code only the names it no
 * longer exports use (lineDiff, checkArgs, the parser's wrappers,
 * manualClock, answerThenDrive) leaves the index, to 49,500; the driver
 * entry's code is the same. Issue 28's one path rule (src/paths.ts: the
 * workspace policy reads a path as the tools do, in NFC, which closed a
 * deny glob passed by a decomposed name): 49,471 -> 49,595 B; the
 * policy's two copies of the rule had compressed into each other. With
 * the run's view, the artifacts a journal names, the error contract and
 * the conflict rule each written once: 49,602 B, to 49,700. Issue 29's
 * conversations (the journal's v5 events and their reducer rules, the
 * status `idle`, Driver.send with its message checks and caps, stopTurn,
 * regenerate and close, the session's turn endings and limits per turn,
 * compaction that never folds an unanswered message, the late outcome of a
 * call a stop closed): +3.2 KB, index to 52,900 (52,836 B), driver to
 * 49,600 (49,509 B); isoagent/move reads v5 bundles (+0.9 KB, the events it
 * carries, to 40,800) and isoagent/otel marks turns on the run's span (to
 * 4,000). Loading the conversation operations on demand made the driver
 * entry larger, not smaller (+1.5 KB: two gzip streams), so they load with it.
 * The states a driver keeps for a run's next drive (a turn reads only what
 * was appended since) and snapshots spaced from the run's last one: +0.3 KB,
 * index to 53,200 (53,190 B), driver to 49,900 (49,868 B). isoagent/mcp's
 * run control gains a conversation's four tools (send, stop, regenerate,
 * close: their descriptions and schemas): +0.55 KB, to 46,900 (46,806 B).
 * The driver loads the bytes of a conversation's files for the agent's view
 * (+0.09 KB): index to 53,300 (53,284 B), driver to 50,000 (49,954 B).
 * Driver.send judging a message in one function (nextMessage: a duplicate,
 * a refusal or the append, instead of three branches): +31 B, index to
 * 53,400 (53,315 B). Structured final output (an answer checked against a
 * JSON Schema by the arguments' compiler, the refusal journaled and shown,
 * the schema taken from a builder, JSON or a Standard Schema, per run or
 * per message): +0.8 KB, index to 54,200 (54,116 B), driver to 50,900
 * (50,815 B), move to 40,900 (40,887 B: the reducer's new event).
 */
export const SIZE_BUDGET: Readonly<Record<keyof typeof SIZE_ENTRIES, number>> = {
  index: 54_200,
  driver: 50_900,
  // isoagent/mcp, isoagent/otel and isoagent/move, as measured when their budgets were set.
  mcp: 46_900,
  otel: 4_000,
  move: 40_900,
};

/** How far under its budget an entry may be before the budget must come down. */
export const SLACK_BYTES = 512;

export interface BudgetLine {
  readonly name: keyof typeof SIZE_ENTRIES;
  readonly bundle: SplitBundle;
  readonly budget: number;
  /** What is wrong, or undefined. */
  readonly problem: string | undefined;
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

/** Each entry against its budget. */
export async function checkBudget(): Promise<BudgetLine[]> {
  const lines: BudgetLine[] = [];
  for (const name of Object.keys(SIZE_ENTRIES) as (keyof typeof SIZE_ENTRIES)[]) {
    const bundle = await entryBundle(name);
    const budget = SIZE_BUDGET[name];
    const now = `${bundle.gzipBytes} bytes (${kb(bundle.gzipBytes)}) minified and gzipped`;
    const problem =
      bundle.gzipBytes > budget
        ? `${name} is ${now}, over its budget of ${budget} bytes (${kb(budget)})`
        : budget - bundle.gzipBytes > SLACK_BYTES
          ? `${name} is ${now}, more than ${SLACK_BYTES} bytes under its budget of ${budget}: lower SIZE_BUDGET.${name} in scripts/lib/size-budget.ts to ${bundle.gzipBytes} (it only ratchets down)`
          : undefined;
    lines.push({ name, bundle, budget, problem });
  }
  return lines;
}

/** One line per entry, as the build prints it. */
export function describeBudget(line: BudgetLine): string {
  const lazy = line.bundle.lazy.gzipBytes > 0 ? `; loaded on demand: ${kb(line.bundle.lazy.gzipBytes)}` : "";
  return `${line.name} (${SIZE_ENTRIES[line.name]}): ${kb(line.bundle.gzipBytes)} min+gz every load (${kb(line.bundle.minBytes)} minified), budget ${kb(line.budget)}${lazy}`;
}
