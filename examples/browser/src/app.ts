/**
 * An offline-capable in-browser agent app: runs are kept in IndexedDB
 * (isoagent/idb), driven in this tab, and resumed when the page is reloaded.
 * The page lists runs, shows a run's journal live, and answers approvals,
 * showing what is asked: the tool, its arguments, its side effect and what
 * it touches. No framework, no eval (the page's CSP forbids it). With a
 * collector set under "Traces", the runs' spans are exported to it while the
 * browser is online (isoagent/otel), resuming after a reload where the
 * last export got; with none, nothing is exported.
 */
import { idbCursor, idbStore } from "../../../adapters/idb/index.js";
import { createDriver, type ApprovalState, type JournalEvent, type LeaseView, type RunId, type RunOutcome, type RunSummary } from "../../../src/index.js";
import { agentFor, describeAgent, type ModelChoice } from "../../model.js";
import { DEMO_TASK, demoAgent as notesAgent } from "../../notes-agent.js";
import { openWorkspace } from "./workspace.js";
import { startTraces } from "./traces.js";

const params = new URLSearchParams(location.search);
const dbName = params.get("db") ?? "isoagent-example";
const store = idbStore({ name: dbName });
const workspace = await openWorkspace(params.get("workspace") ?? "isoagent-example-workspace", Number(params.get("writeDelayMs") ?? 1500));
const owner = `tab-${crypto.randomUUID().slice(0, 8)}`;
// A real model when one is chosen on the page (the key stays in this browser's storage), else the scripted agent.
const MODEL_KEY = "isoagent-example-model";
const choice = ((): ModelChoice | undefined => {
  try {
    const c = JSON.parse(localStorage.getItem(MODEL_KEY) ?? "null") as ModelChoice | null;
    return c !== null && (c.provider === "openai" || c.provider === "anthropic") && c.apiKey !== "" ? c : undefined;
  } catch {
    return undefined;
  }
})();
const agent = choice === undefined ? notesAgent() : agentFor(choice, { browser: true });
const driver = createDriver({ store, agent, tools: workspace.tools, reconcile: workspace.reconcile, owner, leaseTtlMs: 3_000 });

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
let selected: RunId | undefined = (params.get("run") as RunId | null) ?? undefined;
let driving = 0;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function line(e: JournalEvent): string {
  switch (e.type) {
    case "run.created":
      return `task ${JSON.stringify(e.task)}`;
    case "run.resumed":
      return `driven by ${e.owner} (lease token ${e.token})`;
    case "step.decided":
      return e.decision.kind === "final" ? `step ${e.step}: final ${JSON.stringify(e.decision.output)}` : `step ${e.step}: ${e.decision.calls.map((c) => `${c.name} ${c.args}`).join(", ")}`;
    case "call.permission":
      return `${e.callId}: ${e.permission} (${e.source})`;
    case "approval.requested":
      return `${e.request.kind === "call" ? "approval" : "interrupted side effect"}: ${e.request.tool}`;
    case "approval.resolved":
      return `${e.decision} by ${e.by}${e.reason === undefined ? "" : `: ${e.reason}`}`;
    case "call.started":
      return `${e.callId} attempt ${e.attempt}`;
    case "call.finished":
      // The tool's activity line ("List notes/"), as the console shows it.
      return `${e.callId}: ${e.activity === undefined ? "" : `${e.activity} · `}${e.observation.type}${e.late === true ? " (late)" : ""}`;
    case "call.rejected":
      return `${e.callId}: ${e.observation.type}`;
    case "call.reconciled":
      return `${e.callId}: ${e.resolution} by ${e.by}`;
    case "call.reopened":
      return `${e.callId}: decided again (${e.reason})`;
    case "context.compacted":
      return `context compacted (${e.strategy}): items ${e.from}-${e.to} replaced by ${e.items.length}, about ${e.tokens.before} -> ${e.tokens.after} tokens`;
    case "run.completed":
      return `output ${JSON.stringify(e.output)}`;
    case "run.failed":
      return `${e.reason}: ${e.detail}`;
    case "run.cancelled":
      return `by ${e.by}`;
  }
}

/**
 * Who drives a run, by its lease (IndexedDB keeps it; every tab of this
 * origin shares it): this tab, another tab until its lease expires (then
 * this one takes over), or nobody (this tab resumes it).
 */
function leaseLine(status: string, lease: LeaseView | null): string {
  if (status !== "running") return "";
  if (lease === null) return "not driven right now: this tab resumes it";
  const until = new Date(lease.expiresAt).toLocaleTimeString();
  if (lease.holder === owner) return `running in this tab (${owner})`;
  if (lease.expiresAt > Date.now()) return `running in another tab (${lease.holder}) until ${until}; if that tab is gone, this one takes over then`;
  return `the lease of ${lease.holder} expired at ${until}: this tab takes the run over`;
}

function renderRuns(runs: RunSummary[]): void {
  const list = $("runs");
  list.replaceChildren(
    ...runs.map((r) => {
      const item = el("li", { "data-run": r.runId, "data-status": r.status, class: r.runId === selected ? "selected" : "" }, el("span", { class: "id" }, r.runId), " ", el("span", { class: `status ${r.status}` }, r.status), " ", el("span", { class: "seq" }, `${r.seq} events`));
      if (r.status === "running") item.title = leaseLine(r.status, r.lease);
      item.addEventListener("click", () => {
        selected = r.runId;
        void refresh();
      });
      return item;
    }),
  );
}

function renderApproval(runId: RunId, a: ApprovalState): HTMLElement {
  const r = a.request;
  const answer = async (approve: boolean): Promise<void> => {
    const by = "you (in the page)";
    if (approve) await driver.approve(runId, a.approvalId, { requestHash: a.requestHash, by });
    else await driver.deny(runId, a.approvalId, { requestHash: a.requestHash, by });
    void drive(runId);
  };
  const approve = el("button", { class: "approve", "data-approval": a.approvalId }, r.kind === "call" ? "Approve" : "Run it again");
  const deny = el("button", { class: "deny", "data-approval": a.approvalId }, r.kind === "call" ? "Deny" : "Record it as not done");
  approve.addEventListener("click", () => void answer(true));
  deny.addEventListener("click", () => void answer(false));
  return el(
    "section",
    { class: "approval", "data-approval": a.approvalId },
    el("h3", {}, r.kind === "call" ? `${r.tool} asks for approval` : `${r.tool} was interrupted: did it take effect?`),
    el("dl", {}, el("dt", {}, "tool"), el("dd", { class: "tool" }, r.tool), el("dt", {}, "side effect"), el("dd", { class: "side-effect" }, r.sideEffect), el("dt", {}, "touches"), el("dd", { class: "resources" }, r.resources.map((x) => `${x.kind} ${x.value}`).join(", ") || "nothing declared"), el("dt", {}, "request"), el("dd", { class: "hash" }, `${a.requestHash.slice(0, 16)}…`)),
    el("pre", { class: "args" }, JSON.stringify(r.args, null, 2)),
    // What the call would change (a diff, for a write), as the tool previews it: the request's hash covers it.
    ...(r.preview === undefined ? [] : [el("div", { class: "label" }, "what it would change"), el("pre", { class: "preview" }, r.preview)]),
    el("div", { class: "buttons" }, approve, deny),
  );
}

async function renderRun(runId: RunId): Promise<void> {
  const state = await driver.state(runId);
  const events = await driver.events(runId);
  $("run-title").textContent = `${runId}: ${state.status}`;
  $("run").dataset["status"] = state.status;
  $("lease").textContent = leaseLine(state.status, await driver.lease(runId));
  const pending = Object.values(state.approvals).filter((a) => a.status === "pending");
  // Re-rendered only when what is asked changes: a button replaced under the
  // pointer between its mousedown and mouseup would swallow the click.
  const shown = `${runId} ${pending.map((a) => a.approvalId).join(" ")}`;
  if ($("approvals").dataset["shown"] !== shown) {
    $("approvals").replaceChildren(...pending.map((a) => renderApproval(runId, a)));
    $("approvals").dataset["shown"] = shown;
  }
  $("journal").replaceChildren(...events.map((e) => el("tr", { "data-type": e.type }, el("td", {}, String(e.seq)), el("td", {}, e.type), el("td", {}, line(e)))));
  const files = await workspace.files();
  $("files").replaceChildren(...files.map((f) => el("li", {}, el("strong", {}, f.path), el("pre", {}, f.content))));
}

async function render(): Promise<void> {
  const runs = await store.listRuns();
  selected ??= runs[0]?.runId;
  follow(selected);
  renderRuns(runs);
  if (selected !== undefined) await renderRun(selected);
  $("status").textContent = `${navigator.onLine ? "online" : "offline"} · this tab is ${owner} · ${driving > 0 ? "driving" : "idle"}`;
  $("agent").textContent = `agent: ${describeAgent(choice, "a model below")}`;
}

/**
 * Renders the page, one render at a time (a slow machine would pile them
 * up, each one's reads slowing the runs' writes): a refresh asked for while
 * one is under way makes it render once more, then answers.
 */
let rendering: Promise<void> | undefined;
let renderAgain = false;
function refresh(): Promise<void> {
  if (rendering !== undefined) {
    renderAgain = true;
    return rendering;
  }
  rendering = (async () => {
    try {
      do {
        renderAgain = false;
        await render();
      } while (renderAgain);
    } finally {
      rendering = undefined;
    }
  })();
  return rendering;
}

/**
 * The selected run is followed as it is appended to, from this tab or any
 * other (the store tells: Store.watch, over a BroadcastChannel between
 * tabs), and as its agent streams: each change renders the page once more.
 */
let following: RunId | undefined;
let unfollow = (): void => {};
function follow(runId: RunId | undefined): void {
  if (runId === following) return;
  unfollow();
  following = runId;
  unfollow = runId === undefined ? () => {} : driver.watch(runId, () => void refresh());
}

/** Resumes every runnable run at `at` (a busy run's lease expiry), unless this tab is driving then (the loop below comes back). */
let expiryTimer: ReturnType<typeof setTimeout> | undefined;
let expiryAt = Number.POSITIVE_INFINITY;
function resumeAt(at: number): void {
  if (at >= expiryAt) return;
  clearTimeout(expiryTimer);
  expiryAt = at;
  expiryTimer = setTimeout(() => {
    expiryAt = Number.POSITIVE_INFINITY;
    if (driving === 0) void drive();
  }, Math.max(0, at - Date.now()) + 50);
}

async function drive(runId?: RunId): Promise<void> {
  driving++;
  try {
    const outcomes: RunOutcome[] = runId !== undefined ? [await driver.resume(runId)] : await driver.driveAll();
    // A run another tab holds: taken over the moment its lease expires, if that tab is gone.
    for (const o of outcomes) if (o.stopped === "busy" && o.lease !== undefined && o.lease !== null) resumeAt(o.lease.expiresAt);
  } finally {
    driving--;
    await refresh();
  }
}

$("start").addEventListener("click", () => {
  void (async () => {
    const runId = await driver.create(DEMO_TASK);
    selected = runId;
    await refresh();
    await drive(runId);
  })();
});

$("model-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const provider = ($("model-provider") as HTMLSelectElement).value;
  const apiKey = ($("model-key") as HTMLInputElement).value.trim();
  if (provider === "scripted" || apiKey === "") localStorage.removeItem(MODEL_KEY);
  else {
    const model = ($("model-name") as HTMLInputElement).value.trim() || (provider === "openai" ? "gpt-5-mini" : "claude-sonnet-4-5");
    localStorage.setItem(MODEL_KEY, JSON.stringify({ provider, model, apiKey }));
  }
  location.reload();
});

// Live: the selected run's journal is pushed (follow, above); the list, and
// what the clock changes (a lease's expiry), are looked at again every second.
setInterval(() => void refresh(), 1000);
// The resume loop: a run left by a closed (or reloaded) tab is taken over
// once its lease expires (see resumeAt), and anything runnable nobody holds
// (a failed drive, an answer given in another tab) is picked up here.
setInterval(() => {
  if (driving === 0) void drive();
}, 1000);
window.addEventListener("online", () => void drive());
window.addEventListener("offline", () => void refresh());

// Traces: exported while online when a collector is set (see traces.ts), never otherwise.
startTraces({ store, cursor: () => idbCursor({ name: `${dbName}-otel` }), status: $("traces-status"), form: $("traces-form") });

// Offline: the service worker keeps the app shell, so a reload works without the network.
if ("serviceWorker" in navigator && params.get("sw") !== "off") {
  void navigator.serviceWorker.register("./sw.js").then(() => {
    document.body.dataset["sw"] = "registered";
  });
}

await refresh();
document.body.dataset["ready"] = "yes";
// A reload mid-run: whatever was running is resumed here.
void drive();
