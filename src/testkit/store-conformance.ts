/**
 * The conformance suite every Store passes: memory, IndexedDB, Durable
 * Object, and any third party's. It needs no test framework: give it yours
 * (`test: it` from vitest, node:test's `test`, ...).
 *
 * @example
 * ```ts
 * import { it } from "vitest"
 * runStoreConformance({
 *   name: "memory",
 *   test: it,
 *   create: () => { const clock = manualClock(); return { store: memoryStore({ clock }), advance: async (ms) => clock.advance(ms) } },
 * })
 * ```
 */
import { isIsoagentError } from "../errors.js";
import { ConformanceFailure, registerCases, type ConformanceSkip } from "./conformance.js";
import { parseRunId, type RunId } from "../ids.js";
import { sealAfter } from "./chain.js";
import { seal, type JournalEvent, type RunCreated, type UnsealedEvent } from "../journal/index.js";
import type { Lease, RunFilter, RunSummary, Store } from "../store/index.js";
import { sha256HexSync, type JsonValue } from "../json/index.js";
import { decodeUtf8Fatal, encodeUtf8 } from "../web.js";
import { MOVE_CASES } from "./move-conformance.js";
import { CONVERSATION_CASES } from "./conversation-conformance.js";

export type { ConformanceSkip } from "./conformance.js";

/** A fresh store, and a way to let its clock move on by `ms` (a manual clock, or a real wait). */
export interface StoreUnderTest {
  readonly store: Store;
  advance(ms: number): Promise<void>;
  /** Called after the case, to free resources. */
  dispose?(): Promise<void>;
}

/** What `runStoreConformance` runs: a name for the suite, a factory for a fresh store under test, the cases to skip (each with its reason), and the test runner's `test`. */
export interface StoreConformanceOptions {
  readonly name: string;
  readonly create: () => StoreUnderTest | Promise<StoreUnderTest>;
  readonly skip?: readonly ConformanceSkip[];
  /** Registers one test: vitest's `it`, node:test's `test`, ... */
  readonly test: (name: string, fn: () => Promise<void>) => void;
}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new ConformanceFailure(what);
}

async function refuses(p: Promise<unknown>, code: string, what: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    check(isIsoagentError(e, code as never), `${what}: expected ${code}, got ${isIsoagentError(e) ? e.code : String(e)}`);
    return;
  }
  throw new ConformanceFailure(`${what}: expected ${code}, but it succeeded`);
}

let counter = 0;
const newRunId = (): RunId => parseRunId(`conf_${++counter}`);

function created(runId: RunId, at = 1000, task: JsonValue = { t: "conformance" }): RunCreated {
  return seal({ v: 1, at, type: "run.created", runId, task, tools: [], limits: { maxSteps: 5, maxConsecutiveFailures: 3, runTimeoutMs: 0 } }, 1, "") as RunCreated;
}

const after = sealAfter;

const resumed = (token: number, at = 1001): UnsealedEvent => ({ v: 1, at, type: "run.resumed", owner: "o", token });
const cancelled = (at = 1002): UnsealedEvent => ({ v: 1, at, type: "run.cancelled", by: "operator" });

/** One case of the store conformance suite. */
export type StoreCase = (s: StoreUnderTest) => Promise<void>;

async function withRun(s: StoreUnderTest): Promise<{ runId: RunId; first: RunCreated }> {
  const runId = newRunId();
  const first = created(runId);
  await s.store.createRun(first);
  return { runId, first };
}

async function lease(s: StoreUnderTest, runId: RunId, owner = "a", ttl = 10_000): Promise<Lease> {
  const l = await s.store.acquireLease(runId, owner, ttl);
  check(l !== null, "acquireLease on a free run returns a lease");
  return l;
}

/** Every case, by name. */
export const STORE_CASES: Readonly<Record<string, StoreCase>> = {
  "createRun stores the first event, and refuses an id twice": async (s) => {
    const { runId, first } = await withRun(s);
    const events = await s.store.read(runId);
    check(events.length === 1 && events[0]!.hash === first.hash && events[0]!.type === "run.created", "read returns run.created");
    await refuses(s.store.createRun(first), "RUN_EXISTS", "creating a run twice");
  },
  "createRun refuses a first event that is not run.created at seq 1": async (s) => {
    const runId = newRunId();
    const bad = seal({ v: 1, at: 1, type: "run.resumed", owner: "x", token: 1 }, 1, "") as unknown as RunCreated;
    await refuses(s.store.createRun(bad), "STORE_INVALID_APPEND", "creating with run.resumed");
    await refuses(s.store.read(runId), "RUN_NOT_FOUND", "the refused run does not exist");
  },
  "read of an unknown run is RUN_NOT_FOUND": async (s) => {
    await refuses(s.store.read(newRunId()), "RUN_NOT_FOUND", "reading an unknown run");
    await refuses(s.store.append(newRunId(), [], { expectedSeq: 1 }, "running"), "RUN_NOT_FOUND", "appending to an unknown run");
  },
  "append with the lease appends atomically and returns the head": async (s) => {
    const { runId, first } = await withRun(s);
    const l = await lease(s, runId);
    const batch = after(first, [resumed(l.token), resumed(l.token, 1002)]);
    const head = await s.store.append(runId, batch, { expectedSeq: 1, lease: l }, "running");
    check(head.seq === 3 && head.hash === batch[1]!.hash, "the head is the last event appended");
    const events = await s.store.read(runId);
    check(events.map((e) => e.seq).join(",") === "1,2,3", "events are read in order");
    const tail = await s.store.read(runId, 2);
    check(tail.length === 2 && tail[0]!.seq === 2, "read from a seq returns the tail");
    check(JSON.stringify(events[1]) === JSON.stringify(batch[0]), "an event reads back exactly as written");
  },
  "append refuses a moved sequence with JOURNAL_CONFLICT": async (s) => {
    const { runId, first } = await withRun(s);
    const l = await lease(s, runId);
    const one = after(first, [resumed(l.token)]);
    await s.store.append(runId, one, { expectedSeq: 1, lease: l }, "running");
    try {
      await s.store.append(runId, after(first, [resumed(l.token)]), { expectedSeq: 1, lease: l }, "running");
      throw new ConformanceFailure("an append after a moved sequence succeeded");
    } catch (e) {
      check(isIsoagentError(e, "JOURNAL_CONFLICT"), `expected JOURNAL_CONFLICT, got ${String(e)}`);
      check((e as { actualSeq?: number }).actualSeq === 2, "the conflict says where the journal is");
    }
  },
  "append refuses a batch that is not a chain, writing nothing": async (s) => {
    const { runId, first } = await withRun(s);
    const l = await lease(s, runId);
    const good = after(first, [resumed(l.token), resumed(l.token, 1002)]);
    const broken = [good[0]!, { ...good[1]!, prev: "0".repeat(64) }];
    await refuses(s.store.append(runId, broken, { expectedSeq: 1, lease: l }, "running"), "STORE_INVALID_APPEND", "a batch whose second event does not link");
    const gap = [good[0]!, { ...good[1]!, seq: 4 }];
    await refuses(s.store.append(runId, gap as JournalEvent[], { expectedSeq: 1, lease: l }, "running"), "STORE_INVALID_APPEND", "a batch with a gap");
    await refuses(s.store.append(runId, [], { expectedSeq: 1, lease: l }, "running"), "STORE_INVALID_APPEND", "an empty batch");
    check((await s.store.read(runId)).length === 1, "nothing of a refused batch is written");
  },
  "append without a lease takes only operator events": async (s) => {
    const { runId, first } = await withRun(s);
    await refuses(s.store.append(runId, after(first, [resumed(1)]), { expectedSeq: 1 }, "running"), "STORE_INVALID_APPEND", "run.resumed without a lease");
    const head = await s.store.append(runId, after(first, [cancelled()]), { expectedSeq: 1 }, "cancelled");
    check(head.seq === 2, "an operator's cancellation is appended without the lease");
  },
  "watch (when the store has it) tells each append to its run, once, after it is readable, until stopped": async (s) => {
    const watch = s.store.watch;
    if (watch === undefined) return;
    const { runId, first } = await withRun(s);
    const other = await withRun(s);
    const heard: number[] = [];
    const stop = watch(runId, () => void s.store.read(runId).then((events) => heard.push(events.length)));
    // A second watcher of the same run, kept: one watcher stopping leaves it watching.
    const kept: number[] = [];
    const stopKept = watch(runId, () => void s.store.read(runId).then((events) => kept.push(events.length)));
    const l = await lease(s, runId);
    const head = await s.store.append(runId, after(first, [resumed(l.token)]), { expectedSeq: 1, lease: l }, "running");
    await refuses(s.store.append(runId, after(first, [resumed(l.token)]), { expectedSeq: 1, lease: l }, "running"), "JOURNAL_CONFLICT", "a stale append");
    await s.store.append(other.runId, after(other.first, [cancelled()]), { expectedSeq: 1 }, "cancelled");
    stop();
    await s.store.append(runId, after(head, [cancelled()]), { expectedSeq: 2 }, "cancelled");
    await s.store.read(runId);
    check(heard.join(",") === "2", `one append heard, after which the run reads 2 events (a refused append, another run's, and one after stopping are not heard), not [${heard.join(",")}]`);
    // Waits on the kept watcher's state (reads go through the store's own queue), never on time.
    for (let k = 0; k < 500 && !kept.includes(3); k++) await s.store.read(runId);
    stopKept();
    check(kept.join(",") === "2,3", `the other watcher of the run still hears the append after the first stopped, not [${kept.join(",")}]`);
  },
  "leases: exclusive, fenced by a strictly increasing token, judged by the store's clock": async (s) => {
    const { runId } = await withRun(s);
    const a = await lease(s, runId, "a", 1000);
    check((await s.store.acquireLease(runId, "b", 1000)) === null, "another owner cannot take a held lease");
    const a2 = await s.store.acquireLease(runId, "a", 1000);
    check(a2 !== null && a2.token > a.token, "the same owner takes it again, with a larger token");
    await s.advance(1500);
    const b = await s.store.acquireLease(runId, "b", 1000);
    check(b !== null && b.token > a2.token && b.owner === "b", "after expiry another owner takes it, with a larger token");
    await s.store.releaseLease(b);
    const c = await s.store.acquireLease(runId, "c", 1000);
    check(c !== null && c.token > b.token, "after release the next token is larger still");
  },
  "acquireLease says which lease it took over, never released (who held it, until when); none after a release": async (s) => {
    const { runId } = await withRun(s);
    const a = await lease(s, runId, "a", 1000);
    check(a.took === undefined, `the first lease of a run took nothing over, not ${JSON.stringify(a.took)}`);
    await s.advance(1500);
    const b = await lease(s, runId, "b", 1000);
    check(b.took?.holder === "a" && b.took.expiresAt === a.expiresAt, `a lease taken after one that expired unreleased says whose it was, not ${JSON.stringify(b.took)}`);
    const b2 = await lease(s, runId, "b", 1000);
    check(b2.took?.holder === "b" && b2.took.expiresAt === b.expiresAt, `its owner taking it again (a restart) says so too, not ${JSON.stringify(b2.took)}`);
    await s.store.releaseLease(b2);
    const c = await lease(s, runId, "c", 1000);
    check(c.took === undefined, `a lease taken after a release took nothing over, not ${JSON.stringify(c.took)}`);
  },
  "append refuses a stale or expired lease with LEASE_NOT_HELD, before looking at the sequence": async (s) => {
    const { runId, first } = await withRun(s);
    const a = await lease(s, runId, "a", 1000);
    await s.advance(1500);
    await refuses(s.store.append(runId, after(first, [resumed(a.token)]), { expectedSeq: 1, lease: a }, "running"), "LEASE_NOT_HELD", "an expired lease");
    const b = await lease(s, runId, "b", 10_000);
    await refuses(s.store.append(runId, after(first, [resumed(a.token)]), { expectedSeq: 1, lease: a }, "running"), "LEASE_NOT_HELD", "a stale lease after a takeover");
    await refuses(s.store.append(runId, after(first, [resumed(a.token)]), { expectedSeq: 7, lease: a }, "running"), "LEASE_NOT_HELD", "a stale lease with a wrong sequence");
    const head = await s.store.append(runId, after(first, [resumed(b.token)]), { expectedSeq: 1, lease: b }, "running");
    check(head.seq === 2, "the current holder appends");
  },
  "renewLease extends a held lease, and returns null once it is lost": async (s) => {
    const { runId } = await withRun(s);
    const a = await lease(s, runId, "a", 1000);
    await s.advance(600);
    const renewed = await s.store.renewLease(a, 1000);
    check(renewed !== null && renewed.token === a.token && renewed.expiresAt > a.expiresAt, "renewal keeps the token and moves the expiry");
    await s.advance(600);
    check((await s.store.acquireLease(runId, "b", 1000)) === null, "a renewed lease is still held");
    await s.advance(1500);
    check((await s.store.renewLease(renewed, 1000)) === null, "an expired lease cannot be renewed");
    const b = await lease(s, runId, "b", 1000);
    check((await s.store.renewLease(a, 1000)) === null, "a stale lease cannot be renewed");
    await s.store.releaseLease(a);
    check((await s.store.acquireLease(runId, "c", 1000)) === null, "releasing a stale lease leaves the current one");
    void b;
  },
  "lease shows who holds a run's lease and until when, by the store's clock; an expired one with its expiry; null once released": async (s) => {
    const { runId } = await withRun(s);
    check((await s.store.lease(runId)) === null, "no lease before one is taken");
    const a = await lease(s, runId, "a", 1000);
    const seen = await s.store.lease(runId);
    check(seen !== null && seen.holder === "a" && seen.expiresAt === a.expiresAt, `the holder and expiry of the lease taken, not ${JSON.stringify(seen)}`);
    await s.advance(400);
    const renewed = await s.store.renewLease(a, 1000);
    check(renewed !== null && (await s.store.lease(runId))?.expiresAt === renewed.expiresAt, "a renewal moves the expiry shown");
    await s.advance(1500);
    const expired = await s.store.lease(runId);
    check(expired !== null && expired.holder === "a" && expired.expiresAt === renewed.expiresAt, "an expired lease is shown with its expiry, so its run is known to have had no live lease since");
    const b = await lease(s, runId, "b", 1000);
    check((await s.store.lease(runId))?.holder === "b", "a takeover shows the new holder");
    await s.store.releaseLease(a);
    check((await s.store.lease(runId))?.holder === "b", "releasing a stale lease leaves the holder shown");
    await s.store.releaseLease(b);
    check((await s.store.lease(runId)) === null, "a released lease is shown as none");
    await refuses(s.store.lease(newRunId()), "RUN_NOT_FOUND", "the lease of an unknown run");
  },
  "listRuns shows each running run's lease": async (s) => {
    const held = await withRun(s);
    const free = await withRun(s);
    const l = await lease(s, held.runId, "holder-x", 60_000);
    const listed = await s.store.listRuns({ status: ["running"] });
    const h = listed.find((r) => r.runId === held.runId);
    const f = listed.find((r) => r.runId === free.runId);
    check(h !== undefined && h.lease !== null && h.lease.holder === "holder-x" && h.lease.expiresAt === l.expiresAt, `the held run is listed with its lease, not ${JSON.stringify(h?.lease)}`);
    check(f !== undefined && f.lease === null, "a run nobody holds is listed with none");
  },
  "listRuns filters by status, newest first, with a limit": async (s) => {
    const one = await withRun(s);
    const two = await withRun(s);
    await s.store.append(two.runId, after(two.first, [cancelled(5000)]), { expectedSeq: 1 }, "cancelled");
    const all = await s.store.listRuns();
    const ours = all.filter((r) => r.runId === one.runId || r.runId === two.runId);
    check(ours.length === 2, "both runs are listed");
    check(all.indexOf(ours[0]!) < all.indexOf(ours[1]!) && ours[0]!.runId === two.runId, "the most recently updated first");
    const cancelledRuns = await s.store.listRuns({ status: ["cancelled"] });
    check(cancelledRuns.some((r) => r.runId === two.runId) && !cancelledRuns.some((r) => r.runId === one.runId), "status filter");
    const r = cancelledRuns.find((x) => x.runId === two.runId)!;
    check(r.seq === 2 && r.status === "cancelled" && r.updatedAt === 5000, "a summary carries seq, status and updatedAt");
    check((await s.store.listRuns({ limit: 1 })).length === 1, "limit");
  },
  "listRuns pages after a given run (updatedAt, then run id), and lists each run's title": async (s) => {
    // A moment only this case's runs share, so that four of its runs tie on it.
    const moment = 7_000_000_000 + counter;
    // Ids given out first, then the runs created in an order that is not
    // theirs (a store that kept insertion order would show it); the newest
    // run has the greatest id, so that a page after the ties that let in any
    // greater id would list it twice.
    const ids = Array.from({ length: 6 }, () => newRunId()).sort((a, b) => (a < b ? -1 : 1));
    const newest = ids[5]!;
    const ours: RunId[] = [ids[2]!, ids[0]!, ids[4]!, ids[1]!, ids[3]!];
    const tasks: [number, JsonValue][] = [
      [0, "\n  Summarise notes/todo.md  \ninto notes/summary.md"],
      [0, { t: "conformance" }],
      [0, "x".repeat(200)],
      [0, "y".repeat(120)],
      [-1, `a\u{1F600}${"z".repeat(115)}\u{1F600}${"z".repeat(100)}`],
    ];
    for (const [k, runId] of [...ours, newest].entries()) {
      const [offset, task] = tasks[k] ?? [1, "newest"];
      const first = created(runId, 1000, task);
      await s.store.createRun(first);
      await s.store.append(runId, after(first, [cancelled(moment + offset)]), { expectedSeq: 1 }, "cancelled");
    }
    const seen: RunSummary[] = [];
    for (let before: RunFilter["before"], k = 0; k < 1000; k++) {
      const page = await s.store.listRuns({ status: ["cancelled"], limit: 2, ...(before === undefined ? {} : { before }) });
      seen.push(...page);
      if (page.length < 2) break;
      before = { updatedAt: page[1]!.updatedAt, runId: page[1]!.runId };
    }
    check(new Set(seen.map((r) => r.runId)).size === seen.length, "no run is listed on two pages");
    const listed = seen.filter((r) => r.runId === newest || ours.includes(r.runId));
    const tied = ours.slice(0, 4).sort((a, b) => (a < b ? -1 : 1));
    check(
      listed.map((r) => r.runId).join(",") === [newest, ...tied, ours[4]!].join(","),
      `runs updated at the same moment are listed by run id, the newer before and the older after them: ${listed.map((r) => r.runId).join(",")}`,
    );
    const title = (runId: RunId) => listed.find((r) => r.runId === runId)?.title;
    check(title(ours[0]!) === "Summarise notes/todo.md", `a string task's title is its first non-empty line, not ${JSON.stringify(title(ours[0]!))}`);
    check(title(ours[1]!) === '{"t":"conformance"}', "a task that is not a string is titled by its JSON");
    check(title(ours[2]!) === `${"x".repeat(119)}…`, "a title is cut to 120 characters");
    check(title(ours[3]!) === "y".repeat(120), "a title of 120 characters is not cut");
    check(title(ours[4]!) === `a\u{1F600}${"z".repeat(115)}…`, `a cut never splits a surrogate pair, not ${JSON.stringify(title(ours[4]!))}`);
  },
  "artifacts are stored by their SHA-256": async (s) => {
    const bytes = encodeUtf8("artifact ✓");
    const ref = await s.store.putArtifact(bytes);
    check(ref.sha256 === sha256HexSync(bytes) && ref.size === bytes.length, "the ref is the SHA-256 and size");
    const again = await s.store.putArtifact(bytes);
    check(again.sha256 === ref.sha256, "putting it again is idempotent");
    const back = await s.store.getArtifact(ref.sha256);
    check(back !== null && decodeUtf8Fatal(back) === "artifact ✓", "get returns the bytes");
    const given = encodeUtf8("artifact changed after its put");
    const put = await s.store.putArtifact(given);
    given[0] = 0;
    const kept = await s.store.getArtifact(put.sha256);
    check(kept !== null && decodeUtf8Fatal(kept) === "artifact changed after its put", "changing the bytes given to putArtifact does not change the artifact");
    back[0] = 0;
    const third = await s.store.getArtifact(ref.sha256);
    check(third !== null && third[0] === bytes[0], "changing returned bytes does not change the artifact");
    check((await s.store.getArtifact("0".repeat(64))) === null, "an unknown artifact is null");
  },
  "snapshots keep the latest": async (s) => {
    const { runId } = await withRun(s);
    check((await s.store.getSnapshot(runId)) === null, "no snapshot at first");
    const state = { marker: "v2" } as unknown as import("../journal/index.js").RunState;
    await s.store.putSnapshot(runId, { seq: 1, hash: "h1", state: { marker: "first" } as never });
    await s.store.putSnapshot(runId, { seq: 2, hash: "h2", state });
    await s.store.putSnapshot(runId, { seq: 1, hash: "h1", state: { marker: "v1" } as never });
    const snap = await s.store.getSnapshot(runId);
    check(snap !== null && snap.seq === 2 && (snap.state as unknown as { marker: string }).marker === "v2", "a newer snapshot replaces an older one, and an older one does not replace a newer one");
  },
  "what a read returns cannot change what is stored": async (s) => {
    const { runId } = await withRun(s);
    const [e] = await s.store.read(runId);
    try {
      (e as { type: string }).type = "changed";
    } catch {
      // frozen: fine too
    }
    const [again] = await s.store.read(runId);
    check(again!.type === "run.created", "the stored event is unchanged");
  },
  // Export, import and moves (isoagent/move): see move-conformance.ts.
  ...MOVE_CASES,
  // Conversations (v5): see conversation-conformance.ts.
  ...CONVERSATION_CASES,
};

/**
 * Registers the conformance suite with a test function. Every store in
 * isoagent runs it; so can yours.
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  registerCases("runStoreConformance", options, STORE_CASES);
}
