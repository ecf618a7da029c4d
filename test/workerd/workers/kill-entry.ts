/**
 * The Worker the process-kill test runs in workerd (test/kill/workerd-kill.test.ts):
 * the runs API on Durable Objects, each run hosted by its object with the
 * default durability (the output gate), and tools of every side-effect class
 * whose effect is a request to an observer outside the killed processes,
 * carrying the call's idempotency key and attempt. The observer (in the test
 * process) is the record of every effect that really happened.
 */
import { runObjectClass, RunIndex, workerApp, type WorkerEnv } from "../../../adapters/durable-object/index.js";
import { defineTool, rulesPolicy, strictObject, string, type SideEffect, type Tool } from "../../../src/index.js";
import { killAgent } from "../../kill/agent.js";

interface Env extends WorkerEnv {
  /** Where effects are reported: the test process's observer. */
  readonly OBSERVER_URL: string;
}

/** A tool of a side-effect class whose effect is one POST to the observer, after a short delay that widens the windows a kill can fall in. */
function effectTool(env: Env, runId: string, name: string, sideEffect: SideEffect): Tool<never, unknown> {
  return defineTool<{ what: string }>({
    name,
    description: `A ${sideEffect} tool whose effect the observer records.`,
    inputSchema: strictObject({ what: string("What to act on") }),
    ...(sideEffect === "read_only" ? { sideEffect, parallelSafe: true } : { sideEffect, permission: "allow" as const }),
    timeoutMs: 10_000,
    call: async (args, ctx) => {
      await new Promise((r) => setTimeout(r, 20 + ((ctx.idempotencyKey.length * 7 + ctx.attempt * 13) % 120)));
      const res = await fetch(`${env.OBSERVER_URL}/effect`, {
        method: "POST",
        body: JSON.stringify({ runId, key: ctx.idempotencyKey, attempt: ctx.attempt, tool: name, sideEffect, what: args.what }),
      });
      if (!res.ok) throw new Error(`observer: ${res.status}`);
      return { done: args.what };
    },
  }) as Tool<never, unknown>;
}

const TOOLS: [string, SideEffect][] = [
  ["look", "read_only"],
  ["note", "local_mutation"],
  ["send", "remote_mutation"],
  ["wipe", "destructive"],
];

export const RunObject = runObjectClass<Env>({
  leaseTtlMs: 2_000,
  tools: ({ env, runId }) => TOOLS.map(([name, sideEffect]) => effectTool(env, runId, name, sideEffect)),
  // An operator answers: every local mutation and destructive call asks first.
  policy: () =>
    rulesPolicy([
      { tool: "note", permission: "ask" },
      { tool: "wipe", permission: "ask" },
    ]),
  // A task's steps, or a conversation's turns (test/kill/agent.ts).
  agent: ({ task }) => killAgent(() => typeof task === "string" && task.startsWith("kill chat")),
});
export { RunIndex };

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/test/stranded") {
      // The index's own check: each listed run's object, its lease and its alarm.
      return Response.json(await env.RUN_INDEX.getByName("index").stranded({ graceMs: Number(url.searchParams.get("grace") ?? 0) }));
    }
    return workerApp(env).fetch(request, env, ctx);
  },
};
