/**
 * The page the Chromium kill test kills (test/kill/chromium-kill.test.ts):
 * runs on IndexedDB, driven in this tab with a resume loop like the browser
 * example's (on load, when a busy run's lease expires, and every 300 ms),
 * tools of every side-effect class whose effect is a POST to the observer
 * serving this page, carrying the call's idempotency key and attempt. The
 * test answers as the operator through `window.kill`.
 */
import { idbStore } from "../../../adapters/idb/index.js";
import { createDriver, defineTool, rulesPolicy, strictObject, string, type JournalEvent, type LeaseView, type RunId, type RunOutcome, type SideEffect, type Tool } from "../../../src/index.js";
import { findStranded, type StrandedRun } from "../../../src/testkit/index.js";
import { killAgent, TURNS } from "../../kill/agent.js";

declare global {
  interface Window {
    kill: typeof kill;
  }
}

const store = idbStore({ name: "kill" });
const owner = `tab-${crypto.randomUUID().slice(0, 8)}`;

function effectTool(name: string, sideEffect: SideEffect): Tool<never, unknown> {
  return defineTool<{ what: string }>({
    name,
    description: `A ${sideEffect} tool whose effect the observer records.`,
    inputSchema: strictObject({ what: string("What to act on") }),
    ...(sideEffect === "read_only" ? { sideEffect, parallelSafe: true } : { sideEffect, permission: "allow" as const }),
    timeoutMs: 10_000,
    call: async (args, ctx) => {
      await new Promise((r) => setTimeout(r, 20 + ((ctx.idempotencyKey.length * 7 + ctx.attempt * 13) % 120)));
      const res = await fetch("/effect", { method: "POST", body: JSON.stringify({ runId: ctx.runId, key: ctx.idempotencyKey, attempt: ctx.attempt, tool: name, sideEffect, what: args.what }) });
      if (!res.ok) throw new Error(`observer: ${res.status}`);
      return { done: args.what };
    },
  }) as Tool<never, unknown>;
}

const driver = createDriver({
  store,
  agent: killAgent((view) => typeof view.task === "object" && view.task !== null && !Array.isArray(view.task) && "chat" in view.task),
  tools: [effectTool("look", "read_only"), effectTool("note", "local_mutation"), effectTool("send", "remote_mutation"), effectTool("wipe", "destructive")],
  policy: rulesPolicy([
    { tool: "note", permission: "ask" },
    { tool: "wipe", permission: "ask" },
  ]),
  owner,
  leaseTtlMs: 1_500,
});

// ---- the resume loop (as examples/browser does it) ---------------------------------
let driving = 0;
let expiry: ReturnType<typeof setTimeout> | undefined;
async function drive(): Promise<void> {
  if (driving > 0) return;
  driving++;
  try {
    const outcomes: RunOutcome[] = await driver.driveAll();
    const busy = outcomes.flatMap((o) => (o.stopped === "busy" && o.lease !== undefined && o.lease !== null ? [o.lease.expiresAt] : []));
    if (busy.length > 0) {
      clearTimeout(expiry);
      expiry = setTimeout(() => void drive(), Math.max(0, Math.min(...busy) - Date.now()) + 20);
    }
  } catch {
    // the next round tries again
  } finally {
    driving--;
  }
}
setInterval(() => void drive(), 300);

const kill = {
  owner: () => owner,
  /** Creates runs (the test names them) and drives them. */
  async create(runIds: string[]): Promise<void> {
    for (const runId of runIds) await driver.create({ run: runId }, { runId: runId as RunId });
    void drive();
  },
  /** Creates conversations (the test names them); they wait for their messages. */
  async createChats(runIds: string[]): Promise<void> {
    for (const runId of runIds) await driver.create({ chat: runId }, { runId: runId as RunId, conversation: true });
  },
  /**
   * The user of each conversation between turns: sends its next message
   * (after sending the last one again when `resend`, as a client that did
   * not hear back would), or closes it after the last. What it did.
   */
  async converse(runIds: string[], resend: boolean): Promise<{ sent: number; resent: number; notDuplicate: string[] }> {
    const out = { sent: 0, resent: 0, notDuplicate: [] as string[] };
    for (const runId of runIds) {
      const id = runId as RunId;
      const s = await driver.state(id).catch(() => undefined);
      if (s?.status !== "idle" || s.conversation === undefined) continue;
      const turn = s.conversation.turn;
      if (turn >= TURNS) {
        await driver.close(id, { by: "kill-test" });
        continue;
      }
      if (turn > 0 && resend) {
        const again = await driver.send(id, { id: `m${turn}`, text: `message ${turn}` });
        if (again.duplicate) out.resent++;
        else out.notDuplicate.push(`${runId} m${turn}`);
      }
      await driver.send(id, { id: `m${turn + 1}`, text: `message ${turn + 1}` });
      out.sent++;
    }
    void drive();
    return out;
  },
  /** The first pending approval of each run that waits. */
  async pending(): Promise<{ runId: string; approvalId: string; requestHash: string; kind: string; what: string }[]> {
    const out = [];
    for (const r of await store.listRuns({ status: ["waiting"] })) {
      const s = await driver.state(r.runId);
      const a = Object.values(s.approvals).find((x) => x.status === "pending");
      if (a !== undefined) out.push({ runId: r.runId, approvalId: a.approvalId, requestHash: a.requestHash, kind: a.request.kind, what: String((a.request.args as { what?: string }).what) });
    }
    return out;
  },
  /** Answers as the operator, then kicks the resume loop. */
  async answer(runId: string, approvalId: string, requestHash: string, how: string, what: string): Promise<void> {
    const id = runId as RunId;
    const a = { requestHash, by: "kill-test" };
    if (how === "approve") await driver.approve(id, approvalId as never, a);
    else if (how === "deny") await driver.deny(id, approvalId as never, a);
    else await driver.settle(id, approvalId as never, { ...a, resolution: how as "run_again" | "record_result" | "record_failure", ...(how === "record_result" ? { content: { done: what } } : {}) });
    void drive();
  },
  /** Every run: its status as listed and by its journal, its events, its lease. */
  async report(): Promise<{ runId: string; listed: { status: string; seq: number }; status: string; events: JournalEvent[]; lease: LeaseView | null }[]> {
    const out = [];
    for (const r of await store.listRuns()) {
      const s = await driver.state(r.runId);
      out.push({ runId: r.runId, listed: { status: r.status, seq: r.seq }, status: s.status, events: await store.read(r.runId), lease: r.lease });
    }
    return out;
  },
  stranded: (grace: number): Promise<StrandedRun[]> => findStranded(store, Date.now(), { grace }),
};

window.kill = kill;
document.getElementById("status")!.textContent = `this tab is ${owner}`;
document.body.dataset["ready"] = "yes";
void drive();
