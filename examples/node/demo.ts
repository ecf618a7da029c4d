/**
 * `npm start` (until the Worker replaces it): the durable driver on the memory
 * store, with a scripted agent and three workspace tools.
 *
 * The tools are isoagent's workspace tools (isoagent/toolkit) on a memory
 * workspace.
 *
 * 1. A run lists and reads files (read-only, in parallel), asks to write a
 *    summary (the write needs an operator's approval: answered at the
 *    terminal, or automatically with --yes or without a terminal), checks it,
 *    and completes. The journal is printed as it grows.
 * 2. A second run crashes in the middle of a write, after the effect and
 *    before its outcome is journaled. A new driver resumes it: the write is
 *    not repeated silently; the reconcile hook recognises the earlier attempt
 *    by its idempotency key and records its result.
 */
import { createInterface } from "node:readline/promises";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JournalEvent, type Store, type Tool } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";
import { Crash, sequentialIds } from "../../src/testkit/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";

const yes = process.argv.includes("--yes") || !process.stdin.isTTY;
const out = (s = ""): void => console.log(s);

// ---- an in-memory workspace and isoagent's workspace tools ----------------

const workspace = memoryWorkspace({
  "notes/todo.md": "- buy milk\n- call Ana\n- renew passport\n",
  "notes/ideas.md": "- a tool that never runs twice\n",
});
const { tools, reconcile, writeFile } = workspaceTools(workspace);
const receipts = new Set<string>();
const exists = async (path: string): Promise<boolean> => (await workspace.read(path)) !== undefined;

// ---- printing the journal as it grows ---------------------------------------

function describe(e: JournalEvent): string {
  switch (e.type) {
    case "run.created":
      return `run.created        ${e.runId} task=${JSON.stringify(e.task)}`;
    case "run.resumed":
      return `run.resumed        by ${e.owner} (lease token ${e.token})`;
    case "step.decided":
      return e.decision.kind === "final"
        ? `step.decided       step ${e.step}: final ${JSON.stringify(e.decision.output)}`
        : `step.decided       step ${e.step}: ${e.decision.calls.map((c) => `${c.name}(${c.args})`).join(", ")}`;
    case "call.permission":
      return `call.permission    ${e.callId}: ${e.permission} (${e.source})`;
    case "approval.requested":
      return `approval.requested ${e.approvalId}: ${e.request.kind} ${e.request.tool} ${JSON.stringify(e.request.args)} [${e.request.sideEffect}] request ${e.requestHash.slice(0, 12)}…`;
    case "approval.resolved":
      return `approval.resolved  ${e.approvalId}: ${e.decision} by ${e.by}`;
    case "call.started":
      return `call.started       ${e.callId} attempt ${e.attempt} key ${e.idempotencyKey}`;
    case "call.finished":
      return `call.finished      ${e.callId}: ${e.observation.type} ${JSON.stringify("content" in e.observation ? e.observation.content : "").slice(0, 70)}${e.late === true ? " (late)" : ""}`;
    case "call.rejected":
      return `call.rejected      ${e.callId}: ${e.observation.type}`;
    case "call.reconciled":
      return `call.reconciled    ${e.callId}: ${e.resolution} by ${e.by}`;
    case "call.reopened":
      return `call.reopened      ${e.callId}: ${e.reason}`;
    case "context.compacted":
      return `context.compacted  ${e.strategy}: items ${e.from}-${e.to} replaced by ${e.items.length}`;
    case "run.completed":
      return `run.completed      output ${JSON.stringify(e.output)}`;
    case "run.failed":
      return `run.failed         ${e.reason}: ${e.detail}`;
    case "run.cancelled":
      return `run.cancelled      by ${e.by}`;
    case "run.moved":
      return `run.moved          from ${e.from} to ${e.to} (epoch ${e.epoch})`;
    case "user.message":
      return `user.message       turn ${e.turn} ${e.messageId}: ${JSON.stringify(e.text).slice(0, 70)}`;
    case "turn.ended":
      return `turn.ended         turn ${e.turn}: ${e.reason}`;
    case "turn.regenerated":
      return `turn.regenerated   turn ${e.turn}`;
    case "run.closed":
      return `run.closed         by ${e.by}`;
    case "output.rejected":
      return `output.rejected    step ${e.step}: ${e.error.split("\n")[0]}`;
  }
}

function printing(store: Store): Store {
  const show = (events: readonly JournalEvent[]): void => {
    for (const e of events) out(`  ${String(e.seq).padStart(3)} ${describe(e)}`);
  };
  return {
    ...store,
    async createRun(first) {
      await store.createRun(first);
      show([first]);
    },
    async append(runId, events, guard, status) {
      const head = await store.append(runId, events, guard, status);
      show(events);
      return head;
    },
  };
}

async function ask(question: string): Promise<boolean> {
  if (yes) {
    out(`${question} yes (${process.argv.includes("--yes") ? "--yes" : "no terminal: answering yes"})`);
    return true;
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

// ---- 1. a run with an approval ----------------------------------------------

const store = printing(memoryStore());
const summary = "# Summary\n\n3 things to do, 1 idea.\n";
const script = () =>
  scriptedAgent([
    calls(call("list_files", { path: "notes" }), call("read_file", { path: "notes/todo.md" }), call("read_file", { path: "notes/ideas.md" })),
    calls(call("write_file", { path: "notes/summary.md", content: summary })),
    calls(call("read_file", { path: "notes/summary.md" })),
    final({ summary: "notes/summary.md written and checked" }),
  ]);

out("1. A run that reads, asks before writing, and checks its work");
out("--------------------------------------------------------------");
const ids = sequentialIds();
const driver = createDriver({ store, ids, agent: script(), tools, owner: "demo-driver" });
let outcome = await driver.start({ goal: "summarise my notes into notes/summary.md" });
while (outcome.status === "waiting") {
  for (const a of outcome.approvals) {
    out();
    out(`  The run waits for an operator: ${a.request.tool} ${JSON.stringify(a.request.args)}`);
    out(`  side effect ${a.request.sideEffect}, touches ${a.request.resources.map((r) => r.value).join(", ")}`);
    const approved = await ask(`  Approve request ${a.requestHash.slice(0, 12)}…?`);
    const answer = { requestHash: a.requestHash, by: "you" };
    if (approved) await driver.approve(outcome.runId, a.approvalId, answer);
    else await driver.deny(outcome.runId, a.approvalId, answer);
    out();
  }
  outcome = await driver.resume(outcome.runId);
}
out(`\n  => ${outcome.status}${outcome.output !== undefined ? `: ${JSON.stringify(outcome.output)}` : ""}`);

// ---- 2. a crash in the middle of a write ---------------------------------------

out();
out("2. A crash after the write, before its outcome is journaled");
out("------------------------------------------------------------");
const crashScript = () => scriptedAgent([calls(call("write_file", { path: "notes/done.md", content: "- renew passport\n" })), final("done.md written")]);
// Here the write is allowed without asking (permission is not part of a
// tool's shape), so the crash comes in the middle of the effect.
const allowWrite = tools.map((t) =>
  t.name === "write_file"
    ? {
        ...t,
        permission: "allow" as const,
        call: async (a: never, ctx: Parameters<typeof writeFile.call>[1]) => {
          receipts.add(ctx.idempotencyKey); // counts the attempts that reached the workspace
          return writeFile.call(a, ctx);
        },
      }
    : t,
) as Tool<never, unknown>[];
let crashNow = true;
const crashing = createDriver({
  store,
  ids,
  agent: crashScript(),
  tools: allowWrite,
  owner: "doomed-driver",
  leaseTtlMs: 50,
  faults: {
    at: (point) => {
      if (crashNow && point === "after_effect") {
        crashNow = false;
        throw new Crash();
      }
    },
  },
});
const crashed = await crashing.start({ goal: "mark the passport as done" });
out(`\n  => the driver died (${crashed.stopped}); notes/done.md exists: ${await exists("notes/done.md")}; the journal has no outcome for the write`);
// Its lease is still held: the store shows by whom and until when. Wait for it to expire.
const held = await store.lease(crashed.runId);
out(`\n  The dead driver's lease: ${held?.holder}, until ${held === null ? "-" : `${held.expiresAt - Date.now()} ms from now`}`);
if (held !== null) await new Promise((r) => setTimeout(r, Math.max(0, held.expiresAt - Date.now()) + 1));
out("\n  A new driver takes the run over:");
const rescuer = createDriver({
  store,
  agent: crashScript(),
  tools: allowWrite,
  owner: "rescue-driver",
  // The workspace tools' hook: a change and its receipt commit together, so
  // the receipt says whether the interrupted write took effect.
  reconcile,
});
const resumed = await rescuer.resume(crashed.runId);
const attempts = [...receipts].filter((k) => k.startsWith(`${crashed.runId}:`)).length;
out(`\n  => ${resumed.status}: the write took effect ${attempts === 1 ? "once" : `${attempts} times`}; the reconcile hook found its receipt (by its idempotency key) and recorded its result`);

for (const runId of [outcome.runId, crashed.runId]) verifyChain(await store.read(runId));
out("\nBoth journals verified: every event's hash chains to the one before.");
