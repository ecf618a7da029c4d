/**
 * Context management: what the model is shown stays under a budget of
 * tokens. Before each request the driver estimates its size (the input
 * tokens of the last answer, exact from the journal, plus an estimate for
 * the items since); past the budget, a strategy compacts the transcript, and
 * the compaction is a journal event (`context.compacted`), so a resume or a
 * replay shows the model exactly what it was shown.
 *
 * - {@link trimContext}: deterministic. Old tool outputs are replaced by a
 *   one-line notice naming the artifact (SHA-256) that keeps them, oldest
 *   first, keeping the task, the decisions and the most recent outputs;
 *   when that is not enough, the oldest steps are folded into one notice.
 * - {@link summarizeContext}: a model (the run's agent, or another) writes
 *   a summary of the oldest steps; its answer is journaled in the event, so
 *   it is never asked twice. If it cannot answer, the trimmer runs instead.
 */
import type { Agent } from "../agents/index.js";
import type { JsonValue } from "../json/index.js";
import type { AnswerInfo, Observation, RunState, TranscriptItem } from "../journal/index.js";
import { encodeUtf8, type AbortSignalLike } from "../web.js";
import type { DriverContext } from "./context.js";
import { toAnswer } from "../call/gate.js";
import { isCrash } from "../call/crash.js";
import type { ContextOptions, ContextStrategy } from "./context-options.js";

export type { ContextOptions, ContextStrategy } from "./context-options.js";

/**
 * The deterministic trimmer: old outputs become notices naming their
 * artifacts; then, if needed, the oldest steps fold into one notice.
 * `keepRecent` outputs (and steps) are always kept as they are. Default 4.
 */
export function trimContext(options: { keepRecent?: number } = {}): ContextStrategy {
  return { kind: "trim", keepRecent: checkKeep(options.keepRecent) };
}

/**
 * The summarizer: a model writes a summary of the oldest steps (all but the
 * `keepRecent` latest, default 4). `agent` defaults to the run's own.
 */
export function summarizeContext(options: { agent?: Agent; keepRecent?: number; instructions?: string } = {}): ContextStrategy {
  return { kind: "summarize", keepRecent: checkKeep(options.keepRecent), agent: options.agent, instructions: options.instructions ?? SUMMARY_INSTRUCTIONS };
}

function checkKeep(k: number | undefined): number {
  const v = k ?? 4;
  if (!Number.isInteger(v) || v < 0 || v > 1000) throw new TypeError("keepRecent must be a whole number from 0 to 1,000");
  return v;
}

/** What the summarizing model is told, unless `instructions` says otherwise: a summary the agent can continue from, names and hashes kept exactly. */
export const SUMMARY_INSTRUCTIONS =
  "Summarize the steps below of an agent's work on the task, for the agent itself to continue from: what was done, what was found, what failed, and what is left. Keep names, paths, numbers and artifact hashes exactly. Answer with the summary alone.";

/** The share of the budget a compaction aims for, so it runs now and then, not at every step. */
const TARGET = 0.6;
/** Eliding that leaves the transcript above this share of the budget folds steps too. */
const FOLD_ABOVE = 0.8;

// ---- estimates -------------------------------------------------------------------

const tokensOfText = (text: string): number => Math.ceil(text.length / 4);
const itemTokens = new WeakMap<TranscriptItem, number>();

/** What an observation shows the model. */
function shownText(o: Observation): string {
  return o.type === "result" ? (typeof o.content === "string" ? o.content : JSON.stringify(o.content)) : o.error;
}

/** An item's estimated tokens (about four characters a token, and a few for its framing), memoized per item. */
export function tokensOf(item: TranscriptItem): number {
  let n = itemTokens.get(item);
  if (n === undefined) {
    switch (item.type) {
      case "task":
        n = tokensOfText(typeof item.task === "string" ? item.task : JSON.stringify(item.task));
        break;
      case "summary":
        n = tokensOfText(item.text);
        break;
      case "decision": {
        const d = item.decision;
        n = tokensOfText(d.text ?? "") + (d.kind === "calls" ? d.calls.reduce((s, c) => s + tokensOfText(c.name) + tokensOfText(c.args) + 8, 0) : tokensOfText(JSON.stringify(d.output)));
        break;
      }
      case "observation":
        n = tokensOfText(shownText(item.observation));
        break;
      case "user":
        n = tokensOfText(item.text) + (item.files?.length ?? 0) * 16;
        break;
      case "rejected":
        n = tokensOfText(item.error);
        break;
    }
    n += 8;
    itemTokens.set(item, n);
  }
  return n;
}

/**
 * How many real tokens one estimated token is, by the last answer: its exact
 * input tokens over the estimate of the same items (1 before any answer; at
 * least 1, at most 4).
 */
export function calibration(state: RunState, toolsTokens: number): number {
  const last = state.lastUsage;
  if (last === undefined || last.items > state.transcript.length) return 1;
  let n = toolsTokens;
  for (let k = 0; k < last.items; k++) n += tokensOf(state.transcript[k]!);
  return Math.min(4, Math.max(1, last.input / Math.max(1, n)));
}

/**
 * The estimated tokens of the next request: exact up to the last answer (or
 * the last compaction's calibrated figure), estimated for the items since,
 * scaled by the calibration.
 */
export function estimate(state: RunState, toolsTokens: number, factor = calibration(state, toolsTokens)): number {
  const t = state.transcript;
  const last = state.lastUsage;
  if (last !== undefined && last.items <= t.length) {
    let n = 0;
    for (let k = last.items; k < t.length; k++) n += tokensOf(t[k]!);
    return Math.ceil(last.input + n * factor);
  }
  let n = toolsTokens;
  for (const item of t) n += tokensOf(item);
  return Math.ceil(n * factor);
}

// ---- compaction ---------------------------------------------------------------------

/** What a compaction journals (the event's fields). */
export interface Compaction {
  readonly strategy: "trim" | "summarize";
  readonly from: number;
  readonly to: number;
  readonly items: TranscriptItem[];
  readonly artifacts: string[];
  readonly reason: "budget" | "provider";
  readonly tokens: { readonly before: number; readonly after: number };
  readonly answer?: AnswerInfo;
}

const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** The notice an elided output becomes (model-facing; pinned by a test). */
export function elisionNotice(bytes: number, artifact: string, readable: boolean): string {
  return `[Elided to stay within the context budget: this output (${count(bytes)} bytes) is kept as artifact sha256:${artifact}${readable ? "; call read_artifact with that sha256 to read it again" : ""}.]`;
}

/** The notice folded steps become under the trimmer (model-facing; pinned by a test). */
export function foldNotice(from: number, to: number): string {
  return `[Steps ${count(from)} to ${count(to)} are not shown, to stay within the context budget; the outputs they elided are kept as artifacts.]`;
}

/** The summary item's text under the summarizer (model-facing; pinned by a test). */
export function summaryNotice(from: number, to: number, summary: string): string {
  return `[Summary of steps ${count(from)} to ${count(to)}, written to stay within the context budget:]\n${summary}`;
}

/** An observation with its text replaced by the notice. */
function elided(o: Observation, artifact: string, bytes: number, notice: string): Observation {
  const elision = { artifact, bytes };
  if (o.type === "result") return { type: "result", content: notice, elided: elision };
  if (o.type === "tool_error") return { type: "tool_error", failure: o.failure, error: notice, elided: elision };
  return { type: o.type, error: notice, elided: elision };
}

/**
 * The steps of a transcript from `from`: each a decision with its
 * observations, by index, ending before `limit` (a conversation's message
 * the agent has not answered yet is never folded away). A user's message
 * ends a step; folding the steps around earlier ones folds them too.
 */
function stepsFrom(t: readonly TranscriptItem[], from: number, limit: number): { start: number; end: number; step: number }[] {
  const out: { start: number; end: number; step: number }[] = [];
  let open = false;
  for (let k = from; k < Math.min(limit, t.length); k++) {
    const item = t[k]!;
    if (item.type === "decision") {
      out.push({ start: k, end: k + 1, step: item.step });
      open = true;
    } else if (item.type === "user") open = false;
    else if (open) out[out.length - 1]!.end = k + 1;
  }
  return out;
}

/** Where folding must stop: before the message of a turn in progress (its answer is still owed). */
const foldLimit = (state: RunState): number => (state.conversation?.open === true && state.conversation.at !== undefined ? state.conversation.at : Infinity);

/** The event that turns `before` into `after`: the range between their common prefix and suffix (by identity). */
function diff(before: readonly TranscriptItem[], after: readonly TranscriptItem[]): { from: number; to: number; items: TranscriptItem[] } | undefined {
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p++;
  if (p === before.length && p === after.length) return undefined;
  let q = 0;
  while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q]) q++;
  return { from: p, to: before.length - q, items: after.slice(p, after.length - q) };
}

/**
 * Compacts the transcript: for the budget, down to 60% of it (or as far as
 * the strategy can); when the provider said the context was exceeded (our
 * numbers were wrong), to half the whole transcript's estimate, eliding
 * every output that a notice makes shorter. Undefined when there is nothing
 * to compact.
 */
export async function compact(
  ctx: DriverContext,
  state: RunState,
  options: ContextOptions,
  reason: "budget" | "provider",
  toolsTokens: number,
  signal: AbortSignalLike,
): Promise<Compaction | undefined> {
  const strategy = options.strategy ?? trimContext();
  const factor = calibration(state, toolsTokens);
  const before = estimate(state, toolsTokens, factor);
  const after = (t: readonly TranscriptItem[]): number => Math.ceil(estimateOf(t, toolsTokens) * factor);
  if (strategy.kind === "summarize") {
    const summarized = await summarize(ctx, state, strategy, signal);
    if (summarized !== undefined) return { ...summarized, reason, tokens: { before, after: after(summarized.transcript) } };
  }
  const half = Math.floor(estimateOf(state.transcript, toolsTokens) / 2);
  const trimmed =
    reason === "budget"
      ? await trim(ctx, state.transcript, strategy.keepRecent, (options.budgetTokens * TARGET) / factor, options.budgetTokens / factor, toolsTokens, foldLimit(state))
      : await trim(ctx, state.transcript, 0, half, half, toolsTokens, foldLimit(state));
  if (trimmed === undefined) return undefined;
  const d = diff(state.transcript, trimmed.transcript);
  if (d === undefined) return undefined;
  return { strategy: "trim", ...d, artifacts: trimmed.artifacts, reason, tokens: { before, after: after(trimmed.transcript) } };
}

const estimateOf = (t: readonly TranscriptItem[], toolsTokens: number): number => t.reduce((n, item) => n + tokensOf(item), toolsTokens);

/** The trimmer, in estimated tokens (the caller scales `target` and `budget` by the calibration). */
async function trim(
  ctx: DriverContext,
  before: readonly TranscriptItem[],
  keepRecent: number,
  target: number,
  budget: number,
  toolsTokens: number,
  limit: number,
): Promise<{ transcript: TranscriptItem[]; artifacts: string[] } | undefined> {
  const t = [...before];
  const artifacts: string[] = [];
  let tokens = estimateOf(t, toolsTokens);
  const readable = ctx.exposedNames.includes("read_artifact");
  // Phase 1: elide old outputs, oldest first, keeping the most recent ones.
  const outputs = t.map((item, k) => (item.type === "observation" ? k : -1)).filter((k) => k >= 0);
  const elidable = outputs.slice(0, Math.max(0, outputs.length - keepRecent));
  for (const k of elidable) {
    if (tokens <= target) break;
    const item = t[k] as Extract<TranscriptItem, { type: "observation" }>;
    const o = item.observation;
    if (o.elided !== undefined) continue;
    const text = shownText(o);
    const kept = o.type === "result" || o.type === "tool_error" ? o.truncated : undefined;
    const bytes = kept !== undefined && kept.artifact !== "" ? kept.totalBytes : encodeUtf8(text).length;
    const notice = elisionNotice(bytes, "0".repeat(64), readable);
    if (notice.length >= text.length) continue;
    const artifact = kept !== undefined && kept.artifact !== "" ? kept.artifact : (await ctx.store.putArtifact(encodeUtf8(text))).sha256;
    const next = { ...item, observation: elided(o, artifact, bytes, elisionNotice(bytes, artifact, readable)) };
    tokens += tokensOf(next) - tokensOf(item);
    t[k] = next;
    if (!artifacts.includes(artifact)) artifacts.push(artifact);
  }
  // Phase 2, only when eliding left less than a fifth of the budget free
  // (folding hides what the notices named, which read_artifact still finds
  // in the journal; compacting again every few steps would cost more): fold
  // the oldest steps into one notice, keeping the most recent ones.
  if (tokens > budget * FOLD_ABOVE || (tokens > target && target < budget / 2)) {
    const first = t[1]?.type === "summary" ? 2 : 1;
    const steps = stepsFrom(t, first, limit);
    const foldable = steps.slice(0, Math.max(0, steps.length - Math.max(1, keepRecent)));
    let end = first;
    let last = 0;
    for (const s of foldable) {
      if (tokens <= target) break;
      for (let k = s.start; k < s.end; k++) tokens -= tokensOf(t[k]!);
      end = s.end;
      last = s.step;
    }
    if (end > first) {
      const prior = t[1]?.type === "summary" ? t[1] : undefined;
      // The first folded step (in a conversation, a message may come before it).
      const from = prior?.steps.from ?? steps[0]!.step;
      const summary: TranscriptItem = { type: "summary", text: foldNotice(from, last), steps: { from, to: last } };
      t.splice(1, end - 1, summary);
    }
  }
  return { transcript: t, artifacts };
}

/** A plain rendering of steps for a summarizing model. */
function rendered(items: readonly TranscriptItem[]): string {
  return items
    .map((item) => {
      if (item.type === "summary") return item.text;
      if (item.type === "task") return `Task: ${typeof item.task === "string" ? item.task : JSON.stringify(item.task)}`;
      if (item.type === "decision") {
        const d = item.decision;
        const said = d.text === undefined || d.text === "" ? "" : `${d.text}\n`;
        return d.kind === "calls" ? `Step ${item.step}: ${said}${d.calls.map((c) => `called ${c.name} ${c.args}`).join("\n")}` : `Step ${item.step}: answered ${JSON.stringify(d.output)}`;
      }
      if (item.type === "user") return `The user said: ${item.text}`;
      if (item.type === "rejected") return `Step ${item.step}'s answer was refused: ${item.error}`;
      return `Result of ${item.name}: ${shownText(item.observation)}`;
    })
    .join("\n\n");
}

async function summarize(
  ctx: DriverContext,
  state: RunState,
  strategy: Extract<ContextStrategy, { kind: "summarize" }>,
  signal: AbortSignalLike,
): Promise<(Omit<Compaction, "reason" | "tokens"> & { transcript: TranscriptItem[] }) | undefined> {
  const t = state.transcript;
  const first = t[1]?.type === "summary" ? 2 : 1;
  const steps = stepsFrom(t, first, foldLimit(state));
  const fold = steps.slice(0, Math.max(0, steps.length - Math.max(1, strategy.keepRecent)));
  if (fold.length === 0) return undefined;
  const end = fold[fold.length - 1]!.end;
  const prior = t[1]?.type === "summary" ? t[1] : undefined;
  const from = prior?.steps.from ?? fold[0]!.step;
  const to = fold[fold.length - 1]!.step;
  const agent = strategy.agent ?? ctx.agent;
  let output: JsonValue;
  let answer: AnswerInfo | undefined;
  try {
    const task = `${strategy.instructions}\n\n${rendered([t[0]!, ...t.slice(1, end)])}`;
    const d = await agent.decide({ task, tools: [], transcript: [{ type: "task", task }], step: 0 }, { signal });
    if (d?.kind !== "final") return undefined;
    output = d.output;
    answer = toAnswer(d.answer);
  } catch (e) {
    if (isCrash(e) || signal.aborted) throw e;
    // The trimmer compacts instead: deterministic, and it needs no model.
    return undefined;
  }
  const text = typeof output === "string" ? output : JSON.stringify(output);
  if (text.trim() === "") return undefined;
  const summary: TranscriptItem = { type: "summary", text: summaryNotice(from, to, text), steps: { from, to } };
  const transcript = [t[0]!, summary, ...t.slice(end)];
  return { strategy: "summarize", from: 1, to: end, items: [summary], artifacts: [], ...(answer === undefined ? {} : { answer }), transcript };
}
