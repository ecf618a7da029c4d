/**
 * An offline-capable in-browser agent app: runs are kept in IndexedDB
 * (isoagent/idb), driven in this tab, and resumed when the page is reloaded.
 * The page lists runs, shows a run's journal live, and answers approvals,
 * showing what is asked: the tool, its arguments, its side effect and what
 * it touches. No framework, no eval (the page's CSP forbids it). With a
 * collector set under "Traces", the runs' spans are exported to it while the
 * browser is online (isoagent/otel), resuming after a reload where the
 * last export got; with none, nothing is exported.
 *
 * Served by the Worker (`npm start`, at /app/), it also reaches the edge
 * (isoagent/move): its runs are mirrored there as they grow (read-only in
 * the console), "Continue in the cloud" moves a run to the Worker (whose
 * operator decides again what was approved or asked here: the Worker trusts
 * no tab's key), "Take offline" brings one back, and a move cut by a closed
 * tab is settled when the page comes back (completed after its seal, rolled
 * back before it).
 */
import { idbCursor, idbStore } from "../../../adapters/idb/index.js";
import { createDriver, isIsoagentError, type ApprovalState, type JournalEvent, type JsonValue, type LeaseView, type RunId, type RunOutcome, type RunSummary } from "../../../src/index.js";
import { createIdempotent, idempotentRunId } from "../../../src/http/idempotency.js";
import { httpPlace, localPlace, mirrorRuns, moveRun, settleMove, toolShapes, type Mirror, type MirrorState, type MovePoint } from "../../../src/move/index.js";
import { agentFor, describeAgent, type ModelChoice } from "../../model.js";
import { DEMO_TASK, demoAgent as notesAgent } from "../../notes-agent.js";
import { exampleChat } from "./chat.js";
import { openWorkspace } from "./workspace.js";
import { startTraces } from "./traces.js";
import { previewView, typeCell } from "./view.js";

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

// ---- one run, many places (isoagent/move) ------------------------------------
// This browser's place name (all its tabs share the database, so it names the database, not a tab).
const PLACE_KEY = "isoagent-example-place";
const placeName = localStorage.getItem(PLACE_KEY) ?? `tab:${crypto.randomUUID().slice(0, 8)}`;
localStorage.setItem(PLACE_KEY, placeName);
const here = localPlace(store, { name: placeName, tools: toolShapes(workspace.tools), workspace: workspace.workspace });
// The edge: the Worker that serves this page (same origin; the console's session authorizes the page).
const servedByWorker = location.pathname.startsWith("/app/") && params.get("edge") !== "off";
const edge = servedByWorker ? httpPlace({ url: "", name: "edge" }) : undefined;
/** Runs being moved: the page's own drives leave them alone. */
const moving = new Set<RunId>();
let mirrorStates: MirrorState[] = [];
let edgeRuns: RunSummary[] = [];
let edgeNote = "";
/** What the last "Continue in the cloud" left for the edge's operator to decide again. */
let movedNote = "";
/** The crash tests stop a move at a point (`?movePause=after_seal`) while they kill the browser. */
const movePause = params.get("movePause") as MovePoint | null;
const moveFaults = {
  at: (point: MovePoint) => {
    if (point !== movePause) return;
    document.body.dataset["movePaused"] = point;
    return new Promise<void>(() => {});
  },
};

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const CHAT_TASK = "You keep the notes in this browser's workspace. Be brief.";
let selected: RunId | undefined = (params.get("run") as RunId | null) ?? undefined;
let driving = 0;
const chat = exampleChat({ driver, el, selected: () => selected, drive, refresh });

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
    case "run.moved":
      return `moved from ${e.from} to ${e.to} (epoch ${e.epoch})`;
    case "user.message":
      return `turn ${e.turn}: ${JSON.stringify(e.text)}`;
    case "turn.ended":
      return `turn ${e.turn} ${e.reason}${e.by === undefined ? "" : ` by ${e.by}`}`;
    case "turn.regenerated":
      return `turn ${e.turn} regenerated`;
    case "run.closed":
      return `closed by ${e.by}`;
    case "output.rejected":
      return `step ${e.step}'s answer refused: ${e.error.split("\n")[0]}`;
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

/**
 * Where a listed run's mirror at the edge stands: only the runs this
 * browser owns are mirrored ("up to date", "mirroring" while the edge is
 * behind, "offline", "stopped"); one that moved away is not ("moved away"),
 * nor a copy of a run owned elsewhere ("copy"). The count above the edge's
 * list counts the same runs, so the two agree.
 */
function mirrorOf(r: RunSummary): string {
  if (r.custody?.role === "moved") return "moved away";
  if (r.custody !== undefined) return "copy";
  const m = mirrorStates.find((x) => x.runId === r.runId);
  if (m?.stopped !== undefined) return "stopped";
  if (m !== undefined && m.acked !== undefined && m.acked >= r.seq) return "up to date";
  return m !== undefined && !m.online ? "offline" : "mirroring";
}

function renderRuns(runs: RunSummary[]): void {
  const list = $("runs");
  list.replaceChildren(
    ...runs.map((r) => {
      const item = el(
        "li",
        { "data-run": r.runId, "data-status": r.status, "data-custody": r.custody?.role ?? "owner", class: r.runId === selected ? "selected" : "" },
        el("span", { class: "id" }, r.runId),
        " ",
        el("span", { class: `status ${r.status}` }, r.status),
        " ",
        el("span", { class: "seq" }, `${r.seq} events`),
      );
      if (r.custody !== undefined) item.append(" ", el("span", { class: "custody" }, r.custody.role === "moved" ? `moved to ${r.custody.to}` : r.custody.role.replace("_", " ")));
      if (edge !== undefined) {
        const mirror = mirrorOf(r);
        item.dataset["mirror"] = mirror;
        if (r.custody === undefined)
          item.append(" ", el("span", { class: `mirror ${mirror.replace(/ /g, "-")}` }, mirror === "up to date" ? "mirrored" : mirror === "mirroring" ? "mirroring…" : `mirror ${mirror}`));
      }
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
    el(
      "dl",
      {},
      el("dt", {}, "tool"),
      el("dd", { class: "tool" }, r.tool),
      el("dt", {}, "side effect"),
      el("dd", { class: "side-effect" }, r.sideEffect),
      el("dt", {}, "touches"),
      el("dd", { class: "resources" }, r.resources.map((x) => `${x.kind} ${x.value}`).join(", ") || "nothing declared"),
      el("dt", {}, "request"),
      el("dd", { class: "hash" }, `${a.requestHash.slice(0, 16)}…`),
    ),
    el("pre", { class: "args" }, JSON.stringify(r.args, null, 2)),
    // What the call would change (a diff, for a write), as the tool previews it: the request's hash covers it.
    ...(r.preview === undefined ? [] : [el("div", { class: "label" }, "what it would change"), previewView(r.preview)]),
    el("div", { class: "buttons" }, approve, deny),
  );
}

async function renderRun(runId: RunId): Promise<void> {
  const state = await driver.state(runId);
  const events = await driver.events(runId);
  const custody = await store.custody!(runId);
  $("run-title").textContent = `${runId}: ${state.status}`;
  $("run").dataset["status"] = state.status;
  $("run").dataset["custody"] = custody?.role ?? "owner";
  $("lease").textContent =
    custody === undefined
      ? leaseLine(state.status, await driver.lease(runId))
      : custody.role === "moved"
        ? `moved to ${custody.to}: it is continued there (this copy takes nothing more)`
        : `a ${custody.role.replace("_", " ")} copy: owned elsewhere`;
  edgeHint(runId, custody?.role === "moved" ? custody.to : undefined);
  const movable = edge !== undefined && custody === undefined && (state.status === "running" || state.status === "waiting") && !moving.has(runId);
  $("continue").hidden = !movable;
  $("continue").dataset["run"] = runId;
  // Only the owner answers: a copy's approvals are answered where the run is (the console, for the edge).
  const pending = custody === undefined ? Object.values(state.approvals).filter((a) => a.status === "pending") : [];
  // Re-rendered only when what is asked changes: a button replaced under the
  // pointer between its mousedown and mouseup would swallow the click.
  const shown = `${runId} ${custody?.role ?? "owner"} ${pending.map((a) => a.approvalId).join(" ")}`;
  if ($("approvals").dataset["shown"] !== shown) {
    $("approvals").replaceChildren(...pending.map((a) => renderApproval(runId, a)));
    $("approvals").dataset["shown"] = shown;
  }
  // A conversation's bubbles and message box (chat.ts); only the owner talks, as only the owner answers.
  chat.show(runId, state, events, custody === undefined ? (moving.has(runId) ? "moving" : "") : "a copy");
  $("journal").replaceChildren(...events.map((e) => el("tr", { "data-type": e.type }, el("td", {}, String(e.seq)), typeCell(e.type), el("td", {}, line(e)))));
  const files = await workspace.files();
  $("files").replaceChildren(...files.map((f) => el("li", {}, el("strong", {}, f.path), el("pre", {}, f.content))));
}

async function render(): Promise<void> {
  const runs = await store.listRuns();
  selected ??= runs[0]?.runId;
  follow(selected);
  renderRuns(runs);
  if (selected !== undefined) await renderRun(selected);
  $("status").textContent = `${navigator.onLine ? "online" : "offline"} · this tab is ${owner} (place ${placeName}) · ${driving > 0 ? "driving" : "idle"}`;
  renderEdge(runs);
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
  expiryTimer = setTimeout(
    () => {
      expiryAt = Number.POSITIVE_INFINITY;
      if (driving === 0) void drive();
    },
    Math.max(0, at - Date.now()) + 50,
  );
}

async function drive(runId?: RunId): Promise<void> {
  if (runId !== undefined && moving.has(runId)) return;
  driving++;
  try {
    const outcomes: RunOutcome[] = runId !== undefined ? [await driver.resume(runId)] : await driver.driveAll();
    // A run another tab holds: taken over the moment its lease expires, if that tab is gone.
    for (const o of outcomes) if (o.stopped === "busy" && o.lease !== undefined && o.lease !== null) resumeAt(o.lease.expiresAt);
  } catch (e) {
    // A run that moved away (or is in transit) is not this tab's to drive.
    if (!isIsoagentError(e, "RUN_MOVED") && !isIsoagentError(e, "RUN_IN_TRANSIT") && !isIsoagentError(e, "RUN_MIRROR")) throw e;
  } finally {
    driving--;
    mirror?.notify();
    await refresh();
  }
}

// ---- the edge: mirror, moves, and settling what a closed tab cut -------------------

const mirror: Mirror | undefined =
  edge === undefined ? undefined : mirrorRuns({ store, to: edge, everyMs: 2000, onState: (st) => (mirrorStates = [...mirrorStates.filter((x) => x.runId !== st.runId), st]) });

/**
 * A run that moved to the edge is answered there: the page says so, with
 * what the edge says of it now (waiting for an approval, running, ended)
 * and a link to it in the console (same origin, where its operator answers).
 */
function edgeHint(runId: RunId, movedTo: string | undefined): void {
  const hint = $("edge-hint");
  if (edge === undefined || movedTo !== edge.name) {
    hint.hidden = true;
    hint.replaceChildren();
    delete hint.dataset["edgeStatus"];
    return;
  }
  const there = edgeRuns.find((r) => r.runId === runId)?.status;
  const said =
    there === "waiting"
      ? "where it waits for an approval: answer it in the console."
      : there === "completed" || there === "failed" || there === "cancelled"
        ? `where it ${there === "cancelled" ? "was cancelled" : there}: take it offline to bring it back here.`
        : there === "running"
          ? "where it runs now: what it asks is answered in the console."
          : "where what it asks is answered in the console.";
  hint.replaceChildren(`${runId} continues at the edge, ${said} `, el("a", { href: `/?run=${encodeURIComponent(runId)}`, target: "_blank", rel: "noopener" }, "Open it in the console"));
  hint.dataset["edgeStatus"] = there ?? "unknown";
  hint.hidden = false;
}

/** The mirror's count: of the listed runs, those owned here (the only ones mirrored), and what the others are. */
function renderEdge(runs: readonly RunSummary[]): void {
  if (edge === undefined) return;
  $("edge").hidden = false;
  const owned = runs.filter((r) => r.custody === undefined);
  const synced = owned.filter((r) => mirrorOf(r) === "up to date").length;
  const states = mirrorStates.filter((m) => owned.some((r) => r.runId === m.runId));
  const lags = states.flatMap((m) => (m.lagMs === undefined ? [] : [m.lagMs]));
  const moved = runs.filter((r) => r.custody?.role === "moved").length;
  const copies = runs.length - owned.length - moved;
  const others = [...(moved > 0 ? [`${moved} moved away`] : []), ...(copies > 0 ? [copies === 1 ? "1 is a copy of a run owned elsewhere" : `${copies} are copies of runs owned elsewhere`] : [])];
  $("mirror").textContent =
    `mirrored to the edge: ${synced} of ${owned.length} ${owned.length === 1 ? "run" : "runs"} owned here up to date${lags.length > 0 ? `, last lag ${Math.max(...lags)} ms` : ""}${states.some((m) => !m.online) ? " (offline: queued)" : ""}` +
    (others.length > 0 ? `; ${others.join(", ")}, not mirrored` : "");
  $("edge-note").textContent = [edgeNote, movedNote].filter((x) => x !== "").join(" · ");
  const list = $("edge-runs");
  list.replaceChildren(
    ...edgeRuns.map((r) => {
      const takeable = r.status !== "running" && !moving.has(r.runId);
      const item = el("li", { "data-run": r.runId, "data-status": r.status }, el("span", { class: "id" }, r.runId), " ", el("span", { class: `status ${r.status}` }, r.status));
      if (takeable) {
        const b = el("button", { class: "take-offline", "data-run": r.runId }, "Take offline");
        b.addEventListener("click", () => void takeOffline(r.runId));
        item.append(" ", b);
      }
      return item;
    }),
  );
}

/** The edge's runs it owns (those this page could take offline). */
async function loadEdge(): Promise<void> {
  if (edge === undefined) return;
  try {
    const res = await fetch("/runs?limit=50", { credentials: "same-origin" });
    if (res.status === 401) {
      edgeNote = "log in to the console (same origin) to mirror and move runs";
      edgeRuns = [];
      return;
    }
    const { runs } = (await res.json()) as { runs: RunSummary[] };
    edgeRuns = runs.filter((r) => r.custody === undefined);
    edgeNote = "";
  } catch {
    edgeNote = "the edge is out of reach: runs stay here, and their mirrors wait";
  }
}

/** "Continue in the cloud": the run moves to the Worker, which drives it from there. */
async function continueInCloud(runId: RunId): Promise<void> {
  if (edge === undefined) return;
  moving.add(runId);
  document.body.dataset["moving"] = runId;
  try {
    // Nobody here drives it while it moves (the move takes its lease: a drive under way in this tab ends first).
    await until(() => driving === 0);
    const moved = await moveRun(runId, here, edge, { faults: moveFaults });
    // The edge takes no decision from this tab (it trusts no key of a tab's): what was approved or asked here is asked again there.
    const n = moved.completed.reopened;
    movedNote = n === 0 ? "" : `${runId} continues at the edge, whose operator decides again the ${n === 1 ? "call" : `${n} calls`} approved or asked about here (see docs/moves.md, "Trust")`;
    document.body.dataset["moved"] = runId;
  } catch (e) {
    edgeNote = `the move of ${runId} did not finish: ${e instanceof Error ? e.message : String(e)}`;
    // Settled at once when the edge can be reached (rolled back before the seal, completed after it); otherwise when the page comes back.
    await settleMove(runId, here, edge).catch(() => {});
  } finally {
    moving.delete(runId);
    delete document.body.dataset["moving"];
    await loadEdge();
    await refresh();
  }
}

/** "Take offline": a run the Worker holds (waiting for the user, or ended) moves into this tab, and is driven here. */
async function takeOffline(runId: RunId): Promise<void> {
  if (edge === undefined) return;
  moving.add(runId);
  try {
    await moveRun(runId, edge, here, { faults: moveFaults });
    selected = runId;
    document.body.dataset["offline"] = runId;
  } catch (e) {
    edgeNote = `taking ${runId} offline did not finish: ${e instanceof Error ? e.message : String(e)}`;
    await settleMove(runId, here, edge).catch(() => {});
  } finally {
    moving.delete(runId);
    await loadEdge();
    void drive(runId);
  }
}

/**
 * Moves a closed tab (a crash, a kill) left between this browser and the
 * edge are settled when the page comes back: completed when the source
 * sealed the run, rolled back when it had not. Either way one place owns it.
 */
let unsettled = true;
async function settleMoves(): Promise<void> {
  if (edge === undefined) return;
  let failed = false;
  for (const r of await store.listRuns()) {
    const c = r.custody;
    if ((c?.role === "moved" && c.to !== edge.name) || c?.role === "mirror" || moving.has(r.runId)) continue;
    await settleMove(r.runId, here, edge, { prefer: "rollback" }).catch((e: unknown) => {
      failed = true;
      edgeNote = `could not settle the move of ${r.runId} yet (tried again while the page is open): ${e instanceof Error ? e.message : String(e)}`;
    });
  }
  // Until every cut move is settled (the edge out of reach, the console's session gone), it is tried again.
  unsettled = failed;
  document.body.dataset["settled"] = failed ? "pending" : "yes";
}

function until(ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = (): void => (ok() ? resolve() : void setTimeout(look, 50));
    look();
  });
}

$("continue").addEventListener("click", () => {
  const runId = $("continue").dataset["run"] as RunId | undefined;
  if (runId !== undefined) void continueInCloud(runId);
});

/**
 * Starting a run, safely retried: the click makes an idempotency key, kept
 * in sessionStorage with the task until the run is made, and the run's id is
 * derived from it (idempotentRunId). A retry of that start (a failed
 * transaction tried again, or a reload between the create's commit and this
 * tab hearing of it) names the same run, so it is found, not made twice.
 */
const PENDING_START = "isoagent-example-pending-start";
async function startRun(pending: { key: string; task: JsonValue; conversation?: boolean }): Promise<void> {
  sessionStorage.setItem(PENDING_START, JSON.stringify(pending));
  const runId = idempotentRunId(`isoagent-example:${dbName}`, pending.key);
  for (let attempt = 1; ; attempt++) {
    try {
      await createIdempotent(
        runId,
        pending.task,
        (id) => driver.create(pending.task, { runId: id, ...(pending.conversation === true ? { conversation: true } : {}) }),
        async (id) => (await driver.state(id)).task,
      );
      break;
    } catch (e) {
      // A transient store failure is tried again with the same key; anything else is shown.
      if (attempt >= 5 || !isIsoagentError(e, "STORE_UNAVAILABLE")) {
        sessionStorage.removeItem(PENDING_START);
        $("status").textContent = `could not start the run: ${e instanceof Error ? e.message : String(e)}`;
        return;
      }
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  sessionStorage.removeItem(PENDING_START);
  selected = runId;
  await refresh();
  await drive(runId);
}

$("start").addEventListener("click", () => void startRun({ key: crypto.randomUUID(), task: DEMO_TASK }));
// A conversation: its task is what the agent is told first; each message is then a turn (the demo agent takes each as a task).
$("start-chat").addEventListener("click", () => void startRun({ key: crypto.randomUUID(), task: CHAT_TASK, conversation: true }));

// A start this tab made but never saw through (a reload cut it short): tried again, with its key.
const pendingStart = ((): { key: string; task: JsonValue; conversation?: boolean } | undefined => {
  try {
    const p = JSON.parse(sessionStorage.getItem(PENDING_START) ?? "null") as { key?: unknown; task?: JsonValue; conversation?: unknown } | null;
    return p !== null && typeof p.key === "string" && p.task !== undefined ? { key: p.key, task: p.task, ...(p.conversation === true ? { conversation: true } : {}) } : undefined;
  } catch {
    return undefined;
  }
})();
if (pendingStart !== undefined) void startRun(pendingStart);

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
window.addEventListener("online", () => {
  void drive();
  mirror?.notify();
  void settleMoves();
});
if (edge !== undefined)
  setInterval(
    () =>
      void loadEdge()
        .then(async () => (unsettled ? settleMoves() : undefined))
        .then(refresh),
    2000,
  );
window.addEventListener("offline", () => void refresh());

// Traces: exported while online when a collector is set (see traces.ts), never otherwise.
startTraces({ store, cursor: () => idbCursor({ name: `${dbName}-otel` }), status: $("traces-status"), form: $("traces-form") });

// Offline: the service worker keeps the app shell, so a reload works without the network.
if ("serviceWorker" in navigator && params.get("sw") !== "off") {
  void navigator.serviceWorker.register("./sw.js").then(() => {
    document.body.dataset["sw"] = "registered";
  });
}

await settleMoves();
await loadEdge();
await refresh();
document.body.dataset["ready"] = "yes";
// A reload mid-run: whatever was running is resumed here.
void drive();
