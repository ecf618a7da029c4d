/**
 * The console over a driver in Node, for the e2e tests that need runs in
 * every state and custody (isoagent/move): an edge (driverBackend with
 * storeMoveBackend over a memory store, served by @hono/node-server on
 * port 0) and a tab (another memory store, with its own driver) whose runs
 * become the edge's mirrors, copies in transit, or runs the edge moved away.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Driver, type RunId, type Tool } from "../../src/index.js";
import { lineDiff } from "../../src/tools/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { bundleText, exportRun, localPlace, movable, moveRun, toolShapes } from "../../src/move/index.js";
import { until } from "./time.js";

/**
 * The tasks the agent knows: each run's task says what it does. "ask" writes
 * a new file (asked first), "edit" changes a file the tools know (its
 * preview a diff with every kind of line), "long" looks 30 times and then
 * edits, "hold" runs a call until the test lets go, "done" ends at once,
 * "fail" fails (its agent throws).
 */
export type Task = "ask" | "edit" | "long" | "hold" | "done" | "fail";

/** The file "edit" changes, as the tools know it before. */
export const BEFORE = "a\n-- dashes\nb\nc\nd\ne\nf\ng\nh\nlast";
export const AFTER = "a\n++ plus\nb\nc\nd\ne\nf\ng\nh\nlast\n";

export interface ConsoleNode {
  readonly origin: string;
  readonly token: string;
  readonly edge: Driver;
  readonly tab: Driver;
  /** A run made at the edge, driven until it waits, holds (running), completes, or fails. */
  create(task: Task): Promise<RunId>;
  /** A run made in the tab (waiting for its write), copied to the edge as a mirror or in transit. */
  copy(role: "mirror" | "in_transit"): Promise<RunId>;
  /** A waiting run of the edge's, moved to the tab: the edge keeps a copy that moved away. */
  movedAway(): Promise<RunId>;
  /** Moves a run of the edge's to the tab. */
  moveAway(runId: RunId): Promise<void>;
  /** The API with the operator token. */
  api(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  /** Lets every held run go on. */
  release(): void;
  close(): Promise<void>;
}

export async function consoleNode(token: string): Promise<ConsoleNode> {
  let release = (): void => {};
  const held = new Promise<void>((r) => (release = r));
  const write = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string(), content: string() }),
    sideEffect: "local_mutation",
    permission: "ask",
    timeoutMs: 1000,
    preview: (a) => lineDiff(a.path, a.path === "notes.md" ? BEFORE : undefined, a.content),
    call: () => "written",
  });
  const hold = defineTool<Record<string, never>>({
    name: "hold",
    description: "Wait until the test lets go.",
    inputSchema: strictObject({}),
    sideEffect: "read_only",
    timeoutMs: 600_000,
    call: async () => (await held, "released"),
  });
  const look = defineTool<Record<string, never>>({ name: "look", description: "Look around.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "seen" });
  const tools = [write, hold, look] as Tool<never, unknown>[];
  const shapes = toolShapes(tools);
  const agent = scriptedAgent((v) => {
    const task = v.task as Task;
    if (task === "fail") throw new Error("the model is out of reach");
    if (task === "long" && v.step <= 30) return calls(call("look", {}));
    if (task === "done" || v.step > (task === "long" ? 31 : 1)) return final(`${task}: done`);
    if (task === "edit" || task === "long") return calls(call("write_file", { path: "notes.md", content: AFTER }));
    return task === "hold" ? calls(call("hold", {})) : calls(call("write_file", { path: "out.md", content: "one\ntwo\n" }));
  });
  const policy = rulesPolicy([{ tool: "write_file", permission: "ask" }]);
  const edgeStore = memoryStore();
  const edge = createDriver({ store: edgeStore, owner: "edge-host", agent, tools, policy });
  const backend = driverBackend(edge, { move: (drive) => storeMoveBackend(edgeStore, { place: "edge", tools: shapes, onOwned: drive }) });
  const app = createHttpApp({ backend, tokens: () => [token] });
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tabStore = movable(memoryStore());
  const tab = createDriver({ store: tabStore, owner: "tab-driver", agent, tools, policy });

  const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${origin}${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const settled = async (runId: RunId, task: Task) => {
    const want = { ask: "waiting", edit: "waiting", long: "waiting", hold: "running", done: "completed", fail: "failed" }[task];
    await until(
      `run ${runId} to be ${want}`,
      async () => (await api(`/runs/${runId}`)).body.run.status === want && (task !== "hold" || (await edge.events(runId)).some((e) => e.type === "call.started")),
    );
  };
  const create = async (task: Task): Promise<RunId> => {
    const { body } = await api("/runs", { method: "POST", body: { task } });
    await settled(body.runId, task);
    return body.runId;
  };
  const moveAway = async (runId: RunId): Promise<void> => {
    await moveRun(runId, localPlace(edgeStore, { name: "edge", tools: shapes }), localPlace(tabStore, { name: "tab:1", tools: shapes }));
  };
  return {
    origin,
    token,
    edge,
    tab,
    api,
    create,
    async copy(role) {
      const o = await tab.start("ask");
      const bundle = await bundleText(exportRun(tabStore, o.runId));
      const res = await fetch(role === "mirror" ? `${origin}/runs/${o.runId}/mirror` : `${origin}/runs/import?role=in_transit`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
        body: bundle,
      });
      if (res.status !== 201) throw new Error(`the ${role} copy was refused: ${res.status} ${await res.text()}`);
      return o.runId;
    },
    moveAway,
    async movedAway() {
      const runId = await create("ask");
      await moveAway(runId);
      return runId;
    },
    release,
    async close() {
      release();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
