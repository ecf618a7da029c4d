// The isoagent operator console. Plain DOM; untrusted text goes through textContent.
// Type-checked against the journal's and the store's own types (console/tsconfig.json,
// with the DOM's), and bundled into the string the HTTP app serves by
// scripts/console.ts (src/http/console-script.ts; test/http/console-script.test.ts
// holds the two to each other). Imports here are types, and console/chat.ts (bundled in): the page loads nothing else.
import { chatPane } from "./chat.js";
import type { ApprovalRequest, ApprovalResolved, ApprovalState, JournalEvent, RunStatus } from "../src/journal/index.js";
import type { Custody, LeaseView, RunSummary } from "../src/store/index.js";
import type { JsonValue } from "../src/json/index.js";

// What the API answers, as this page reads it (src/http/wire.ts's view, and the list's rows).
interface RunView {
  readonly runId: string;
  readonly status: RunStatus;
  readonly seq: number;
  readonly step: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly task: JsonValue;
  readonly output?: JsonValue;
  readonly failure?: { readonly reason: string; readonly detail: string };
  readonly problem?: { readonly code: string; readonly message: string };
  readonly traceId: string;
  readonly approvals: readonly ApprovalState[];
  readonly lease: LeaseView | null;
  readonly custody?: Custody | null;
  /** A conversation (v5): its turns, and whether one is in progress. */
  readonly conversation?: { readonly turn: number; readonly open: boolean };
}
type RunRow = RunSummary & { readonly title?: string; readonly custody?: Custody | null };
interface ErrorBody {
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}
interface Progress {
  readonly step: number;
  readonly text: string;
  readonly calls: readonly { readonly name?: string; readonly args: string }[];
}
interface Pending {
  readonly key: string;
  readonly task: JsonValue;
  readonly conversation?: boolean;
}

// The page's elements by id: each is there (CONSOLE_HTML), so a missing one is a bug that throws.
function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error("the console page has no #" + id);
  return node as T;
}
const button = (id: string) => $<HTMLButtonElement>(id);
const PAGE = 20;
let selected = new URLSearchParams(location.search).get("run");
let source: EventSource | null = null;
let lastSeq = 0;
// The run list: its status filter, and the cursors of the pages before this one (the first page has none).
let filter = "";
let cursors: string[] = [];
let next: string | null = null;
// The journal of the selected run, by seq (a row opens its event), and its approval requests by id.
let events = new Map<number, JournalEvent>();
let requests = new Map<string, { request: ApprovalRequest; requestHash: string }>();
// Answers that come back out of turn are dropped, not painted: which run is
// followed (bumped on every pick), and the last request of each kind painted.
let generation = 0;
let runTicket = 0;
let runPainted = 0;
let listTicket = 0;
let listPainted = 0;
function dropped() {
  document.body.dataset.stale = String(Number(document.body.dataset.stale || 0) + 1);
}

type Child = Node | string;
function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

// A refusal of the API, as the operator reads it: "CODE: message" (the server's own words), or why no answer came.
class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status: number) {
    super(code + ": " + message);
    this.code = code;
    this.status = status;
  }
}
const refusal = (res: Response, body: ErrorBody | null | undefined): ApiError =>
  new ApiError(
    (body && body.error && typeof body.error.code === "string" && body.error.code) || "HTTP_" + res.status,
    (body && body.error && typeof body.error.message === "string" && body.error.message) || res.statusText || "no message",
    res.status,
  );
const unreachable = (e: unknown): ApiError => new ApiError("NETWORK", "the server could not be reached (" + (e instanceof Error ? e.message : String(e)) + ")", 0);

async function api<T = Record<string, unknown>>(path: string, init?: RequestInit & { headers?: Record<string, string> }): Promise<T> {
  let res;
  try {
    res = await fetch(path, { credentials: "same-origin", ...(init || {}), headers: { "content-type": "application/json", ...((init || {}).headers || {}) } });
  } catch (e) {
    throw unreachable(e);
  }
  // The session expired or was ended: log in again.
  if (res.status === 401) {
    location.replace("/login");
    throw new ApiError("UNAUTHORIZED", "the session ended: log in again", 401);
  }
  const body: unknown = await res.json().catch(() => ({}));
  if (!res.ok) throw refusal(res, body as ErrorBody);
  return body as T;
}

// What went wrong with something the operator did to the selected run, where they look: "Could not approve: CODE: message".
// A load's failure is cleared by the next load that works; an action's stays until the next action or another run.
let runErrorKind: "" | "load" | "action" = "";
function runError(verb: string, e: unknown, runId: string, kind?: "load" | "action"): void {
  $("run-error").textContent = "Could not " + verb + (runId !== selected ? " (run " + runId + ")" : "") + ": " + (e instanceof Error ? e.message : String(e));
  runErrorKind = kind ?? "action";
}
function clearRunError() {
  $("run-error").textContent = "";
  runErrorKind = "";
}

const post = (path: string, body: Record<string, unknown>) => api(path, { method: "POST", body: JSON.stringify(body) });
// The conversation pane (console/chat.ts): bubbles from the journal, a message box and the turn's controls.
const chat = chatPane({
  $,
  el,
  post: (path, body) => post(path, body as Record<string, unknown>),
  selected: () => selected,
  failed: (verb, e, runId) => runError(verb, e, runId),
  reload: () => loadRun(),
});

// A time as people read it: the time of day today, the date and time otherwise.
function when(ms: number): string {
  const d = new Date(ms);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleDateString() + " " + d.toLocaleTimeString();
}

function describe(e: JournalEvent): string {
  switch (e.type) {
    case "run.created":
      return "task " + JSON.stringify(e.task);
    case "run.resumed":
      return "driven by " + e.owner + " (lease token " + e.token + ")" + (e.took ? ", taken over from " + e.took.holder + ", who never let it go" : "");
    case "step.decided":
      return e.decision.kind === "final" ? "step " + e.step + ": final " + JSON.stringify(e.decision.output) : "step " + e.step + ": " + e.decision.calls.map((c) => c.name + " " + c.args).join(", ");
    case "call.permission":
      return e.callId + ": " + e.permission + " (" + e.source + ")" + (e.reason ? " " + e.reason : "");
    case "approval.requested":
      return (e.request.kind === "call" ? "approval asked: " : e.request.sideEffect === "read_only" ? "interrupted call: " : "interrupted side effect: ") + e.request.tool;
    case "approval.resolved":
      return e.decision + " by " + e.by + (e.reason ? ": " + e.reason : "") + (e.answer !== undefined ? ": " + JSON.stringify(e.answer) : "");
    case "call.started":
      return e.callId + " attempt " + e.attempt;
    case "call.finished":
      return e.callId + ": " + (e.activity ? e.activity + " · " : "") + e.observation.type + (e.late ? " (late)" : "");
    case "call.rejected":
      return e.callId + ": " + e.observation.type;
    case "call.reconciled":
      return e.callId + ": " + e.resolution + " by " + e.by + (e.reason ? " (" + e.reason + ")" : "");
    case "call.reopened":
      return e.callId + ": decided again (" + e.reason + ")";
    case "context.compacted":
      return e.strategy + ": items " + e.from + "-" + e.to + " replaced by " + e.items.length + ", about " + e.tokens.before + " -> " + e.tokens.after + " tokens";
    case "run.completed":
      return "output " + JSON.stringify(e.output);
    case "run.failed":
      return e.reason + ": " + e.detail;
    case "run.cancelled":
      return "by " + e.by + (e.reason ? ": " + e.reason : "");
    case "run.moved":
      return "moved from " + e.from + " to " + e.to + " (epoch " + e.epoch + ")";
    case "user.message":
      return "turn " + e.turn + ": " + JSON.stringify(e.text) + (e.files ? " (" + e.files.length + " files)" : "");
    case "turn.ended":
      return "turn " + e.turn + " " + e.reason + (e.by ? " by " + e.by : "") + (e.detail ? ": " + e.detail : "");
    case "turn.regenerated":
      return "turn " + e.turn + " regenerated";
    case "run.closed":
      return "closed by " + e.by + (e.reason ? ": " + e.reason : "");
    case "output.rejected":
      return "step " + e.step + "'s answer refused: " + e.error.split("\n")[0];
    default:
      return "";
  }
}

// The artifacts an event names (an output kept whole, outputs a compaction elided), wherever they sit in it.
function artifactsOf(e: JournalEvent): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, key?: string): void => {
    if (typeof v === "string") {
      if ((key === "artifact" || key === "artifacts") && /^[0-9a-f]{64}$/.test(v)) found.add(v);
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key === "artifacts" ? key : undefined);
      return;
    }
    if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(e);
  return [...found];
}

// ---- the run list: filtered by status, by page -------------------------------

function listPath() {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (filter) q.set("status", filter);
  const before = cursors[cursors.length - 1];
  if (before !== undefined) q.set("before", before);
  return "/runs?" + q.toString();
}

function holderText(r: RunRow): string {
  if (!r.lease || (r.status !== "running" && r.status !== "waiting")) return "";
  return (r.lease.expiresAt > Date.now() ? "driven by " : "lease expired: ") + r.lease.holder + (r.lease.expiresAt > Date.now() ? " until " : " at ") + when(r.lease.expiresAt);
}

function runItem(r: RunRow): HTMLLIElement {
  const li = el(
    "li",
    { "data-run": r.runId, "data-status": r.status, class: r.runId === selected ? "selected" : "" },
    el("div", { class: "line" }, el("span", { class: "title" }, r.title || r.runId), el("span", { class: "badge " + r.status }, r.status)),
    el(
      "div",
      { class: "meta" },
      el("span", { class: "started", title: new Date(r.createdAt).toISOString() }, "started " + when(r.createdAt)),
      " · ",
      el("span", { class: "updated", title: new Date(r.updatedAt).toISOString() }, "updated " + when(r.updatedAt)),
    ),
  );
  const holder = holderText(r);
  if (holder) li.append(el("div", { class: "meta holder" }, holder));
  if (r.custody) li.append(el("span", { class: "badge custody", "data-custody": r.custody.role }, custodyText(r)));
  li.append(el("div", { class: "meta id" }, r.runId));
  if (r.lease && r.status === "running") li.title = leaseText(r);
  li.addEventListener("click", () => {
    selected = r.runId;
    follow();
    void showRuns();
  });
  return li;
}

// A page of the list is painted only when it is the page asked for now (the filter and page it was asked for) and no later one was painted.
async function loadRuns() {
  const path = listPath();
  const ticket = ++listTicket;
  const page = await api<{ runs: RunRow[]; next?: string }>(path).catch((e: unknown) => {
    if (path !== listPath() || ticket < listPainted) {
      dropped();
      return null;
    }
    throw e;
  });
  if (page === null) return;
  if (path !== listPath() || ticket < listPainted) return dropped();
  listPainted = ticket;
  next = page.next ?? null;
  if (!selected && page.runs[0] !== undefined) selected = page.runs[0].runId;
  $("runs").replaceChildren(...page.runs.map(runItem));
  if (page.runs.length === 0) $("runs").append(el("li", { class: "empty" }, filter ? "no " + filter + " runs" + (cursors.length > 0 ? " on this page" : "") : "no runs yet"));
  button("newer").disabled = cursors.length === 0;
  button("older").disabled = next === null;
  $("page").textContent = "page " + (cursors.length + 1);
}

// The list read now (a pick, a filter, a page): a failure says why where the connection is shown.
function showRuns(): Promise<void> {
  return loadRuns().then(
    () => {
      $("status").textContent = "connected";
    },
    (e: unknown) => {
      $("status").textContent = "Could not load the runs: " + (e instanceof Error ? e.message : String(e));
    },
  );
}
$("filter").addEventListener("change", () => {
  filter = $<HTMLSelectElement>("filter").value;
  cursors = [];
  void showRuns();
});
$("older").addEventListener("click", () => {
  if (next) {
    cursors.push(next);
    void showRuns();
  }
});
$("newer").addEventListener("click", () => {
  cursors.pop();
  void showRuns();
});

// A form starts a run: its task is the text as written (a JSON object or
// array is sent as JSON). One Idempotency-Key per run asked for, kept in
// sessionStorage with its task until the server answers, so every retry (a
// dropped connection, a 5xx, a reload mid-create) names the same run.
const PENDING = "isoagent-console-pending-create";
async function createRun(pending: Pending): Promise<void> {
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  $("new-status").textContent = "starting…";
  let last: ApiError | null = null;
  for (let attempt = 1; ; attempt++) {
    let res: Response | null;
    try {
      res = await fetch("/runs", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "idempotency-key": pending.key },
        body: JSON.stringify({ task: pending.task, ...(pending.conversation ? { conversation: true } : {}) }),
      });
    } catch (e) {
      res = null;
      last = unreachable(e);
    }
    if (res && res.status === 401) {
      location.replace("/login");
      return;
    }
    if (res && (res.ok || res.status < 500) && res.status !== 429) {
      sessionStorage.removeItem(PENDING);
      const body = (await res.json().catch(() => ({}))) as ErrorBody & { runId?: string };
      if (!res.ok) {
        $("new-status").textContent = "Could not start the run: " + refusal(res, body).message;
        return;
      }
      $<HTMLTextAreaElement>("task").value = "";
      selected = body.runId ?? null;
      filter = "";
      $<HTMLSelectElement>("filter").value = "";
      cursors = [];
      await showRuns();
      follow();
      $("new-status").textContent = res.headers.get("idempotent-replayed") ? "started (answered on a retry)" : "started";
      return;
    }
    if (res) last = refusal(res, (await res.json().catch(() => ({}))) as ErrorBody);
    if (attempt >= 6) {
      $("new-status").textContent = "Could not start the run yet: " + (last?.message ?? "no answer") + "; it is tried again on reload";
      return;
    }
    $("new-status").textContent = "retrying (" + attempt + ")…";
    await new Promise((r) => setTimeout(r, Math.min(8000, 250 * 2 ** attempt)));
  }
}
$("new-run").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $<HTMLTextAreaElement>("task").value.trim();
  if (!text) return;
  let task: JsonValue = text;
  if (/^[[{]/.test(text)) {
    try {
      task = JSON.parse(text) as JsonValue;
    } catch {
      task = text;
    }
  }
  // (getRandomValues, not randomUUID: the latter needs a secure context.)
  const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  void createRun({ key, task, conversation: $<HTMLInputElement>("as-conversation").checked });
});
// A create this tab sent but never heard back from (a reload cut it short): sent again, with its key.
try {
  const p = JSON.parse(sessionStorage.getItem(PENDING) ?? "null") as Pending | null;
  if (p && p.key) void createRun(p);
} catch {
  sessionStorage.removeItem(PENDING);
}

// ---- a run: approvals, its history, the journal ------------------------------

// A pending approval, answerable unless why (not empty) says why this place cannot answer it (then shown, its controls disabled, with the reason).
function approvalView(runId: string, a: ApprovalState, why: string): HTMLElement {
  const r = a.request;
  // One answer at a time: the controls wait for the server's word, and a refusal is shown in words.
  const answer = async (verb: string, body: Record<string, unknown>, path: string): Promise<void> => {
    buttons.disabled = true;
    clearRunError();
    try {
      await post(path, body);
    } catch (e) {
      runError(verb, e, runId);
    }
    buttons.disabled = why !== "";
    await loadRun();
  };
  const answerPath = "/runs/" + encodeURIComponent(runId) + "/approvals/" + encodeURIComponent(a.approvalId);
  const buttons = el("fieldset", { class: "buttons" });
  const args = (r.args ?? {}) as { choices?: string[]; question?: string };
  if (r.kind === "call" && r.wantsAnswer) {
    // A question for a person (ask_user): the answer goes with the approval.
    const input = el("input", { class: "answer", placeholder: "Your answer" });
    const send = el("button", { class: "approve" }, "Answer");
    const decline = el("button", { class: "deny" }, "Decline to answer");
    for (const choice of args.choices ?? []) {
      const b = el("button", { class: "choice neutral" }, choice);
      b.addEventListener("click", () => {
        input.value = choice;
      });
      buttons.append(b);
    }
    send.addEventListener("click", () => void answer("answer", { decision: "approve", requestHash: a.requestHash, by: "console", answer: input.value }, answerPath));
    decline.addEventListener("click", () => void answer("decline to answer", { decision: "deny", requestHash: a.requestHash, by: "console" }, answerPath));
    buttons.append(input, send, decline);
  } else if (r.kind === "call") {
    const approve = el("button", { class: "approve" }, "Approve");
    const deny = el("button", { class: "deny" }, "Deny…");
    // Deny asks why: the reason is journaled and the agent is told it.
    const reason = el("input", { class: "reason", placeholder: "Why deny it? The agent is told.", maxlength: "4096" });
    const confirm = el("button", { class: "confirm-deny deny" }, "Deny with this reason");
    const back = el("button", { class: "neutral back" }, "Back");
    const asking = el("div", { class: "deny-reason", hidden: "" }, reason, confirm, back);
    approve.addEventListener("click", () => void answer("approve", { decision: "approve", requestHash: a.requestHash, by: "console" }, answerPath));
    deny.addEventListener("click", () => {
      asking.hidden = false;
      approve.disabled = true;
      deny.disabled = true;
      reason.focus();
    });
    back.addEventListener("click", () => {
      asking.hidden = true;
      approve.disabled = false;
      deny.disabled = false;
    });
    confirm.addEventListener("click", () => {
      if (!reason.value.trim()) {
        reason.classList.add("missing");
        reason.focus();
        return;
      }
      void answer("deny", { decision: "deny", requestHash: a.requestHash, by: "console", reason: reason.value.trim() }, answerPath);
    });
    reason.addEventListener("keydown", (ev: KeyboardEvent) => {
      if (ev.key === "Enter") confirm.click();
    });
    buttons.append(approve, deny, asking);
  } else {
    // A read_only call asked about (interrupted too often) has no effect to look for.
    const again = el("button", { class: "run-again" }, r.sideEffect === "read_only" ? "Run it again" : "It did not happen: run it again");
    const done = el("button", { class: "record-result neutral" }, "It happened: record it as done");
    const failed = el("button", { class: "record-failure deny" }, "It did not happen: record it as failed");
    const unknown = el("button", { class: "mark-unknown neutral" }, "Cannot tell: the outcome is unknown");
    const settle = (verb: string, resolution: string, content?: JsonValue) =>
      answer(
        verb,
        { approvalId: a.approvalId, requestHash: a.requestHash, resolution, by: "console", ...(content === undefined ? {} : { content }) },
        "/runs/" + encodeURIComponent(runId) + "/reconcile",
      );
    again.addEventListener("click", () => void settle("run it again", "run_again"));
    done.addEventListener("click", () => void settle("record it as done", "record_result", { recorded_by: "operator" }));
    failed.addEventListener("click", () => void settle("record it as failed", "record_failure"));
    unknown.addEventListener("click", () => void settle("mark it unknown", "mark_unknown"));
    buttons.append(again, done, failed, unknown);
  }
  const section = el(
    "section",
    { class: "approval", "data-approval": a.approvalId, "data-kind": r.kind },
    el(
      "h3",
      {},
      r.kind === "call"
        ? r.wantsAnswer
          ? "The agent asks: " + String(args.question)
          : r.tool + " asks for approval"
        : r.tool + " was interrupted" + (r.attempt > 1 ? " " + r.attempt + " times" : "") + (r.sideEffect === "read_only" ? ": run it again?" : ": did it take effect?"),
    ),
    requestDetails(r, a.requestHash),
  );
  if (why !== "") {
    buttons.disabled = true;
    for (const b of buttons.querySelectorAll<HTMLElement>("button, input")) b.title = why;
    section.append(el("p", { class: "blocked-here" }, why));
  }
  section.append(buttons);
  return section;
}

// What was asked: the same whether pending or decided (the decided ones stay in the run's history).
function requestDetails(r: ApprovalRequest, requestHash: string): HTMLElement {
  const rows: [string, string][] = [
    ["tool", r.tool],
    ["side effect", r.sideEffect],
    ["touches", r.resources.map((x) => x.kind + " " + x.value + (x.operation ? " (" + x.operation + ")" : "")).join(", ") || "nothing declared"],
    ["call", r.callId + " (step " + r.step + ", attempt " + r.attempt + ")"],
    ["request", requestHash],
  ];
  if (r.idempotencyKey) rows.push(["idempotency key", r.idempotencyKey]);
  // How the last attempt ended (v4): who held the run and when its lease ran out; the limit, when one was reached.
  const i = r.interrupted;
  if (i)
    rows.push([
      "interrupted",
      r.attempt +
        (r.attempt === 1 ? " time" : " times") +
        (i.limit ? " (the limit is " + i.limit + ")" : "") +
        "; last: " +
        (i.cause === "released"
          ? "its driver let the run go without recording an outcome"
          : i.holder + " stopped without releasing the run, its lease " + (i.cause === "lease_expired" ? "expired " : "taken over, due ") + when(i.expiresAt ?? NaN)) +
        (i.startedAt ? "; started " + when(i.startedAt) : ""),
    ]);
  if (r.policyVersion) rows.push(["policy", r.policyVersion]);
  if (r.note) rows.push(["note", r.note]);
  const dl = el("dl", {});
  for (const [k, v] of rows) dl.append(el("dt", {}, k), el("dd", { class: k.replace(" ", "-") }, v));
  const box = el("div", {}, dl, el("div", {}, "arguments"), el("pre", { class: "args" }, JSON.stringify(r.args, null, 2)));
  if (r.preview) box.append(el("div", {}, "what it would change"), previewView(r.preview));
  return box;
}

// A tool's preview, its unified diffs coloured line by line (file headers,
// hunk headers, added, removed, context, "\ No newline" notes), read by the
// hunks' own counts so that a removed "-- x" line is never taken for a
// header; anything else (a shell's dry run, an MCP server's notes) as it is.
// The text is the preview's, unchanged: each line is a span of its own.
function previewView(text: string): HTMLPreElement {
  const pre = el("pre", { class: "preview" });
  const lines = text.split("\n");
  let older = 0;
  let newer = 0;
  let inDiff = false;
  let header = false;
  lines.forEach((line, k) => {
    let kind = "";
    if (older > 0 || newer > 0) {
      const c = line[0];
      if (c === "+" && newer > 0) {
        kind = "add";
        newer--;
      } else if (c === "-" && older > 0) {
        kind = "del";
        older--;
      } else if (c === " " && older > 0 && newer > 0) {
        kind = "ctx";
        older--;
        newer--;
      } else if (c === "\\") kind = "note";
      else {
        older = 0;
        newer = 0;
      }
    }
    if (kind === "") {
      const hunk = inDiff ? /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line) : null;
      if (header) {
        kind = "file";
        header = false;
      } else if (line.startsWith("--- ") && (lines[k + 1] || "").startsWith("+++ ")) {
        kind = "file";
        header = true;
        inDiff = true;
      } else if (hunk) {
        kind = "hunk";
        older = hunk[1] === undefined ? 1 : Number(hunk[1]);
        newer = hunk[2] === undefined ? 1 : Number(hunk[2]);
      } else if (inDiff && line.startsWith("\\ ")) kind = "note";
    }
    const piece = line + (k < lines.length - 1 ? "\n" : "");
    if (piece !== "") pre.append(kind === "" ? piece : el("span", { class: "d-" + kind }, piece));
  });
  return pre;
}

// The run's decided approvals, with what was shown (the diff) and who answered: kept after the answer.
function decided(e: ApprovalResolved): void {
  const asked = requests.get(e.approvalId);
  if (!asked) return;
  const r = asked.request;
  const verdict = (e.decision === "approve" ? "approved" : "denied") + " by " + e.by + (e.reason ? ": " + e.reason : "") + (e.answer !== undefined ? ": " + JSON.stringify(e.answer) : "");
  const item = el(
    "details",
    { class: "decided " + e.decision, "data-approval": e.approvalId },
    el("summary", {}, r.tool + " (" + r.callId + ", step " + r.step + "): ", el("span", { class: "verdict" }, verdict)),
    requestDetails(r, asked.requestHash),
  );
  $("history-list").append(item);
  $("history").hidden = false;
}

// A journal row opens its full event (as stored, so already redacted), and links the artifacts it names.
function toggleEvent(row: HTMLTableRowElement, e: JournalEvent): void {
  const open = row.nextElementSibling && row.nextElementSibling.classList.contains("event") ? row.nextElementSibling : null;
  if (open) {
    open.remove();
    row.classList.remove("open");
    return;
  }
  const cell = el("td", { colspan: "3" }, el("pre", { class: "event-json" }, JSON.stringify(e, null, 2)));
  const shas = artifactsOf(e);
  if (shas.length > 0) {
    const list = el("ul", { class: "artifacts" });
    for (const sha of shas)
      list.append(
        el(
          "li",
          {},
          el("a", { href: "/runs/" + encodeURIComponent(selected ?? "") + "/artifacts/" + sha, target: "_blank", rel: "noopener", class: "artifact" }, "artifact " + sha.slice(0, 16) + "…"),
        ),
      );
    cell.append(el("div", {}, "artifacts"), list);
  }
  const opened = el("tr", { class: "event", "data-seq": String(e.seq) }, cell);
  row.after(opened);
  row.classList.add("open");
  // The event opens below its row, often past the bottom of the window: brought into view.
  opened.scrollIntoView({ block: "nearest" });
}

// An event's type, breakable only after its dots ("approval." / "requested"), never inside a word.
function typeCell(type: string): HTMLTableCellElement {
  const td = el("td", { class: "type" });
  type.split(".").forEach((part, k, parts) => {
    td.append(part + (k < parts.length - 1 ? "." : ""));
    if (k < parts.length - 1) td.append(el("wbr", {}));
  });
  return td;
}

function journalRow(e: JournalEvent): HTMLTableRowElement {
  const row = el(
    "tr",
    { "data-type": e.type, "data-seq": String(e.seq), class: "row", tabindex: "0", title: "show the whole event" },
    el("td", {}, String(e.seq)),
    typeCell(e.type),
    el("td", {}, el("pre", {}, describe(e))),
  );
  row.addEventListener("click", () => toggleEvent(row, e));
  row.addEventListener("keydown", (ev: KeyboardEvent) => {
    if (ev.key === "Enter") toggleEvent(row, e);
  });
  return row;
}

// Who drives a run (its lease is store state, by the store's clock): "busy"
// runs are driven elsewhere until their lease expires; then any driver (a
// Durable Object's alarm) takes them over.
// A copy of a run owned elsewhere (isoagent/move): a mirror of a browser's
// run, with its lag (how long after its last event was written there it
// arrived here), a run in transit, or one that moved away.
function custodyText(r: { readonly custody?: Custody | null; readonly updatedAt: number }): string {
  const c = r.custody;
  if (!c) return "";
  if (c.role === "moved") return "moved to " + c.to;
  if (c.role === "in_transit") return "in transit";
  return "mirror, lag " + Math.max(0, c.received - r.updatedAt) + " ms";
}

function leaseText(run: { readonly status: RunStatus; readonly lease?: LeaseView | null }): string {
  if (run.status !== "running") return "";
  const l = run.lease;
  if (!l) return "not driven right now: it will be resumed (by its alarm, or the next driver)";
  const until = new Date(l.expiresAt).toLocaleTimeString();
  return l.expiresAt > Date.now()
    ? "running in another driver (" + l.holder + ") until " + until + "; if it stops renewing its lease, the run is taken over then"
    : "the lease of " + l.holder + " expired at " + until + ": it will be taken over";
}

const ENDED = new Set<RunStatus>(["completed", "failed", "cancelled"]);

// Why this place cannot change the run (a copy owned elsewhere, or a run that ended), or "" when its operator can.
function blockedWhy(run: RunView): string {
  const c = run.custody;
  if (c && c.role === "mirror") return "Read-only here: this is a mirror of a run owned elsewhere, which answers and cancels it.";
  if (c && c.role === "in_transit") return "Read-only here: this run is in transit, and is driven, answered and cancelled here once its source seals the move.";
  if (c && c.role === "moved") return "Read-only here: this run moved to " + c.to + ", which answers and cancels it.";
  if (ENDED.has(run.status)) return "This run " + (run.status === "cancelled" ? "was cancelled" : run.status) + ": what it asked can no longer be answered.";
  return "";
}

// The selected run, painted only while it is still the one selected and no later answer about it was painted.
async function loadRun() {
  const runId = selected;
  if (!runId) return;
  const ticket = ++runTicket;
  let run: RunView;
  try {
    run = (await api<{ run: RunView }>("/runs/" + encodeURIComponent(runId))).run;
  } catch (e) {
    if (runId !== selected || ticket < runPainted) return dropped();
    runError("load the run", e, runId, "load");
    return;
  }
  if (runId !== selected || ticket < runPainted) return dropped();
  runPainted = ticket;
  if (runErrorKind === "load") clearRunError();
  const why = blockedWhy(run);
  $("run-title").textContent = run.runId + ": " + run.status;
  $("run").dataset.status = run.status;
  $("run-task").textContent = typeof run.task === "string" ? run.task : JSON.stringify(run.task, null, 2);
  $("run-times").textContent = "started " + when(run.createdAt) + " · updated " + when(run.updatedAt);
  $("summary").textContent =
    run.output !== undefined ? "output: " + JSON.stringify(run.output) : run.failure ? "failed: " + run.failure.reason + " — " + run.failure.detail : "step " + run.step + ", " + run.seq + " events";
  if (run.problem) $("summary").append(el("div", { class: "problem" }, "cannot be driven: " + run.problem.code + ": " + run.problem.message));
  if (run.custody) $("summary").append(el("div", { class: "custody" }, custodyText(run)));
  $("run").dataset.custody = run.custody ? run.custody.role : "owner";
  // Said once, above everything that cannot be used (for an ended run, only when it still lists what it asked).
  $("blocked").textContent = why;
  $("blocked").hidden = why === "" || (!run.custody && run.approvals.length === 0);
  $("trace").replaceChildren("trace ", el("a", { href: "/runs/" + encodeURIComponent(run.runId) + "/trace", target: "_blank", rel: "noopener" }, run.traceId));
  $("lease").textContent = leaseText(run);
  // Re-rendered only when what is asked changes: every journal event reloads
  // the run, and a section replaced under the operator would drop the answer
  // being typed, or a click between its mousedown and mouseup.
  const shown = run.runId + " " + run.approvals.map((a) => a.approvalId).join(" ") + " " + why;
  if ($("approvals").dataset.shown !== shown) {
    $("approvals").replaceChildren(...run.approvals.map((a) => approvalView(run.runId, a, why)));
    $("approvals").dataset.shown = shown;
  }
  // Cancel is for a run that has not ended, and only where the run is owned.
  $("cancel").hidden = ENDED.has(run.status);
  button("cancel").disabled = why !== "";
  $("cancel").title = why;
  $("verify").hidden = false;
  chat.run(run, why);
}

// The run's hash chain, verified again by the server from the first event.
// Its answer is shown only while the same run is followed (picking a run clears it).
$("verify").addEventListener(
  "click",
  () =>
    void (async () => {
      if (!selected) return;
      const asked = generation;
      const out = $("verified");
      out.className = "";
      out.textContent = "verifying…";
      try {
        const v = await api<{ ok: boolean; events?: number; head?: string; seq?: number; problem?: string }>("/runs/" + encodeURIComponent(selected) + "/verify");
        if (asked !== generation) return dropped();
        out.className = v.ok ? "ok" : "bad";
        out.textContent = v.ok
          ? "hash chain verified: " + String(v.events) + " events, head " + (v.head ?? "").slice(0, 16) + "…"
          : "hash chain broken at event " + String(v.seq) + ": " + String(v.problem);
      } catch (e) {
        if (asked !== generation) return dropped();
        out.className = "bad";
        out.textContent = "Could not verify the hash chain: " + (e instanceof Error ? e.message : String(e));
      }
    })(),
);

function follow() {
  if (source) source.close();
  generation++;
  clearRunError();
  $("journal").replaceChildren();
  $("history-list").replaceChildren();
  $("history").hidden = true;
  $("progress").hidden = true;
  $("verified").textContent = "";
  $("approvals").dataset.shown = "";
  lastSeq = 0;
  events = new Map();
  requests = new Map();
  chat.reset();
  if (!selected) return;
  void loadRun();
  // Live, pushed by the server as the run is appended to, and resumed by the browser from the last event id after a drop.
  source = new EventSource("/runs/" + encodeURIComponent(selected) + "/events");
  source.addEventListener("journal", (m: MessageEvent<string>) => {
    const e = JSON.parse(m.data) as JournalEvent;
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    events.set(e.seq, e);
    $("journal").append(journalRow(e));
    if (e.type === "approval.requested") requests.set(e.approvalId, { request: e.request, requestHash: e.requestHash });
    if (e.type === "approval.resolved") decided(e);
    if (e.type === "step.decided") $("progress").hidden = true;
    chat.event(e);
    void loadRun();
  });
  // What a streaming model has said so far in the step it decides (not journaled).
  source.addEventListener("progress", (m: MessageEvent<string>) => {
    const p = JSON.parse(m.data) as Progress;
    $("progress-step").textContent = String(p.step);
    $("progress-text").textContent = p.text + p.calls.map((c) => "\n→ " + (c.name || "…") + " " + c.args).join("");
    $("progress").hidden = false;
  });
  source.addEventListener("end", () => {
    source?.close();
    void loadRun();
    void showRuns();
  });
}

$("cancel").addEventListener(
  "click",
  () =>
    void (async () => {
      const runId = selected;
      if (!runId) return;
      const asked = generation;
      button("cancel").disabled = true;
      clearRunError();
      try {
        await post("/runs/" + encodeURIComponent(runId) + "/cancel", { by: "console" });
      } catch (e) {
        runError("cancel the run", e, runId);
      }
      // Another run picked meanwhile has its own button, set by its own load.
      if (asked !== generation) return;
      button("cancel").disabled = false;
      await loadRun();
    })(),
);

// Logged out only when the server says so: a refused logout leaves the session open, and says why.
$("logout").addEventListener(
  "click",
  () =>
    void (async () => {
      $("page-error").textContent = "";
      try {
        await api("/logout", { method: "POST" });
      } catch (e) {
        $("page-error").textContent = "Could not log out: " + (e instanceof Error ? e.message : String(e));
        return;
      }
      location.replace("/login");
    })(),
);

const tick = showRuns;
await tick();
follow();
// The list is looked at again every few seconds (the selected run's journal is pushed).
setInterval(() => void tick(), 3000);
document.body.dataset.ready = "yes";
