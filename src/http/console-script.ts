/**
 * The operator console's script: plain DOM, no framework, no eval, loaded
 * as a module under the console's CSP. Untrusted text is written with
 * textContent. It lists runs (title, status, times, lease holder; filtered
 * by status, by page), starts a run (retried with its Idempotency-Key),
 * follows the selected run's journal as
 * the server pushes it (server-sent events, resumed from the last event
 * seen), opens a journal row's whole event with the artifacts it names,
 * keeps decided approvals with what they showed, asks a reason before a
 * denial, and asks the server to verify the run's hash chain.
 */

export const CONSOLE_JS = `// The isoagent operator console. Plain DOM; untrusted text goes through textContent.
const $ = (id) => document.getElementById(id);
const PAGE = 20;
let selected = new URLSearchParams(location.search).get("run");
let source = null;
let lastSeq = 0;
// The run list: its status filter, and the cursors of the pages before this one (the first page has none).
let filter = "";
let cursors = [];
let next = null;
// The journal of the selected run, by seq (a row opens its event), and its approval requests by id.
let events = new Map();
let requests = new Map();

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

async function api(path, init) {
  const res = await fetch(path, { credentials: "same-origin", ...(init || {}), headers: { "content-type": "application/json", ...((init || {}).headers || {}) } });
  // The session expired or was ended: log in again.
  if (res.status === 401) { location.replace("/login"); throw new Error("not logged in"); }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error((body.error && body.error.message) || res.statusText);
  return body;
}

const post = (path, body) => api(path, { method: "POST", body: JSON.stringify(body) });

// A time as people read it: the time of day today, the date and time otherwise.
function when(ms) {
  const d = new Date(ms);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleDateString() + " " + d.toLocaleTimeString();
}

function describe(e) {
  switch (e.type) {
    case "run.created": return "task " + JSON.stringify(e.task);
    case "run.resumed": return "driven by " + e.owner + " (lease token " + e.token + ")";
    case "step.decided": return e.decision.kind === "final" ? "step " + e.step + ": final " + JSON.stringify(e.decision.output) : "step " + e.step + ": " + e.decision.calls.map((c) => c.name + " " + c.args).join(", ");
    case "call.permission": return e.callId + ": " + e.permission + " (" + e.source + ")" + (e.reason ? " " + e.reason : "");
    case "approval.requested": return (e.request.kind === "call" ? "approval asked: " : "interrupted side effect: ") + e.request.tool;
    case "approval.resolved": return e.decision + " by " + e.by + (e.reason ? ": " + e.reason : "") + (e.answer !== undefined ? ": " + JSON.stringify(e.answer) : "");
    case "call.started": return e.callId + " attempt " + e.attempt;
    case "call.finished": return e.callId + ": " + (e.activity ? e.activity + " · " : "") + e.observation.type + (e.late ? " (late)" : "");
    case "call.rejected": return e.callId + ": " + e.observation.type;
    case "call.reconciled": return e.callId + ": " + e.resolution + " by " + e.by + (e.reason ? " (" + e.reason + ")" : "");
    case "call.reopened": return e.callId + ": decided again (" + e.reason + ")";
    case "context.compacted": return e.strategy + ": items " + e.from + "-" + e.to + " replaced by " + e.items.length + ", about " + e.tokens.before + " -> " + e.tokens.after + " tokens";
    case "run.completed": return "output " + JSON.stringify(e.output);
    case "run.failed": return e.reason + ": " + e.detail;
    case "run.cancelled": return "by " + e.by + (e.reason ? ": " + e.reason : "");
    case "run.moved": return "moved from " + e.from + " to " + e.to + " (epoch " + e.epoch + ")";
    default: return "";
  }
}

// The artifacts an event names (an output kept whole, outputs a compaction elided), wherever they sit in it.
function artifactsOf(e) {
  const found = new Set();
  const walk = (v, key) => {
    if (typeof v === "string") { if ((key === "artifact" || key === "artifacts") && /^[0-9a-f]{64}$/.test(v)) found.add(v); return; }
    if (Array.isArray(v)) { for (const x of v) walk(x, key === "artifacts" ? key : undefined); return; }
    if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(e);
  return [...found];
}

// ---- the run list: filtered by status, by page -------------------------------

function listPath() {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (filter) q.set("status", filter);
  if (cursors.length > 0) q.set("before", cursors[cursors.length - 1]);
  return "/runs?" + q.toString();
}

function holderText(r) {
  if (!r.lease || (r.status !== "running" && r.status !== "waiting")) return "";
  return (r.lease.expiresAt > Date.now() ? "driven by " : "lease expired: ") + r.lease.holder + (r.lease.expiresAt > Date.now() ? " until " : " at ") + when(r.lease.expiresAt);
}

function runItem(r) {
  const li = el("li", { "data-run": r.runId, "data-status": r.status, class: r.runId === selected ? "selected" : "" },
    el("div", { class: "line" }, el("span", { class: "title" }, r.title || r.runId), el("span", { class: "badge " + r.status }, r.status)),
    el("div", { class: "meta" }, el("span", { class: "started", title: new Date(r.createdAt).toISOString() }, "started " + when(r.createdAt)), " · ", el("span", { class: "updated", title: new Date(r.updatedAt).toISOString() }, "updated " + when(r.updatedAt))));
  const holder = holderText(r);
  if (holder) li.append(el("div", { class: "meta holder" }, holder));
  if (r.custody) li.append(el("span", { class: "badge custody", "data-custody": r.custody.role }, custodyText(r)));
  li.append(el("div", { class: "meta id" }, r.runId));
  if (r.lease && r.status === "running") li.title = leaseText(r);
  li.addEventListener("click", () => { selected = r.runId; follow(); loadRuns(); });
  return li;
}

async function loadRuns() {
  const page = await api(listPath());
  next = page.next || null;
  if (!selected && page.runs.length > 0) selected = page.runs[0].runId;
  $("runs").replaceChildren(...page.runs.map(runItem));
  if (page.runs.length === 0) $("runs").append(el("li", { class: "empty" }, filter ? "no " + filter + " runs" + (cursors.length > 0 ? " on this page" : "") : "no runs yet"));
  $("newer").disabled = cursors.length === 0;
  $("older").disabled = next === null;
  $("page").textContent = "page " + (cursors.length + 1);
}

$("filter").addEventListener("change", () => { filter = $("filter").value; cursors = []; loadRuns(); });
$("older").addEventListener("click", () => { if (next) { cursors.push(next); loadRuns(); } });
$("newer").addEventListener("click", () => { cursors.pop(); loadRuns(); });

// A form starts a run: its task is the text as written (a JSON object or
// array is sent as JSON). One Idempotency-Key per run asked for, kept in
// sessionStorage with its task until the server answers, so every retry (a
// dropped connection, a 5xx, a reload mid-create) names the same run.
const PENDING = "isoagent-console-pending-create";
async function createRun(pending) {
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  $("new-status").textContent = "starting…";
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await fetch("/runs", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json", "idempotency-key": pending.key }, body: JSON.stringify({ task: pending.task }) });
    } catch (e) {
      res = null;
    }
    if (res && res.status === 401) { location.replace("/login"); return; }
    if (res && (res.ok || res.status < 500) && res.status !== 429) {
      sessionStorage.removeItem(PENDING);
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { $("new-status").textContent = (body.error && body.error.message) || res.statusText; return; }
      $("task").value = "";
      selected = body.runId;
      filter = "";
      $("filter").value = "";
      cursors = [];
      await loadRuns().catch(() => {});
      follow();
      $("new-status").textContent = res.headers.get("idempotent-replayed") ? "started (answered on a retry)" : "started";
      return;
    }
    if (attempt >= 6) { $("new-status").textContent = "not started yet: the server did not answer; it is tried again on reload"; return; }
    $("new-status").textContent = "retrying (" + attempt + ")…";
    await new Promise((r) => setTimeout(r, Math.min(8000, 250 * 2 ** attempt)));
  }
}
$("new-run").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = $("task").value.trim();
  if (!text) return;
  let task = text;
  if (/^[[{]/.test(text)) { try { task = JSON.parse(text); } catch (e) { task = text; } }
  // (getRandomValues, not randomUUID: the latter needs a secure context.)
  const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  createRun({ key, task });
});
// A create this tab sent but never heard back from (a reload cut it short): sent again, with its key.
try { const p = JSON.parse(sessionStorage.getItem(PENDING) || "null"); if (p && p.key) createRun(p); } catch (e) { sessionStorage.removeItem(PENDING); }

// ---- a run: approvals, its history, the journal ------------------------------

function approvalView(runId, a) {
  const r = a.request;
  const answer = async (body, path) => {
    try { await post(path, body); } catch (e) { alert(e.message); }
    await loadRun();
  };
  const answerPath = "/runs/" + encodeURIComponent(runId) + "/approvals/" + encodeURIComponent(a.approvalId);
  const buttons = el("div", { class: "buttons" });
  if (r.kind === "call" && r.wantsAnswer) {
    // A question for a person (ask_user): the answer goes with the approval.
    const input = el("input", { class: "answer", placeholder: "Your answer" });
    const send = el("button", { class: "approve" }, "Answer");
    const decline = el("button", { class: "deny" }, "Decline to answer");
    for (const choice of r.args.choices || []) {
      const b = el("button", { class: "choice neutral" }, choice);
      b.addEventListener("click", () => { input.value = choice; });
      buttons.append(b);
    }
    send.addEventListener("click", () => answer({ decision: "approve", requestHash: a.requestHash, by: "console", answer: input.value }, answerPath));
    decline.addEventListener("click", () => answer({ decision: "deny", requestHash: a.requestHash, by: "console" }, answerPath));
    buttons.append(input, send, decline);
  } else if (r.kind === "call") {
    const approve = el("button", { class: "approve" }, "Approve");
    const deny = el("button", { class: "deny" }, "Deny…");
    // Deny asks why: the reason is journaled and the agent is told it.
    const reason = el("input", { class: "reason", placeholder: "Why deny it? The agent is told.", maxlength: "4096" });
    const confirm = el("button", { class: "confirm-deny deny" }, "Deny with this reason");
    const back = el("button", { class: "neutral back" }, "Back");
    const asking = el("div", { class: "deny-reason", hidden: "" }, reason, confirm, back);
    approve.addEventListener("click", () => answer({ decision: "approve", requestHash: a.requestHash, by: "console" }, answerPath));
    deny.addEventListener("click", () => { asking.hidden = false; approve.disabled = true; deny.disabled = true; reason.focus(); });
    back.addEventListener("click", () => { asking.hidden = true; approve.disabled = false; deny.disabled = false; });
    confirm.addEventListener("click", () => {
      if (!reason.value.trim()) { reason.classList.add("missing"); reason.focus(); return; }
      answer({ decision: "deny", requestHash: a.requestHash, by: "console", reason: reason.value.trim() }, answerPath);
    });
    reason.addEventListener("keydown", (ev) => { if (ev.key === "Enter") confirm.click(); });
    buttons.append(approve, deny, asking);
  } else {
    const again = el("button", { class: "run-again" }, "It did not happen: run it again");
    const done = el("button", { class: "record-result neutral" }, "It happened: record it as done");
    const failed = el("button", { class: "record-failure deny" }, "It did not happen: record it as failed");
    const unknown = el("button", { class: "mark-unknown neutral" }, "Cannot tell: the outcome is unknown");
    const settle = (resolution, content) => answer({ approvalId: a.approvalId, requestHash: a.requestHash, resolution, by: "console", ...(content === undefined ? {} : { content }) }, "/runs/" + encodeURIComponent(runId) + "/reconcile");
    again.addEventListener("click", () => settle("run_again"));
    done.addEventListener("click", () => settle("record_result", { recorded_by: "operator" }));
    failed.addEventListener("click", () => settle("record_failure"));
    unknown.addEventListener("click", () => settle("mark_unknown"));
    buttons.append(again, done, failed, unknown);
  }
  const section = el("section", { class: "approval", "data-approval": a.approvalId, "data-kind": r.kind },
    el("h3", {}, r.kind === "call" ? (r.wantsAnswer ? "The agent asks: " + r.args.question : r.tool + " asks for approval") : r.tool + " was interrupted: did it take effect?"),
    requestDetails(r, a.requestHash));
  section.append(buttons);
  return section;
}

// What was asked: the same whether pending or decided (the decided ones stay in the run's history).
function requestDetails(r, requestHash) {
  const rows = [["tool", r.tool], ["side effect", r.sideEffect], ["touches", r.resources.map((x) => x.kind + " " + x.value + (x.operation ? " (" + x.operation + ")" : "")).join(", ") || "nothing declared"], ["call", r.callId + " (step " + r.step + ", attempt " + r.attempt + ")"], ["request", requestHash]];
  if (r.idempotencyKey) rows.push(["idempotency key", r.idempotencyKey]);
  if (r.policyVersion) rows.push(["policy", r.policyVersion]);
  if (r.note) rows.push(["note", r.note]);
  const dl = el("dl", {});
  for (const [k, v] of rows) dl.append(el("dt", {}, k), el("dd", { class: k.replace(" ", "-") }, v));
  const box = el("div", {}, dl, el("div", {}, "arguments"), el("pre", { class: "args" }, JSON.stringify(r.args, null, 2)));
  if (r.preview) box.append(el("div", {}, "what it would change"), el("pre", { class: "preview" }, r.preview));
  return box;
}

// The run's decided approvals, with what was shown (the diff) and who answered: kept after the answer.
function decided(e) {
  const asked = requests.get(e.approvalId);
  if (!asked) return;
  const r = asked.request;
  const verdict = (e.decision === "approve" ? "approved" : "denied") + " by " + e.by + (e.reason ? ": " + e.reason : "") + (e.answer !== undefined ? ": " + JSON.stringify(e.answer) : "");
  const item = el("details", { class: "decided " + e.decision, "data-approval": e.approvalId },
    el("summary", {}, r.tool + " (" + r.callId + ", step " + r.step + "): ", el("span", { class: "verdict" }, verdict)),
    requestDetails(r, asked.requestHash));
  $("history-list").append(item);
  $("history").hidden = false;
}

// A journal row opens its full event (as stored, so already redacted), and links the artifacts it names.
function toggleEvent(row, e) {
  const open = row.nextElementSibling && row.nextElementSibling.classList.contains("event") ? row.nextElementSibling : null;
  if (open) { open.remove(); row.classList.remove("open"); return; }
  const cell = el("td", { colspan: "3" }, el("pre", { class: "event-json" }, JSON.stringify(e, null, 2)));
  const shas = artifactsOf(e);
  if (shas.length > 0) {
    const list = el("ul", { class: "artifacts" });
    for (const sha of shas) list.append(el("li", {}, el("a", { href: "/runs/" + encodeURIComponent(selected) + "/artifacts/" + sha, target: "_blank", rel: "noopener", class: "artifact" }, "artifact " + sha.slice(0, 16) + "…")));
    cell.append(el("div", {}, "artifacts"), list);
  }
  row.after(el("tr", { class: "event", "data-seq": String(e.seq) }, cell));
  row.classList.add("open");
}

function journalRow(e) {
  const row = el("tr", { "data-type": e.type, "data-seq": String(e.seq), class: "row", tabindex: "0", title: "show the whole event" }, el("td", {}, String(e.seq)), el("td", {}, e.type), el("td", {}, el("pre", {}, describe(e))));
  row.addEventListener("click", () => toggleEvent(row, e));
  row.addEventListener("keydown", (ev) => { if (ev.key === "Enter") toggleEvent(row, e); });
  return row;
}

// Who drives a run (its lease is store state, by the store's clock): "busy"
// runs are driven elsewhere until their lease expires; then any driver (a
// Durable Object's alarm) takes them over.
// A copy of a run owned elsewhere (isoagent/move): a mirror of a browser's
// run, with its lag (how long after its last event was written there it
// arrived here), a run in transit, or one that moved away.
function custodyText(r) {
  const c = r.custody;
  if (c.role === "moved") return "moved to " + c.to;
  if (c.role === "in_transit") return "in transit";
  return "mirror, lag " + Math.max(0, c.received - r.updatedAt) + " ms";
}

function leaseText(run) {
  if (run.status !== "running") return "";
  const l = run.lease;
  if (!l) return "not driven right now: it will be resumed (by its alarm, or the next driver)";
  const until = new Date(l.expiresAt).toLocaleTimeString();
  return l.expiresAt > Date.now() ? "running in another driver (" + l.holder + ") until " + until + "; if it stops renewing its lease, the run is taken over then" : "the lease of " + l.holder + " expired at " + until + ": it will be taken over";
}

async function loadRun() {
  if (!selected) return;
  const { run } = await api("/runs/" + encodeURIComponent(selected));
  $("run-title").textContent = run.runId + ": " + run.status;
  $("run").dataset.status = run.status;
  $("run-task").textContent = typeof run.task === "string" ? run.task : JSON.stringify(run.task, null, 2);
  $("run-times").textContent = "started " + when(run.createdAt) + " · updated " + when(run.updatedAt);
  $("summary").textContent = run.output !== undefined ? "output: " + JSON.stringify(run.output) : run.failure ? "failed: " + run.failure.reason + " — " + run.failure.detail : "step " + run.step + ", " + run.seq + " events";
  if (run.problem) $("summary").append(el("div", { class: "problem" }, "cannot be driven: " + run.problem.code + ": " + run.problem.message));
  if (run.custody) $("summary").append(el("div", { class: "custody" }, custodyText(run) + (run.custody.role === "moved" ? "" : ": read-only here; it is driven and answered where it is owned")));
  $("trace").replaceChildren("trace ", el("a", { href: "/runs/" + encodeURIComponent(run.runId) + "/trace", target: "_blank", rel: "noopener" }, run.traceId));
  $("lease").textContent = leaseText(run);
  // Re-rendered only when what is asked changes: every journal event reloads
  // the run, and a section replaced under the operator would drop the answer
  // being typed, or a click between its mousedown and mouseup.
  const shown = run.runId + " " + run.approvals.map((a) => a.approvalId).join(" ");
  if ($("approvals").dataset.shown !== shown) {
    $("approvals").replaceChildren(...run.approvals.map((a) => approvalView(run.runId, a)));
    $("approvals").dataset.shown = shown;
  }
  $("cancel").hidden = !(run.status === "running" || run.status === "waiting");
  $("verify").hidden = false;
}

// The run's hash chain, verified again by the server from the first event.
$("verify").addEventListener("click", async () => {
  if (!selected) return;
  const out = $("verified");
  out.className = "";
  out.textContent = "verifying…";
  try {
    const v = await api("/runs/" + encodeURIComponent(selected) + "/verify");
    out.className = v.ok ? "ok" : "bad";
    out.textContent = v.ok ? "hash chain verified: " + v.events + " events, head " + v.head.slice(0, 16) + "…" : "hash chain broken at event " + v.seq + ": " + v.problem;
  } catch (e) { out.className = "bad"; out.textContent = "could not verify: " + e.message; }
});

function follow() {
  if (source) source.close();
  $("journal").replaceChildren();
  $("history-list").replaceChildren();
  $("history").hidden = true;
  $("progress").hidden = true;
  $("verified").textContent = "";
  $("approvals").dataset.shown = "";
  lastSeq = 0;
  events = new Map();
  requests = new Map();
  if (!selected) return;
  loadRun();
  // Live, pushed by the server as the run is appended to, and resumed by the browser from the last event id after a drop.
  source = new EventSource("/runs/" + encodeURIComponent(selected) + "/events");
  source.addEventListener("journal", (m) => {
    const e = JSON.parse(m.data);
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    events.set(e.seq, e);
    $("journal").append(journalRow(e));
    if (e.type === "approval.requested") requests.set(e.approvalId, { request: e.request, requestHash: e.requestHash });
    if (e.type === "approval.resolved") decided(e);
    if (e.type === "step.decided") $("progress").hidden = true;
    loadRun();
  });
  // What a streaming model has said so far in the step it decides (not journaled).
  source.addEventListener("progress", (m) => {
    const p = JSON.parse(m.data);
    $("progress-step").textContent = String(p.step);
    $("progress-text").textContent = p.text + p.calls.map((c) => "\\n→ " + (c.name || "…") + " " + c.args).join("");
    $("progress").hidden = false;
  });
  source.addEventListener("end", () => { source.close(); loadRun(); loadRuns(); });
}

$("cancel").addEventListener("click", async () => {
  if (!selected) return;
  try { await post("/runs/" + encodeURIComponent(selected) + "/cancel", { by: "console" }); } catch (e) { alert(e.message); }
  loadRun();
});

$("logout").addEventListener("click", async () => {
  await fetch("/logout", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" } }).catch(() => {});
  location.replace("/login");
});

async function tick() {
  try { await loadRuns(); $("status").textContent = "connected"; } catch (e) { $("status").textContent = "not connected: " + e.message; }
}
await tick();
follow();
// The list is looked at again every few seconds (the selected run's journal is pushed).
setInterval(tick, 3000);
document.body.dataset.ready = "yes";
`;
