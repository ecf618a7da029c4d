/**
 * The operator console: one page, no framework, no eval, served under a CSP
 * by the HTTP app. It lists runs, follows a run's journal live (server-sent
 * events, resumed from the last event seen), shows a pending approval in full
 * (tool, arguments, side effect, resources, the preview the tool gives, the
 * request hash) with approve / deny, settles an interrupted side effect,
 * cancels a run, and starts one: its create carries an Idempotency-Key, kept
 * in the tab's sessionStorage until answered, so a retry (after a dropped
 * connection, a 5xx, or a reload) returns the run the first try made.
 * Everything untrusted is written with textContent.
 */

export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>isoagent console</title>
<link rel="stylesheet" href="/console.css">
<link rel="icon" href="data:,">
</head>
<body>
<header><h1>isoagent <span>operator console</span></h1><span id="status">loading…</span><button id="logout" class="neutral">Log out</button></header>
<main>
<nav><h2>Runs</h2><form id="new-run"><textarea id="new-task" rows="2" placeholder="Task: JSON, or plain text" required></textarea><button id="new-start">Start run</button><span id="new-status"></span></form><ul id="runs"></ul></nav>
<section id="run" data-status="none">
<div class="title"><h2 id="run-title">Pick a run</h2><button id="cancel" class="deny" hidden>Cancel run</button></div>
<div id="summary"></div>
<div id="trace"></div>
<div id="lease"></div>
<div id="approvals"></div>
<div id="progress" hidden><h3>The agent is deciding step <span id="progress-step"></span></h3><pre id="progress-text"></pre></div>
<h3>Journal</h3>
<table><thead><tr><th>#</th><th>event</th><th>what</th></tr></thead><tbody id="journal"></tbody></table>
</section>
</main>
<script type="module" src="/console.js"></script>
</body>
</html>`;

export const CONSOLE_CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{display:flex;align-items:baseline;gap:16px;padding:10px 20px;background:#1d2330;color:#fff}
header h1{margin:0;font-size:18px}header h1 span{opacity:.6;font-weight:normal}#status{font-size:12px;opacity:.8}
main{display:grid;grid-template-columns:260px 1fr;gap:16px;padding:16px 20px}
nav ul{list-style:none;margin:0;padding:0}nav li{background:#fff;border-radius:4px;padding:6px 8px;margin-bottom:4px;cursor:pointer;word-break:break-all}
nav li.selected{outline:2px solid #3b6ef5}.badge{font-size:11px;padding:1px 6px;border-radius:8px;background:#e4e7ee;margin-left:4px}
.badge.custody{background:#dfe8fd}.badge.completed{background:#d5f0dc}.badge.waiting{background:#fde9b6}.badge.failed,.badge.cancelled{background:#f6d3d0}
.title{display:flex;align-items:center;gap:12px}.title h2{margin:0}
button{font:inherit;padding:6px 12px;border:0;border-radius:4px;background:#3b6ef5;color:#fff;cursor:pointer}button.deny{background:#b3261e}button.neutral{background:#5b6475}
table{width:100%;border-collapse:collapse;background:#fff;font-size:12px}td,th{text-align:left;padding:4px 6px;border-bottom:1px solid #eceef2;vertical-align:top}
td pre{margin:0;white-space:pre-wrap;word-break:break-all}
.approval{background:#fff8e1;border:1px solid #f2c94c;border-radius:6px;padding:10px 14px;margin:12px 0}
.approval h3{margin:0 0 6px;font-size:15px}.approval dl{display:grid;grid-template-columns:110px 1fr;margin:0 0 8px}.approval dt{opacity:.7}.approval dd{margin:0;word-break:break-all}
.approval pre{background:#fff;padding:6px;border-radius:4px;white-space:pre-wrap;font-size:12px}.buttons{display:flex;gap:8px;flex-wrap:wrap}
#summary{margin:8px 0;font-size:13px}#logout{margin-left:auto}
.login{display:block;max-width:360px;margin:40px auto}.login form{background:#fff;border-radius:6px;padding:16px 20px;display:grid;gap:8px}
.login input{font:inherit;padding:6px}#error{color:#b3261e;margin:0}.problem{color:#b3261e}
#lease{margin:0 0 8px;font-size:13px;opacity:.8}
#new-run{display:grid;gap:4px;margin:0 0 12px}#new-task{font:inherit;font-size:12px;padding:4px}#new-status{font-size:12px;opacity:.8}`;

export const CONSOLE_JS = `// The isoagent operator console. Plain DOM; untrusted text goes through textContent.
const $ = (id) => document.getElementById(id);
let selected = new URLSearchParams(location.search).get("run");
let source = null;
let lastSeq = 0;

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

function describe(e) {
  switch (e.type) {
    case "run.created": return "task " + JSON.stringify(e.task);
    case "run.resumed": return "driven by " + e.owner + " (lease token " + e.token + ")";
    case "step.decided": return e.decision.kind === "final" ? "step " + e.step + ": final " + JSON.stringify(e.decision.output) : "step " + e.step + ": " + e.decision.calls.map((c) => c.name + " " + c.args).join(", ");
    case "call.permission": return e.callId + ": " + e.permission + " (" + e.source + ")" + (e.reason ? " " + e.reason : "");
    case "approval.requested": return (e.request.kind === "call" ? "approval asked: " : "interrupted side effect: ") + e.request.tool;
    case "approval.resolved": return e.decision + " by " + e.by + (e.answer !== undefined ? ": " + JSON.stringify(e.answer) : "");
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

async function loadRuns() {
  const { runs } = await api("/runs?limit=100");
  if (!selected && runs.length > 0) selected = runs[0].runId;
  $("runs").replaceChildren(...runs.map((r) => {
    const li = el("li", { "data-run": r.runId, "data-status": r.status, class: r.runId === selected ? "selected" : "" }, r.runId, el("span", { class: "badge " + r.status }, r.status));
    if (r.custody) li.append(el("span", { class: "badge custody", "data-custody": r.custody.role }, custodyText(r)));
    if (r.lease && r.status === "running") li.title = leaseText(r);
    li.addEventListener("click", () => { selected = r.runId; follow(); loadRuns(); });
    return li;
  }));
}

function approvalView(runId, a) {
  const r = a.request;
  const answer = async (body, path) => {
    try { await api(path, { method: "POST", body: JSON.stringify(body) }); } catch (e) { alert(e.message); }
    await loadRun();
  };
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
    send.addEventListener("click", () => answer({ decision: "approve", requestHash: a.requestHash, by: "console", answer: input.value }, "/runs/" + runId + "/approvals/" + a.approvalId));
    decline.addEventListener("click", () => answer({ decision: "deny", requestHash: a.requestHash, by: "console" }, "/runs/" + runId + "/approvals/" + a.approvalId));
    buttons.append(input, send, decline);
  } else if (r.kind === "call") {
    const approve = el("button", { class: "approve" }, "Approve");
    const deny = el("button", { class: "deny" }, "Deny");
    approve.addEventListener("click", () => answer({ decision: "approve", requestHash: a.requestHash, by: "console" }, "/runs/" + runId + "/approvals/" + a.approvalId));
    deny.addEventListener("click", () => answer({ decision: "deny", requestHash: a.requestHash, by: "console" }, "/runs/" + runId + "/approvals/" + a.approvalId));
    buttons.append(approve, deny);
  } else {
    const again = el("button", { class: "run-again" }, "It did not happen: run it again");
    const done = el("button", { class: "record-result neutral" }, "It happened: record it as done");
    const failed = el("button", { class: "record-failure deny" }, "It did not happen: record it as failed");
    const unknown = el("button", { class: "mark-unknown neutral" }, "Cannot tell: the outcome is unknown");
    const settle = (resolution, content) => answer({ approvalId: a.approvalId, requestHash: a.requestHash, resolution, by: "console", ...(content === undefined ? {} : { content }) }, "/runs/" + runId + "/reconcile");
    again.addEventListener("click", () => settle("run_again"));
    done.addEventListener("click", () => settle("record_result", { recorded_by: "operator" }));
    failed.addEventListener("click", () => settle("record_failure"));
    unknown.addEventListener("click", () => settle("mark_unknown"));
    buttons.append(again, done, failed, unknown);
  }
  const rows = [["tool", r.tool], ["side effect", r.sideEffect], ["touches", r.resources.map((x) => x.kind + " " + x.value + (x.operation ? " (" + x.operation + ")" : "")).join(", ") || "nothing declared"], ["call", r.callId + " (step " + r.step + ", attempt " + r.attempt + ")"], ["request", a.requestHash]];
  if (r.idempotencyKey) rows.push(["idempotency key", r.idempotencyKey]);
  if (r.policyVersion) rows.push(["policy", r.policyVersion]);
  if (r.note) rows.push(["note", r.note]);
  const dl = el("dl", {});
  for (const [k, v] of rows) dl.append(el("dt", {}, k), el("dd", { class: k.replace(" ", "-") }, v));
  const section = el("section", { class: "approval", "data-approval": a.approvalId, "data-kind": r.kind },
    el("h3", {}, r.kind === "call" ? (r.wantsAnswer ? "The agent asks: " + r.args.question : r.tool + " asks for approval") : r.tool + " was interrupted: did it take effect?"),
    dl, el("div", {}, "arguments"), el("pre", { class: "args" }, JSON.stringify(r.args, null, 2)));
  if (r.preview) section.append(el("div", {}, "what it would change"), el("pre", { class: "preview" }, r.preview));
  section.append(buttons);
  return section;
}

// A copy of a run owned elsewhere (isoagent/move): a mirror of a browser's
// run, with its lag (how long after its last event was written there it
// arrived here), a run in transit, or one that moved away.
function custodyText(r) {
  const c = r.custody;
  if (c.role === "moved") return "moved to " + c.to;
  if (c.role === "in_transit") return "in transit";
  return "mirror, lag " + Math.max(0, c.received - r.updatedAt) + " ms";
}

// Who drives a run (its lease is store state, by the store's clock): "busy"
// runs are driven elsewhere until their lease expires; then any driver (a
// Durable Object's alarm) takes them over.
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
}

function follow() {
  if (source) source.close();
  $("journal").replaceChildren();
  $("progress").hidden = true;
  lastSeq = 0;
  if (!selected) return;
  loadRun();
  // Live, and resumed by the browser from the last event id after a drop.
  source = new EventSource("/runs/" + encodeURIComponent(selected) + "/events");
  source.addEventListener("journal", (m) => {
    const e = JSON.parse(m.data);
    if (e.seq <= lastSeq) return;
    lastSeq = e.seq;
    $("journal").append(el("tr", { "data-type": e.type, "data-seq": String(e.seq) }, el("td", {}, String(e.seq)), el("td", {}, e.type), el("td", {}, el("pre", {}, describe(e)))));
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
  try { await api("/runs/" + encodeURIComponent(selected) + "/cancel", { method: "POST", body: JSON.stringify({ by: "console" }) }); } catch (e) { alert(e.message); }
  loadRun();
});

// Starting a run: one Idempotency-Key per run asked for, kept in sessionStorage
// with its task until the server answers, so every retry (a dropped
// connection, a 5xx, a reload mid-create) names the same run.
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
      $("new-task").value = "";
      selected = body.runId;
      follow();
      await loadRuns().catch(() => {});
      $("new-status").textContent = res.headers.get("idempotent-replayed") ? "started (answered on a retry)" : "started";
      return;
    }
    if (attempt >= 6) { $("new-status").textContent = "not started yet: the server did not answer; it is tried again on reload"; return; }
    $("new-status").textContent = "retrying (" + attempt + ")…";
    await new Promise((r) => setTimeout(r, Math.min(8000, 250 * 2 ** attempt)));
  }
}
$("new-run").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("new-task").value.trim();
  if (!text) return;
  let task = text;
  try { task = JSON.parse(text); } catch (e) { task = text; }
  // (getRandomValues, not randomUUID: the latter needs a secure context.)
  const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  createRun({ key, task });
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
// A create this tab sent but never heard back from (a reload cut it short): sent again, with its key.
try { const p = JSON.parse(sessionStorage.getItem(PENDING) || "null"); if (p && p.key) createRun(p); } catch (e) { sessionStorage.removeItem(PENDING); }
setInterval(tick, 2000);
document.body.dataset.ready = "yes";
`;
