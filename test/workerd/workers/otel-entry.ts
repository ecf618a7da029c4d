/**
 * The Worker of the span export tests in workerd (test/workerd/otel.test.ts):
 * run objects that export their runs' spans to OTEL_ENDPOINT (a collector in
 * the test's process), routes that host a run and reset its object
 * (`state.abort()`), and an object holding only an export cursor, for the
 * cursor conformance suite.
 */
import { DurableObject } from "cloudflare:workers";
import { runObjectClass, RunIndex, sqlCursor, workerApp, type WorkerEnv } from "../../../adapters/durable-object/index.js";
import { call, calls, defineTool, final, rulesPolicy, scriptedAgent, strictObject, string, type JsonValue, type RunId, type Tool } from "../../../src/index.js";
import type { Remote } from "./remote.js";

interface Env extends WorkerEnv {
  readonly OTEL_ENDPOINT: string;
  readonly CURSORS: DurableObjectNamespace<CursorObject>;
}

const add = defineTool<{ item: string }>({
  name: "add",
  description: "Add an item to the list.",
  inputSchema: strictObject({ item: string("The item") }),
  sideEffect: "local_mutation",
  permission: "allow",
  timeoutMs: 1000,
  call: (args) => `added ${args.item}`,
}) as Tool<never, unknown>;
const look = defineTool({ name: "look", description: "Look at the list.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "a, b" }) as Tool<never, unknown>;

const Base = runObjectClass<Env>({
  leaseTtlMs: 400,
  agent: () => scriptedAgent([calls(call("add", { item: "a" })), calls(call("look"), call("look")), calls(call("add", { item: "b" })), calls(call("look")), final("done")]),
  tools: () => [add, look],
  // "ask": every add waits for an operator; otherwise the run goes through on its own.
  policy: (hc) => rulesPolicy(hc.task === "ask" ? [{ tool: "add", permission: "ask" }] : []),
  otel: ({ env }) => ({
    endpoint: env.OTEL_ENDPOINT,
    headers: { authorization: "Bearer otel-test-key" },
    resource: { serviceName: "otel-workerd-test" },
    delayMs: 20,
    backoffMs: 100,
    maxBackoffMs: 400,
    timeoutMs: 2000,
  }),
});

export class RunObject extends Base {
  /** Resets the object, as a crash would: what it has not confirmed is lost, its alarm stays. */
  testReset(): void {
    this.ctx.abort("reset by the test");
  }
  /** The run's export cursor, and the object's SQLite tables. */
  async testCursor(runId: string): Promise<{ cursor: number; tables: string[] }> {
    const tables = this.ctx.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name")
      .toArray()
      .map((r) => r.name);
    return { cursor: await sqlCursor(this.ctx.storage).get(runId as RunId), tables };
  }
}
export { RunIndex };

/** An object holding an export cursor in its SQLite, reached over RPC by the cursor suite in Node. */
export class CursorObject extends DurableObject {
  private readonly cursor = sqlCursor(this.ctx.storage);
  get(runId: string): Promise<number> {
    return this.cursor.get(runId as RunId);
  }
  set(runId: string, seq: number): Promise<void> {
    return this.cursor.set(runId as RunId, seq);
  }
  reset(): void {
    this.ctx.abort("reset by the test");
  }
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const [, test, kind, name, action] = url.pathname.split("/");
    if (test === "test" && kind === "cursor") {
      const stub = env.CURSORS.getByName(name!) as unknown as CursorObject;
      const args = (await request.json()) as [string, number];
      if (action === "reset") {
        await Promise.resolve(stub.reset()).catch(() => {});
        return Response.json({ ok: true });
      }
      return Response.json({ value: action === "get" ? await stub.get(args[0]) : ((await stub.set(args[0], args[1])) ?? null) });
    }
    if (test === "test" && kind === "otel") {
      const stub = env.RUNS.getByName(name!) as unknown as Remote<RunObject>;
      if (action === "host") return Response.json(await stub.host(name as RunId, ((await request.json()) as { task: JsonValue }).task));
      if (action === "reset") {
        // The reset reaches the caller as an error: the object is gone.
        await Promise.resolve(stub.testReset()).catch(() => {});
        return Response.json({ ok: true });
      }
      if (action === "cursor") {
        return Response.json(await stub.testCursor(name!));
      }
    }
    return workerApp(env).fetch(request, env, ctx);
  },
};
