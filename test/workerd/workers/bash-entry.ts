/**
 * bash in workerd without nodejs_compat (plain miniflare: no eval, no Node
 * globals): the shell runs through a driver over a workspace in memory and
 * over a Durable Object's SQLite storage, and a run object hosts bash runs
 * crashed at each point around a command (the crash matrix), its workspace
 * in the object's own storage. The bundle aliases node:zlib to isoagent's
 * stub, as applications are told to.
 */
import { DurableObject } from "cloudflare:workers";
import { runObjectClass, RunIndex, sqlWorkspace, workerApp, type HostContext, type WorkerEnv } from "../../../adapters/durable-object/index.js";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JsonValue, type Tool } from "../../../src/index.js";
import type { FaultPoint } from "../../../src/testkit/index.js";
import { memoryWorkspace, type Workspace } from "../../../src/toolkit/index.js";
import { bashTool } from "../../../src/toolkit/bash/index.js";
import { bashScenario } from "../../../scripts/lib/bash-crash.js";
import type { Remote } from "./remote.js";

type Env = WorkerEnv;

/** Runs commands one after another through a driver, each approved; their observations' texts. */
async function runAll(ws: Workspace, commands: readonly string[], options: { timeoutMs?: number } = {}): Promise<{ texts: string[]; ms: number[] }> {
  const bash = bashTool({ workspace: ws, requireApproval: false, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  const texts: string[] = [];
  const ms: number[] = [];
  for (const command of commands) {
    const driver = createDriver({ store: memoryStore(), tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
    const started = Date.now();
    const outcome = await driver.start("t");
    ms.push(Date.now() - started);
    const ended = (await driver.events(outcome.runId)).find((e) => e.type === "call.finished" || e.type === "call.rejected") as { observation: { content?: string; error?: string } };
    texts.push(ended.observation.content ?? ended.observation.error ?? "");
  }
  return { texts, ms };
}

async function files(ws: Workspace): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await ws.list("")) out[f.path] = new TextDecoder().decode((await ws.read(f.path))!);
  return out;
}

// ---- the crash matrix: runs hosted by a run object, crashed where a plan says ------------

const FAULT: Record<string, FaultPoint> = { before_started: "before_start_append", after_started: "after_start_append", after_effect: "after_effect", after_finished: "after_finish_append" };
const PLANS = new Map<string, string>();
const CRASHED = new Set<string>();
const LOGS = new Map<string, JsonValue[]>();

function crashOnce(hc: HostContext<Env>, point: string): void {
  if (PLANS.get(hc.runId) !== point || CRASHED.has(hc.runId)) return;
  CRASHED.add(hc.runId);
  hc.state.abort(`crash at ${point}`);
}

const Base = runObjectClass<Env>({
  leaseTtlMs: 400,
  // The call's start is made durable before the command runs, so a reset
  // after it leaves an interrupted call for bash's hook to settle: the
  // workspace commit (in this object's storage, with its receipt) was
  // either kept or lost with the reset, and the receipt says which. (The
  // log of executions is in the isolate's memory and survives the reset,
  // as an effect elsewhere would.)
  durability: () => "sync",
  agent: () => bashScenario().agent(),
  tools: (hc) =>
    bashScenario(() => sqlWorkspace(hc.storage))
      .setup()
      .tools.map((t) => ({
        ...t,
        call: async (args: never, ctx: Parameters<Tool<never, unknown>["call"]>[1]) => {
          LOGS.set(hc.runId, [...(LOGS.get(hc.runId) ?? []), { tool: t.name, key: ctx.idempotencyKey, sideEffect: t.sideEffect }]);
          const result = await t.call(args, ctx);
          crashOnce(hc, "during_effect");
          return result;
        },
      })) as Tool<never, unknown>[],
  reconcile: (hc) => bashScenario(() => sqlWorkspace(hc.storage)).setup().reconcile!,
  faults: (hc) => ({
    at: (point, where) => {
      if (where.tool !== "bash") return;
      const plan = PLANS.get(hc.runId);
      if (plan !== undefined && FAULT[plan] === point) crashOnce(hc, plan);
    },
  }),
});

export class RunObject extends Base {
  testPlan(runId: string, point: string | null): void {
    if (point !== null) PLANS.set(runId, point);
  }
  async testWorld(runId: string): Promise<{ world: JsonValue; log: JsonValue; crashed: boolean }> {
    return { world: await files(sqlWorkspace(this.ctx.storage)), log: LOGS.get(runId) ?? [], crashed: CRASHED.has(runId) };
  }
}
export { RunIndex };

/** A workspace in an object's SQLite storage, where bash runs inside the object. */
export class ShellObject extends DurableObject {
  async run(commands: string[]): Promise<{ texts: string[]; files: Record<string, string> }> {
    const ws = sqlWorkspace(this.ctx.storage, { seed: { "notes/a.md": "one\ntwo\n" } });
    const { texts } = await runAll(ws, commands);
    return { texts, files: await files(ws) };
  }
}

/** A workspace in an object's SQLite storage, reached over RPC by bash's cases running in Node. */
export class WorkspaceObject extends DurableObject {
  private ws = sqlWorkspace(this.ctx.storage);
  read(path: string) {
    return this.ws.read(path);
  }
  list(prefix: string) {
    return this.ws.list(prefix);
  }
  commit(changes: { path: string; bytes: Uint8Array | null }[], receipt?: { key: string; result: string }) {
    return this.ws.commit(changes, receipt);
  }
  receipt(key: string) {
    return this.ws.receipt(key);
  }
}

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o["__bytes"] === "string") return Uint8Array.from(atob(o["__bytes"]), (c) => c.charCodeAt(0));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}
function encode(v: unknown): unknown {
  if (v instanceof Uint8Array) {
    let bin = "";
    for (let k = 0; k < v.length; k += 0x8000) bin += String.fromCharCode(...v.subarray(k, k + 0x8000));
    return { __bytes: btoa(bin) };
  }
  if (Array.isArray(v)) return v.map(encode);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}

export default {
  async fetch(request: Request, env: Env & { SHELLS: DurableObjectNamespace; WORKSPACES: DurableObjectNamespace }, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/test/workspace/")) {
      const [, , , name, method] = url.pathname.split("/");
      const stub = env.WORKSPACES.getByName(name!) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const args = decode(await request.json()) as unknown[];
      return Response.json({ value: encode((await stub[method!]!(...args)) ?? null) });
    }
    const body = request.method === "POST" ? ((await request.json()) as { commands?: string[]; timeoutMs?: number; point?: string; task?: JsonValue }) : {};
    if (url.pathname === "/bash/memory") {
      const ws = memoryWorkspace({ "notes/a.md": "one\ntwo\n" });
      const r = await runAll(ws, body.commands ?? [], body.timeoutMs === undefined ? {} : { timeoutMs: body.timeoutMs });
      let codegen: string;
      try {
        codegen = String(new Function("return 'allowed'")());
      } catch (e) {
        codegen = `refused: ${(e as Error).message}`;
      }
      return Response.json({ ...r, files: await files(ws), platform: { process: typeof (globalThis as { process?: unknown }).process, codegen } });
    }
    if (url.pathname === "/bash/deadline") {
      // Issue 26: each command through a driver under a short lease, a chain of timers armed before the call counting how often the isolate's loop ran during it.
      const out = [];
      for (const command of body.commands ?? []) {
        const bash = bashTool({ workspace: memoryWorkspace({ "a.txt": "x\n" }), requireApproval: false, timeoutMs: body.timeoutMs ?? 3000 });
        const driver = createDriver({ store: memoryStore(), leaseTtlMs: 6000, tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
        let running = true;
        let fired = 0;
        const tick = (): void => {
          if (!running) return;
          fired++;
          setTimeout(tick, 20);
        };
        setTimeout(tick, 20);
        const outcome = await driver.start("t");
        running = false;
        const ended = (await driver.events(outcome.runId)).find((e) => e.type === "call.finished") as { observation: JsonValue } | undefined;
        out.push({ observation: ended?.observation ?? null, fired, status: outcome.status, stopped: outcome.stopped ?? null });
      }
      return Response.json({ results: out });
    }
    if (url.pathname === "/bash/sqlite") {
      const stub = env.SHELLS.getByName(crypto.randomUUID()) as unknown as ShellObject;
      return Response.json(await stub.run(body.commands ?? []));
    }
    if (url.pathname.startsWith("/test/run/")) {
      const [, , , runId, action] = url.pathname.split("/");
      const stub = env.RUNS.getByName(runId!) as unknown as Remote<RunObject>;
      if (action === "plan") await stub.testPlan(runId!, body.point ?? null);
      if (action === "world") return Response.json(await stub.testWorld(runId!));
      if (action === "host") {
        try {
          return Response.json(await stub.host(runId as never, body.task ?? "t"));
        } catch (e) {
          const message = String((e as Error).message);
          if (!message.startsWith("crash at ")) throw e;
          return Response.json({ ok: true, value: runId, resetBeforeReply: message });
        }
      }
      return Response.json({ ok: true });
    }
    return workerApp(env).fetch(request, env, ctx);
  },
};
