/**
 * Importing a bundle into a store: verified whole first (read.ts), then
 * against the store's copy of the run, then written: the artifacts
 * (content-addressed, so a failed import leaves at most bytes nothing
 * names), the workspace when one is given, and the events in one atomic
 * `importEvents`. A run the store lacks is created; a copy that is a
 * prefix of the bundle is fast-forwarded; a bundle that is a prefix of the
 * copy changes nothing; a bundle that differs from the copy is refused,
 * naming the first differing event. A bundle that hands the run to this
 * store keeps the decisions it carries only when a key trusted here vouched
 * for it up to the seal; otherwise the store reopens its open calls in the
 * same write (handover.ts, trust.ts; docs/moves.md, "Trust").
 */
import { isIsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import { systemClock, type Clock } from "../clock.js";
import { apply, reduce, type JournalEvent, type RunMoved, type RunState, type RunStatus } from "../journal/index.js";
import { shapeChecker } from "../call/refusal.js";
import { loadStateAt } from "../store/load.js";
import { isJournalError } from "../journal/errors.js";
import { StoreError, type Custody, type Store } from "../store/index.js";
import type { Workspace } from "../workspace.js";
import { MoveError } from "./errors.js";
import { memoryCopies } from "./memory.js";
import { checkFencing, readBundle, type BundleInput, type BundleLimits, type VerifiedBundle } from "./read.js";
import { decideAgain } from "./handover.js";
import { vouchedSeq, type PlaceKeys } from "./trust.js";

/** Options of {@link importRun}. */
export interface ImportOptions extends BundleLimits {
  /**
   * This store's place name. A bundle whose last event is a `run.moved`
   * naming it hands the run to this store (the move's seal, pushed by its
   * source or pulled from it).
   */
  readonly here?: string;
  /** What the copy is otherwise: a read-only "mirror" (the default) or a run "in_transit" here, waiting for its seal. */
  readonly role?: "mirror" | "in_transit";
  /**
   * The tool shapes this store's driver offers (see `toolShapes`): a run
   * offered other shapes is refused (TOOL_SHAPE_CHANGED, naming the tool)
   * when the import hands it over or takes it in transit. A mirror is
   * never driven here, so it is not checked.
   */
  readonly tools?: readonly { readonly name: string; readonly specHash: string }[];
  /** Where the bundle's workspace goes (its files replace the workspace's, its receipts are recorded). */
  readonly workspace?: Workspace;
  /** The run the bundle must be of (the id in a URL): another is refused. */
  readonly runId?: string;
  /**
   * This place's keys (see {@link PlaceKeys}). A run handed here keeps the
   * decisions its history carries only when a key trusted here (or this
   * place's own signing key) vouched for it up to the seal; otherwise every
   * call it brings that is not pending and not yet observed is decided here
   * again. Default: no key, so nothing is trusted.
   */
  readonly keys?: PlaceKeys;
  /** Stamps the events this place writes as it takes a run over. Default: the system clock. */
  readonly clock?: Clock;
}

/** What an import did. */
export interface ImportResult {
  readonly runId: RunId;
  /** "created" (the store lacked the run), "fast_forwarded" (the copy grew), or "unchanged" (the store had every event). */
  readonly outcome: "created" | "fast_forwarded" | "unchanged";
  /** The copy's last event after the import. */
  readonly seq: number;
  /** Events written (the bundle's, and those this place wrote as it took the run over). */
  readonly written: number;
  /** The calls this place decides again as it takes the run over: their decisions were not vouched for by a key it trusts. */
  readonly reopened: number;
  readonly status: RunStatus;
  /** The run's custody here after the import: undefined when this store now owns the run. */
  readonly custody: Custody | undefined;
}

/** Snapshots of an imported run: one when it is created or has grown by this many events since the last. */
const SNAPSHOT_EVERY = 128;

/**
 * The store with its copy operations: a store that can take part in moves
 * has `importEvents`, `custody` and `abandonTransit` (a memory store gets
 * them from isoagent/move); MOVE_REFUSED for one that has not.
 */
export function movable(store: Store): Store & Required<Pick<Store, "importEvents" | "custody" | "abandonTransit">> {
  if (typeof store.importEvents !== "function") {
    const copies = memoryCopies(store);
    if (copies !== undefined) store = { ...store, ...copies };
  }
  if (typeof store.importEvents !== "function" || typeof store.custody !== "function" || typeof store.abandonTransit !== "function") {
    throw new MoveError("MOVE_REFUSED", "this store cannot take part in moves or mirrors: it has no importEvents, custody and abandonTransit (see the Store port)");
  }
  return store as Store & Required<Pick<Store, "importEvents" | "custody" | "abandonTransit">>;
}

/**
 * Imports a bundle (see {@link exportRun}): verified before anything is
 * written, written all or nothing. Refusals: the bundle's own (BUNDLE_*,
 * MOVE_FENCED), RUN_DIVERGED (the copy here differs: `seq` is the first
 * differing event), JOURNAL_CONFLICT (a tail that starts past the copy's
 * end: `actualSeq` says where it ends), RUN_NOT_FOUND (a tail of a run the
 * store lacks), RUN_OWNED (a bundle that would grow a run this store owns),
 * TOOL_SHAPE_CHANGED, BUNDLE_SIGNATURE_INVALID (a trusted key's signature
 * that fails). `reopened` in the result counts the calls decided again
 * here because no key trusted here vouched for them.
 *
 * @example
 * ```ts
 * const r = await importRun(store, request.body, { here: "edge", role: "in_transit", tools: toolShapes(tools), keys: await placeKeys({ trustedKeys: env.ISOAGENT_TRUSTED_KEYS }) })
 * // r.outcome: "created" | "fast_forwarded" | "unchanged"; r.custody: undefined once the run is owned here
 * ```
 */
export async function importRun(store: Store, input: BundleInput, options: ImportOptions = {}): Promise<ImportResult> {
  movable(store);
  const bundle = await readBundle(input, options);
  return importVerified(store, bundle, options);
}

/** Imports a bundle already read and verified in itself (see {@link readBundle}). */
export async function importVerified(store: Store, bundle: VerifiedBundle, options: ImportOptions = {}): Promise<ImportResult> {
  const s = movable(store);
  let runId: RunId;
  try {
    runId = parseRunId(bundle.header.runId);
  } catch {
    throw new MoveError("BUNDLE_INVALID", `the bundle's run id ${JSON.stringify(bundle.header.runId)} is not a run id`);
  }
  if (options.runId !== undefined && options.runId !== runId) throw new MoveError("BUNDLE_INVALID", `the bundle is of run ${runId}, not ${options.runId}`);
  const { from, to } = bundle.header;
  for (let attempt = 0; ; attempt++) {
    const copy = await load(s, runId);
    const head = copy?.state.seq ?? 0;
    if (copy === undefined) {
      if (from !== 1) throw new StoreError("RUN_NOT_FOUND", `no run ${runId} here: a bundle from event ${from} needs the events before it`);
    } else {
      if (from > head + 1)
        throw new StoreError("JOURNAL_CONFLICT", `run ${runId} is at event ${head} here: a bundle from event ${from} would leave a gap (export from event ${head + 1})`, { actualSeq: head });
      await compare(s, runId, copy.state, bundle);
    }
    const fresh = bundle.events.filter((e) => e.seq > head);
    const custodyNow = copy === undefined ? undefined : await s.custody(runId);
    if (fresh.length === 0) {
      return { runId, outcome: "unchanged", seq: head, written: 0, reopened: 0, status: copy!.state.status, custody: custodyNow };
    }
    // Refused before anything is written (the store refuses it again, atomically).
    if (copy !== undefined && custodyNow === undefined) throw new StoreError("RUN_OWNED", `run ${runId} is owned here: it grows by its own appends, never by an import`);
    let after: RunState;
    try {
      if (copy === undefined) after = reduce(fresh);
      else {
        checkFencing(fresh, fenceOf(copy.state));
        after = copy.state;
        for (const e of fresh) apply(after, e);
      }
    } catch (e) {
      if (isJournalError(e)) throw new MoveError("BUNDLE_INVALID", `the bundle's events do not make a run: ${e.message}`);
      throw e;
    }
    const last = fresh[fresh.length - 1]!;
    const role = options.role ?? "mirror";
    const handsOver = last.type === "run.moved" && options.here !== undefined && last.to === options.here;
    if (options.tools !== undefined && (handsOver || role === "in_transit")) shapeChecker(options.tools)(after);
    // Who vouches for the history: this copy as far as it was vouched for, and the bundle's signature by a key trusted here.
    const signed = await vouchedSeq(runId, bundle.signature, options.keys, (seq) => hashAt(s, runId, bundle, seq));
    const vouched = Math.max(custodyNow?.vouched ?? 0, signed);
    // A run handed here that nobody trusted here vouched for up to its seal: its open calls are decided here again.
    const own = handsOver && vouched < last.seq ? decideAgain(after, last as RunMoved, options.here!, options.clock ?? systemClock) : [];
    for (const bytes of bundle.artifacts.values()) await s.putArtifact(bytes);
    if (options.workspace !== undefined && bundle.workspace !== undefined) await applyWorkspace(options.workspace, bundle);
    let written: { seq: number; custody: Custody | undefined };
    try {
      written = await s.importEvents(runId, own.length === 0 ? fresh : [...fresh, ...own], { expectedSeq: head, status: after.status, role, here: options.here, own: own.length, vouched });
    } catch (e) {
      // Another import (or the owner) moved the copy meanwhile: judge the bundle against it again.
      if (isIsoagentError(e, "JOURNAL_CONFLICT") && attempt < 4) continue;
      throw e;
    }
    if (after.seq - (copy?.snapshotSeq ?? 0) >= SNAPSHOT_EVERY || copy === undefined) {
      await s.putSnapshot(runId, { seq: after.seq, hash: after.hash, state: after });
    }
    return {
      runId,
      outcome: copy === undefined ? "created" : "fast_forwarded",
      seq: written.seq,
      written: fresh.length + own.length,
      reopened: own.length,
      status: after.status,
      custody: written.custody,
    };
  }
}

/** The hash of event `seq` of the run the bundle continues: the bundle's own, the one it follows, or the copy's. */
async function hashAt(store: Store, runId: RunId, bundle: VerifiedBundle, seq: number): Promise<string | undefined> {
  const { from, prev } = bundle.header;
  if (seq >= from) return bundle.events[seq - from]?.hash;
  if (seq === from - 1) return prev;
  return (await store.read(runId, seq))[0]?.hash;
}

/** The copy's state (snapshot and tail, verified from the snapshot), and its snapshot's seq; undefined when the store lacks the run. */
async function load(store: Store, runId: RunId): Promise<{ state: RunState; snapshotSeq: number } | undefined> {
  try {
    return await loadStateAt(store, runId);
  } catch (e) {
    if (isIsoagentError(e, "RUN_NOT_FOUND")) return undefined;
    throw e;
  }
}

/** The fencing floor a copy's journal leaves: its last token (tokens only grow) and its last move's epoch. */
function fenceOf(state: RunState): { maxToken: number; floor: number } {
  const floor = state.moved?.epoch ?? 0;
  return { maxToken: Math.max(state.owner?.token ?? 0, floor), floor };
}

/** Holds the bundle's events that the copy also has to the copy's: the first that differs is where they diverged. */
async function compare(store: Store, runId: RunId, state: RunState, bundle: VerifiedBundle): Promise<void> {
  const { from, to, prev } = bundle.header;
  const end = Math.min(to, state.seq);
  if (from > state.seq) {
    // The bundle starts right after the copy's last event: it must link to it.
    if (prev !== state.hash) throw diverged(runId, from - 1, `the bundle's event ${from} does not follow this store's event ${from - 1}`);
    return;
  }
  const ours: JournalEvent[] = await store.read(runId, from);
  for (let seq = from; seq <= end; seq++) {
    const mine = ours[seq - from];
    const theirs = bundle.events[seq - from]!;
    if (mine === undefined || mine.hash !== theirs.hash) throw diverged(runId, seq, `the bundle's event ${seq} differs from this store's`);
  }
}

function diverged(runId: RunId, seq: number, what: string): MoveError {
  return new MoveError("RUN_DIVERGED", `run ${runId} diverged at event ${seq}: ${what}; nothing was written`, { seq });
}

/** The bundle's workspace replaces the workspace's files; its receipts are recorded. */
async function applyWorkspace(ws: Workspace, bundle: VerifiedBundle): Promise<void> {
  const files = bundle.workspace!.files;
  const keep = new Set(files.map((f) => f.path));
  const changes = [
    ...files.map((f) => ({ path: f.path, bytes: bundle.artifacts.get(f.sha256)! })),
    ...(await ws.list("")).filter((f) => !keep.has(f.path)).map((f) => ({ path: f.path, bytes: null })),
  ];
  const [first, ...rest] = bundle.workspace!.receipts;
  await ws.commit(changes, first);
  for (const r of rest) await ws.commit([], r);
}
