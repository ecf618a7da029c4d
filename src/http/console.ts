/**
 * The operator console: one page, no framework, no eval, served under a CSP
 * by the HTTP app. It lists runs (each with its task's first line, status,
 * start and update times, and who holds its lease; filtered by status and
 * paged), starts a run (its create carries an Idempotency-Key, kept in the
 * tab's sessionStorage until answered, so a retry after a dropped
 * connection, a 5xx or a reload returns the run the first try made), follows a run's journal live (pushed by the server,
 * resumed from the last event seen), opens a journal row's whole event with
 * links to the artifacts it names, shows a pending approval in full (tool,
 * arguments, side effect, resources, the tool's preview, the request hash)
 * with approve / deny (a denial asks why), keeps decided approvals with the
 * diff they showed (coloured), settles an interrupted side effect, cancels a
 * run, and has the server verify the run's hash chain. A copy of a run owned
 * elsewhere (a mirror, a run in transit or moved away) and a run that ended
 * offer no answer and no cancel, and say why; every refusal of the API is
 * shown in words. It works down to a phone's width. Everything untrusted is
 * written with textContent.
 */

export { CONSOLE_JS } from "./console-script.js";

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
<header><h1>isoagent <span>operator console</span></h1><span id="status">loading…</span><span id="page-error" role="alert"></span><button id="logout" class="neutral">Log out</button></header>
<main>
<nav>
<form id="new-run"><label for="task">New run</label><textarea id="task" rows="2" placeholder="The task, in words (or a JSON object)" maxlength="4096" required></textarea><label class="inline" title="The task is what the agent is told first; the run then waits for messages"><input type="checkbox" id="as-conversation"> a conversation</label><button type="submit" id="start">Start run</button><span id="new-status"></span></form>
<div class="list-head"><h2>Runs</h2><select id="filter" aria-label="Show runs by status"><option value="">all</option><option value="running">running</option><option value="waiting">waiting</option><option value="idle" title="a conversation between turns">idle</option><option value="completed">completed</option><option value="failed">failed</option><option value="cancelled">cancelled</option></select></div>
<ul id="runs"></ul>
<div class="pager"><button id="newer" class="neutral" disabled>← Newer</button><span id="page"></span><button id="older" class="neutral" disabled>Older →</button></div>
</nav>
<section id="run" data-status="none">
<div class="title"><h2 id="run-title">Pick a run</h2><button id="verify" class="neutral" hidden>Verify hash chain</button><button id="cancel" class="deny" hidden>Cancel run</button></div>
<p id="blocked" hidden></p>
<p id="run-error" class="problem" role="alert"></p>
<pre id="run-task"></pre>
<div id="run-times"></div>
<div id="verified"></div>
<div id="summary"></div>
<div id="trace"></div>
<div id="lease"></div>
<div id="approvals"></div>
<div id="chat" hidden><h3>Conversation</h3><ol id="bubbles"></ol><form id="message-form"><label for="message">Message</label><textarea id="message" rows="2" maxlength="100000" placeholder="Write to the agent"></textarea><div class="chat-buttons"><button type="submit" id="send">Send</button><button type="button" id="stop-turn" class="deny">Stop</button><button type="button" id="regenerate" class="neutral">Regenerate</button><button type="button" id="close-chat" class="neutral">Close conversation</button></div><p id="chat-status"></p></form></div>
<div id="progress" hidden><h3>The agent is deciding step <span id="progress-step"></span></h3><pre id="progress-text"></pre></div>
<div id="history" hidden><h3>Decided approvals</h3><div id="history-list"></div></div>
<h3>Journal <span class="hint">(a row opens its whole event)</span></h3>
<table><colgroup><col class="seq"><col class="type"><col></colgroup><thead><tr><th>#</th><th>event</th><th>what</th></tr></thead><tbody id="journal"></tbody></table>
</section>
</main>
<script type="module" src="/console.js"></script>
</body>
</html>`;

export const CONSOLE_CSS = `*{box-sizing:border-box}[hidden]{display:none!important}
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 16px;padding:10px 20px;background:#1d2330;color:#fff}
header h1{margin:0;font-size:18px}header h1 span{opacity:.6;font-weight:normal}#status{font-size:12px;opacity:.8}
main{display:grid;grid-template-columns:300px minmax(0,1fr);gap:16px;padding:16px 20px}
nav,section{min-width:0}
nav ul{list-style:none;margin:0;padding:0}nav li{background:#fff;border-radius:4px;padding:6px 8px;margin-bottom:4px;cursor:pointer;overflow-wrap:anywhere}
nav li.selected{outline:2px solid #3b6ef5}nav li.empty{cursor:default;opacity:.7}
nav li .line{display:flex;gap:6px;align-items:baseline;justify-content:space-between}nav li .title{font-weight:600}
.meta{font-size:11px;opacity:.75}.meta.id{font-family:ui-monospace,monospace}
.badge{font-size:11px;padding:1px 6px;border-radius:8px;background:#e4e7ee;white-space:nowrap}
.badge.custody{background:#dfe8fd}.badge.completed{background:#d5f0dc}.badge.waiting{background:#fde9b6}.badge.idle{background:#e3e8ef}.badge.failed,.badge.cancelled{background:#f6d3d0}
#new-run{display:grid;gap:4px;margin-bottom:12px}#new-run label.inline{font-weight:normal;font-size:12px}
#bubbles{list-style:none;margin:0 0 8px;padding:0;display:grid;gap:6px}.bubble{max-width:80%;padding:6px 10px;border-radius:10px;white-space:pre-wrap;overflow-wrap:anywhere}
.bubble.user{justify-self:end;background:#3b6ef5;color:#fff}.bubble.agent{justify-self:start;background:#fff;border:1px solid #dde1ea}.bubble.thinking{opacity:.75;font-style:italic}
.bubble.stopped{justify-self:center;background:#f0f1f4;font-size:12px}.bubble.superseded{opacity:.45;text-decoration:line-through}.bubble .note{font-size:11px;opacity:.75}
#message-form{display:grid;gap:4px}.chat-buttons{display:flex;flex-wrap:wrap;gap:6px}#chat-status{font-size:12px;opacity:.8;margin:0}#new-run label{font-weight:600}#new-status{font-size:12px;opacity:.8}
textarea,input,select{font:inherit;padding:5px 6px;border:1px solid #c8ccd6;border-radius:4px;max-width:100%}textarea{width:100%;resize:vertical}
.list-head{display:flex;align-items:center;justify-content:space-between;gap:8px}.list-head h2{margin:8px 0}
.pager{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-top:6px;font-size:12px}
.title{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px}.title h2{margin:0;overflow-wrap:anywhere}
button{font:inherit;padding:6px 12px;border:0;border-radius:4px;background:#3b6ef5;color:#fff;cursor:pointer}button.deny{background:#b3261e}button.neutral{background:#5b6475}
button:disabled{opacity:.45;cursor:default}
#run-task{margin:8px 0 2px;white-space:pre-wrap;overflow-wrap:anywhere;font:inherit;font-weight:600;max-height:8em;overflow:auto}
#run-times{font-size:12px;opacity:.75}
#verified{margin:6px 0;font-size:13px;overflow-wrap:anywhere}#verified.ok{color:#1e6b34}#verified.bad{color:#b3261e;font-weight:600}
table{width:100%;table-layout:fixed;border-collapse:collapse;background:#fff;font-size:12px}td,th{text-align:left;padding:4px 6px;border-bottom:1px solid #eceef2;vertical-align:top;overflow-wrap:anywhere}
col.seq{width:3.2em}col.type{width:11.5em}
td pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}td.type{overflow-wrap:normal;word-break:normal}
tr.row{cursor:pointer}tr.row:hover,tr.row.open{background:#f0f4ff}tr.event td{background:#fafbfd}
pre.event-json{font-size:11px;max-height:40em;overflow:auto}ul.artifacts{margin:4px 0;padding-left:18px}
.hint{font-size:12px;font-weight:normal;opacity:.6}
.approval{background:#fff8e1;border:1px solid #f2c94c;border-radius:6px;padding:10px 14px;margin:12px 0}
.approval h3{margin:0 0 6px;font-size:15px;overflow-wrap:anywhere}
.approval dl,.decided dl{display:grid;grid-template-columns:110px minmax(0,1fr);margin:0 0 8px}dt{opacity:.7}dd{margin:0;overflow-wrap:anywhere}
.approval pre,.decided pre{background:#fff;padding:6px;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
.buttons{display:flex;gap:8px;flex-wrap:wrap;border:0;padding:0;margin:0;min-width:0}.deny-reason{display:flex;flex-wrap:wrap;gap:8px;width:100%}.deny-reason input{flex:1 1 200px}
input.missing{border-color:#b3261e;outline:1px solid #b3261e}
.decided{background:#fff;border:1px solid #e4e7ee;border-radius:6px;padding:6px 10px;margin:6px 0}.decided summary{cursor:pointer;overflow-wrap:anywhere}
.decided.approve .verdict{color:#1e6b34}.decided.deny .verdict{color:#b3261e}.decided[open] summary{margin-bottom:6px}
#summary{margin:8px 0;font-size:13px;overflow-wrap:anywhere}#logout{margin-left:auto}#trace{overflow-wrap:anywhere;font-size:12px}
.login{display:block;max-width:360px;margin:40px auto}.login form{background:#fff;border-radius:6px;padding:16px 20px;display:grid;gap:8px}
.login input{font:inherit;padding:6px}#error{color:#b3261e;margin:0}.problem{color:#b3261e}
#lease{margin:0 0 8px;font-size:13px;opacity:.8}
#blocked,.blocked-here{margin:6px 0;font-size:13px;color:#5b6475}#blocked{background:#eef1f7;border-radius:4px;padding:6px 10px}
#run-error{margin:6px 0;overflow-wrap:anywhere;font-weight:600}#run-error:empty{display:none}
#page-error{font-size:12px;color:#ffb4ab;overflow-wrap:anywhere}#page-error:empty{display:none}
pre.preview .d-add{background:#e3f4e6;color:#14532d}pre.preview .d-del{background:#fbe4e2;color:#8c1d18}
pre.preview .d-hunk{color:#2f54c9}pre.preview .d-file{font-weight:600}pre.preview .d-note{opacity:.7}
@media (max-width:720px){
main{grid-template-columns:minmax(0,1fr);padding:10px}
header{padding:8px 10px}
col.type{width:10.5em}table{font-size:11px}
#runs{max-height:45vh;overflow:auto;padding:2px}
.approval{padding:8px 10px}.approval dl,.decided dl{grid-template-columns:minmax(0,1fr)}dt{margin-top:4px}
}`;
