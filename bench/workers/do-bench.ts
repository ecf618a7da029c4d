/**
 * The Worker of `npm run bench -- do`. Run objects whose hosted runs call one
 * local_mutation tool per step, in two durabilities:
 * - "sync": the tool does nothing; the driver confirms its journal with
 *   `storage.sync()` before each call. Baseline: one small insert per
 *   transaction, each followed by `storage.sync()`.
 * - "output-gate": the tool's effect is one RPC to another object, which the
 *   output gate holds until the journal before it is confirmed. Baseline: one
 *   small insert per transaction, each followed by the same RPC.
 * Baselines run in the same object as the run they are compared with.
 */
import { defineRunObject, durableObjectStore, RunIndex, runObject, unwire, type WorkerEnv } from "../../adapters/durable-object/index.js";
import { call, calls, createDriver, defineTool, final, scriptedAgent, strictObject, type RunId, type Tool } from "../../src/index.js";

type Durability = "sync" | "output-gate";
interface BenchTask {
  readonly steps: number;
  readonly durability: Durability;
}

/** Another object, for the effect that is a message. */
const peerOf = (env: WorkerEnv) => env.RUNS.getByName("peer") as unknown as RunObject;

function toolsFor(env: WorkerEnv, durability: Durability): Tool<never, unknown>[] {
  return [
    defineTool({
      name: "touch",
      description: "A local mutation: nothing, or one message to another object.",
      inputSchema: strictObject({}),
      sideEffect: "local_mutation",
      permission: "allow",
      timeoutMs: 5000,
      call: async () => (durability === "output-gate" ? await peerOf(env).ping() : "ok"),
    }) as Tool<never, unknown>,
  ];
}
const agentFor = (n: number) => scriptedAgent((view) => (view.step <= n ? calls(call("touch")) : final("done")));

const Base = defineRunObject<WorkerEnv>({
  agent: (hc) => agentFor((hc.task as unknown as BenchTask).steps),
  tools: (hc) => toolsFor(hc.env, (hc.task as unknown as BenchTask).durability),
  durability: (hc) => (hc.task as unknown as BenchTask).durability,
  limits: { maxSteps: 100_000 },
});

export class RunObject extends Base {
  /**
   * The baseline: n small inserts, each its own transaction, each confirmed
   * as the driver of that durability confirms. With `writes` 2, each step is
   * what the journal of an effectful step needs at least: an insert
   * confirmed before the effect, then a second insert after it (confirmed
   * with the next step's), so the gap left is the driver's own.
   */
  async benchRaw(n: number, durability: Durability, writes = 1): Promise<number> {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS bench_raw (seq INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL)");
    const peer = peerOf(this.env);
    for (let k = 0; k < n; k++) {
      this.ctx.storage.transactionSync(() => sql.exec("INSERT INTO bench_raw (body) VALUES (?)", `{"type":"bench","k":${k}}`));
      if (durability === "sync") await this.ctx.storage.sync();
      else await peer.ping();
      if (writes === 2) this.ctx.storage.transactionSync(() => sql.exec("INSERT INTO bench_raw (body) VALUES (?)", `{"type":"after","k":${k}}`));
    }
    return n;
  }
  ping(): string {
    return "pong";
  }
}
export { RunIndex };

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    const name = url.searchParams.get("object")!;
    const n = Number(url.searchParams.get("steps"));
    const durability = (url.searchParams.get("durability") ?? "sync") as Durability;
    if (url.pathname === "/raw") {
      await (env.RUNS.getByName(name) as unknown as RunObject).benchRaw(n, durability, Number(url.searchParams.get("writes") ?? 1));
      return Response.json({ status: "completed", seq: 3 + 4 * n + 1 });
    }
    if (url.pathname === "/hosted") {
      // The object drives its own run: no RPC per step.
      const stub = runObject(env.RUNS, name);
      unwire(await stub.host(name as RunId, { steps: n, durability }));
      const outcome = unwire(await stub.hostDrive());
      const state = outcome ?? unwire(await stub.hostState(name as RunId));
      return Response.json({ status: state.status, seq: state.seq });
    }
    if (url.pathname === "/remote") {
      // A driver in this Worker: every append and lease call is an RPC to the run's object, whose reply the output gate holds.
      const driver = createDriver({ store: durableObjectStore({ runs: env.RUNS, index: env.RUN_INDEX }), agent: agentFor(n), tools: toolsFor(env, "sync"), limits: { maxSteps: n + 1 } });
      const outcome = await driver.start({ steps: n, durability: "sync" }, { runId: name as RunId });
      return Response.json({ status: outcome.status, seq: outcome.seq });
    }
    return new Response("not found", { status: 404 });
  },
};
