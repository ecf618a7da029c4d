import {
  createDriver,
  defineTool,
  memoryStore,
  scriptedAgent,
  strictObject,
  string,
  type Agent,
  type AgentView,
  type DriverOptions,
  type JournalEvent,
  type ScriptStep,
  type Store,
  type Tool,
} from "../../src/index.js";
import { StoreError, type StoreErrorCode } from "../../src/store/index.js";
import { manualClock, sequentialIds, type ManualClock, Crash, type FaultPoint, type Faults } from "../../src/testkit/index.js";

/**
 * Crashes the driver the first `times` times (default once) it reaches
 * `point` for `tool` (the testkit's Crash: the process dies there); share
 * one between drivers to crash every drive, as a crash loop does.
 */
export function crashAt(point: FaultPoint, tool: string, times = 1): Faults & { crashes: number } {
  const faults = {
    crashes: 0,
    at: (p: FaultPoint, where: { readonly tool: string }) => {
      if (faults.crashes < times && p === point && where.tool === tool) {
        faults.crashes++;
        throw new Crash();
      }
    },
  };
  return faults;
}

/** A store that records every append batch, to check what was written together. */
export function recordingStore(inner: Store): Store & { batches: JournalEvent["type"][][] } {
  const batches: JournalEvent["type"][][] = [];
  return Object.assign(Object.create(null) as object, inner, {
    batches,
    async append(...args: Parameters<Store["append"]>) {
      const head = await inner.append(...args);
      batches.push(args[1].map((e) => e.type));
      return head;
    },
  }) as Store & { batches: JournalEvent["type"][][] };
}

/**
 * A memory store (or `options.inner`) whose appends from the `from`-th on
 * (with `options.only`, the `from`-th alone) are refused with a StoreError
 * of `code` (message "the store refused append <n> (<code>)"); it counts
 * appends and lease releases.
 */
export function refusingStore(from: number, code: StoreErrorCode, options: { only?: boolean; inner?: Store } = {}): { store: Store; inner: Store; counts: { appends: number; releases: number } } {
  const inner = options.inner ?? memoryStore();
  const counts = { appends: 0, releases: 0 };
  const store = Object.assign(Object.create(null) as object, inner, {
    async append(...args: Parameters<Store["append"]>) {
      const n = ++counts.appends;
      if (options.only === true ? n === from : n >= from) throw new StoreError(code, `the store refused append ${n} (${code})`, code === "JOURNAL_CONFLICT" ? { actualSeq: args[2].expectedSeq } : {});
      return inner.append(...args);
    },
    async releaseLease(...args: Parameters<Store["releaseLease"]>) {
      counts.releases++;
      return inner.releaseLease(...args);
    },
  }) as Store;
  return { store, inner, counts };
}

/** A little outside world the demo tools act on. */
export interface World {
  files: Record<string, string>;
  /** Every execution of an effectful tool: idempotency key and attempt. */
  executions: { tool: string; key: string; attempt: number }[];
}

export function worldTools(world: World) {
  const readFile = defineTool<{ path: string }>({
    name: "read_file",
    description: "Read a file.",
    inputSchema: strictObject({ path: string("Path") }),
    sideEffect: "read_only",
    parallelSafe: true,
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: (a, ctx) => {
      world.executions.push({ tool: "read_file", key: ctx.idempotencyKey, attempt: ctx.attempt });
      return world.files[a.path] ?? null;
    },
  });
  const writeFile = defineTool<{ path: string; content: string }>({
    name: "write_file",
    description: "Write a file.",
    inputSchema: strictObject({ path: string("Path"), content: string("Content") }),
    sideEffect: "local_mutation",
    permission: "allow",
    timeoutMs: 1000,
    resources: (a) => [{ kind: "path", value: a.path }],
    call: (a, ctx) => {
      world.executions.push({ tool: "write_file", key: ctx.idempotencyKey, attempt: ctx.attempt });
      world.files[a.path] = a.content;
      return { written: a.content.length };
    },
  });
  return { readFile, writeFile };
}

export interface Harness {
  readonly clock: ManualClock;
  readonly store: Store & { batches: JournalEvent["type"][][] };
  readonly world: World;
  readonly views: AgentView[];
  driver(overrides?: Partial<DriverOptions>): ReturnType<typeof createDriver>;
}

/** A driver over a memory store with a manual clock, a scripted agent that records what it is shown, and the world's tools. */
export function harness(script: readonly ScriptStep[], options: { tools?: Tool<never, unknown>[]; agent?: Agent } & Partial<DriverOptions> = {}): Harness {
  const clock = manualClock();
  const store = recordingStore(memoryStore({ clock }));
  const world: World = { files: { "notes.md": "hello" }, executions: [] };
  const { readFile, writeFile } = worldTools(world);
  const views: AgentView[] = [];
  const scripted = scriptedAgent(script);
  const agent: Agent = options.agent ?? {
    decide: (view, ctx) => {
      views.push({ ...view, transcript: [...view.transcript] });
      return scripted.decide(view, ctx);
    },
  };
  const ids = sequentialIds();
  return {
    clock,
    store,
    world,
    views,
    driver: (overrides = {}) => createDriver({ store, agent, tools: options.tools ?? ([readFile, writeFile] as Tool<never, unknown>[]), clock, ids, owner: "driver-1", ...options, ...overrides }),
  };
}

/** The events of a run, without seals: for pinning by exact value. */
export async function eventsOf(store: Store, runId: string): Promise<Record<string, unknown>[]> {
  return (await store.read(runId as never)).map(({ v: _v, at: _at, seq: _s, prev: _p, hash: _h, ...rest }) => rest);
}
