/**
 * Moves and mirrors on Durable Objects (isoagent/move): a run's object
 * exports, imports, seals and gives up runs in its own SQLite, through the
 * store its host drives on; the Worker routes each request to the run's
 * object, passing a bundle's bytes through as a stream (a whole run is
 * verified and written inside the object, in one transaction).
 */
import { type JsonValue, type RunId, type Store } from "../../src/index.js";
import type { MoveBackend } from "../../src/http/index.js";
import { bundleBytes, exportRun, importVerified, MoveError, readBundle, sealRun, type BundleInput, type ImportResult, type PlaceKeys } from "../../src/move/index.js";
import type { Workspace } from "../../src/workspace.js";
import { runObject, type MoveFaultPoint, type RunObjectApi } from "./api.js";
import type { RunBindings } from "./bindings.js";
import { unwire } from "./wire.js";
import { isId } from "../../src/ids.js";

/** The place name of a deployment's run objects, unless its config names another. */
export const DEFAULT_PLACE = "edge";

/** What a run object gives the move operations. */
export interface MoveHost {
  readonly place: string;
  /** The store its host drives the run on (imports into it are hosted: the run is driven here once owned). */
  store(): Store;
  /** The run's task, when the object holds a run. */
  task(): JsonValue | undefined;
  /** The tools and workspace a host of `runId` with `task` gets. */
  tools(runId: RunId, task: JsonValue): Promise<readonly { name: string; specHash: string }[]>;
  workspace(runId: RunId, task: JsonValue): Workspace | undefined;
  /** This place's keys: what its exports sign with, whose signatures it trusts. */
  keys(): Promise<PlaceKeys>;
  /** Starts driving the run (it was handed to this object). */
  drive(): void;
  /** The crash tests' fault injection. */
  fault(point: MoveFaultPoint): Promise<void>;
}

/** The run as a byte stream of its bundle (RUN_NOT_FOUND before any byte). */
export async function moveExport(host: MoveHost, runId: RunId, fromSeq: number): Promise<ReadableStream<Uint8Array>> {
  const store = host.store();
  await store.custody!(runId);
  const workspace = host.workspace(runId, host.task() ?? null);
  const { signing } = await host.keys();
  const chunks = bundleBytes(exportRun(store, runId, { fromSeq, ...(workspace === undefined ? {} : { workspace }), ...(signing === undefined ? {} : { signing }) }))[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done === true) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/** Imports a bundle into this object's copy of its run; drives the run when the bundle hands it here. */
export async function moveImport(host: MoveHost, body: BundleInput, options: { role: "mirror" | "in_transit"; runId?: string; maxBytes: number }): Promise<ImportResult> {
  const bundle = await readBundle(body, { maxBytes: options.maxBytes });
  const runId = bundle.header.runId as RunId;
  const first = bundle.events[0];
  const task = host.task() ?? (first?.type === "run.created" ? first.task : null);
  const workspace = host.workspace(runId, task);
  const r = await importVerified(host.store(), bundle, {
    here: host.place,
    role: options.role,
    tools: await host.tools(runId, task),
    keys: await host.keys(),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(workspace === undefined ? {} : { workspace }),
  });
  await host.fault("move/imported");
  if (r.custody === undefined && r.written > 0) host.drive();
  return r;
}

/** Seals the run here in favour of `to`. */
export async function moveRelease(host: MoveHost, runId: RunId, to: string): Promise<{ seq: number; epoch: number }> {
  const sealed = await sealRun(host.store(), runId, { from: host.place, to });
  await host.fault("move/sealed");
  return sealed;
}

/**
 * Reads a bundle's first line (its header) to learn its run, and returns a
 * stream of the whole body again (the header's bytes, then the rest).
 */
async function peekRun(body: ReadableStream<Uint8Array>, maxHeader = 64 * 1024): Promise<{ runId: string; body: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let line: string | undefined;
  while (line === undefined) {
    const { done, value } = await reader.read();
    if (done || value === undefined) break;
    head.push(value);
    size += value.length;
    const joined = new Uint8Array(size);
    let at = 0;
    for (const h of head) {
      joined.set(h, at);
      at += h.length;
    }
    const nl = joined.indexOf(10);
    if (nl >= 0) line = new TextDecoder().decode(joined.subarray(0, nl));
    else if (size > maxHeader) break;
  }
  let runId: unknown;
  try {
    runId = (JSON.parse(line ?? "null") as { bundle?: { runId?: unknown } } | null)?.bundle?.runId;
  } catch {
    runId = undefined;
  }
  if (!isId(runId)) {
    await reader.cancel().catch(() => {});
    throw new MoveError("BUNDLE_INVALID", 'line 1 is not a bundle header: a bundle starts with {"bundle": {...}}');
  }
  let k = 0;
  return {
    runId,
    body: new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (k < head.length) return controller.enqueue(head[k++]!);
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (r) => reader.cancel(r),
    }),
  };
}

/** The Worker side: each move request goes to the run's object; `run` finds an existing one (404 otherwise, without creating it). */
export function durableObjectMoves(env: RunBindings, run: (runId: string) => Promise<RunObjectApi>, remember: (runId: string) => void, place: string = DEFAULT_PLACE): MoveBackend {
  return {
    place,
    custody: async (runId) => unwire(await (await run(runId)).storeCustody(runId)) ?? undefined,
    exportRun: async (runId, fromSeq) => unwire(await (await run(runId)).moveExport(runId, fromSeq)),
    async importRun(body, options) {
      let stream = body as unknown as ReadableStream<Uint8Array>;
      let runId = options.runId as string | undefined;
      if (typeof body === "string" || body instanceof Uint8Array) stream = new Blob([body]).stream();
      if (runId === undefined) ({ runId, body: stream } = await peekRun(stream));
      // Importing creates the run's object: the one route besides POST /runs that may.
      const r = unwire(await runObject(env.RUNS, runId).moveImport(stream, { role: options.role, maxBytes: options.maxBytes, ...(options.runId === undefined ? {} : { runId: options.runId }) }));
      remember(runId);
      return { ...r, custody: r.custody ?? undefined };
    },
    releaseRun: async (runId, to) => unwire(await (await run(runId)).moveRelease(runId, to)),
    abandonRun: async (runId) => unwire(await (await run(runId)).storeAbandonTransit(runId)),
  };
}
