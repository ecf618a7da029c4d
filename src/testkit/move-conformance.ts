/**
 * The conformance cases of moves (isoagent/move), part of
 * `runStoreConformance`: custody (copies take no append and hand out no
 * lease), the seal, imports that create, fast-forward or hand a run over,
 * and a bundle's round trip and a move through the store under test, with
 * a memory store on the other side.
 */
import { IsoagentError, isIsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import { sealAfter } from "./chain.js";
import { seal, type JournalEvent, type RunCreated, type UnsealedEvent } from "../journal/index.js";
import { memoryStore } from "../store/index.js";
import type { Custody, Lease, Store } from "../store/index.js";
import { bundleText, exportRun } from "../move/export.js";
import { importRun, movable } from "../move/import.js";
import { localPlace } from "../move/place.js";
import { moveRun } from "../move/move.js";
import { encodeUtf8 } from "../web.js";

/** What a case gets: a fresh store under test, and a way to move its clock on. */
export interface MoveCaseStore {
  readonly store: Store;
  advance(ms: number): Promise<void>;
}

/** A check of the suite that failed. Code `CONFORMANCE_FAILED`. */
class Failure extends IsoagentError {
  constructor(message: string) {
    super("CONFORMANCE_FAILED", message);
    this.name = "ConformanceFailure";
  }
}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Failure(what);
}

async function refuses(p: Promise<unknown>, code: string, what: string, message?: string): Promise<void> {
  try {
    await p;
  } catch (e) {
    check(isIsoagentError(e, code as never), `${what}: expected ${code}, got ${isIsoagentError(e) ? `${e.code}: ${e.message}` : String(e)}`);
    if (message !== undefined) check((e as Error).message === message, `${what}: expected the message ${JSON.stringify(message)}, got ${JSON.stringify((e as Error).message)}`);
    return;
  }
  throw new Failure(`${what}: expected ${code}, but it succeeded`);
}

let counter = 0;
const newRunId = (): RunId => parseRunId(`move_conf_${++counter}_${Math.floor(Math.random() * 1e9).toString(36)}`);

const created = (runId: RunId, at = 1000): RunCreated =>
  seal({ v: 2, at, type: "run.created", runId, task: { t: "move conformance" }, tools: [], limits: { maxSteps: 5, maxConsecutiveFailures: 3, runTimeoutMs: 0 } }, 1, "") as RunCreated;

const chain = sealAfter;

const resumed = (token: number, at = 1001): UnsealedEvent => ({ v: 2, at, type: "run.resumed", owner: "o", token });
const moved = (from: string, to: string, epoch: number, at = 1003): UnsealedEvent => ({ v: 3, at, type: "run.moved", from, to, epoch });
const cancelled = (at = 1002): UnsealedEvent => ({ v: 2, at, type: "run.cancelled", by: "operator" });

/** A journal of a run owned elsewhere: created, driven under token 3. */
function foreign(runId: RunId): JournalEvent[] {
  const first = created(runId);
  return [first, ...chain(first, [resumed(3)])];
}

const role = (c: Custody | undefined): string => c?.role ?? "owner";

/** The cases, by name (registered by runStoreConformance beside the store's own). */
export const MOVE_CASES: Readonly<Record<string, (s: MoveCaseStore) => Promise<void>>> = {
  "moves: a store that takes part has importEvents, custody and abandonTransit": async (s) => {
    movable(s.store);
  },
  "moves: importEvents creates a mirror, which takes no append and hands out no lease (RUN_MIRROR); a run in transit neither (RUN_IN_TRANSIT)": async (s) => {
    const store = movable(s.store);
    for (const r of ["mirror", "in_transit"] as const) {
      const runId = newRunId();
      const events = foreign(runId);
      const head = await store.importEvents(runId, events, { expectedSeq: 0, status: "running", role: r });
      check(head.seq === 2 && head.hash === events[1]!.hash && role(head.custody) === r, `the import creates a ${r} at the journal's head, not ${JSON.stringify(head)}`);
      check(role(await store.custody(runId)) === r, `custody says ${r}`);
      check((await store.read(runId)).map((e) => e.hash).join() === events.map((e) => e.hash).join(), "the events read back as imported");
      const code = r === "mirror" ? "RUN_MIRROR" : "RUN_IN_TRANSIT";
      const message = r === "mirror" ? `run ${runId} is a read-only mirror here: it is owned elsewhere` : `run ${runId} is in transit here: it is driven here once its source seals the move`;
      await refuses(store.acquireLease(runId, "a", 1000), code, `a lease on a ${r}`, message);
      await refuses(store.append(runId, chain(events[1]!, [cancelled()]), { expectedSeq: 2 }, "cancelled"), code, `an operator's append to a ${r}`, message);
      const listed = (await store.listRuns()).find((x) => x.runId === runId);
      check(listed !== undefined && role(listed.custody) === r, `listRuns shows the ${r}'s custody, not ${JSON.stringify(listed?.custody)}`);
    }
  },
  "moves: importEvents fast-forwards a copy, refuses a moved head (JOURNAL_CONFLICT), a broken link, a second creation, and any import into a run the store owns (RUN_OWNED)": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const events = foreign(runId);
    await store.importEvents(runId, events.slice(0, 1), { expectedSeq: 0, status: "running", role: "mirror" });
    const head = await store.importEvents(runId, events.slice(1), { expectedSeq: 1, status: "running", role: "mirror" });
    check(head.seq === 2, "the copy grew by the tail");
    await refuses(
      store.importEvents(runId, chain(events[1]!, [resumed(4)]), { expectedSeq: 1, status: "running", role: "mirror" }),
      "JOURNAL_CONFLICT",
      "an import after a seq the copy has moved past",
    );
    await refuses(
      store.importEvents(runId, [{ ...chain(events[1]!, [resumed(4)])[0]!, prev: "0".repeat(64) }], { expectedSeq: 2, status: "running", role: "mirror" }),
      "STORE_INVALID_APPEND",
      "an import that does not link",
    );
    await refuses(store.importEvents(runId, events, { expectedSeq: 0, status: "running", role: "mirror" }), "RUN_EXISTS", "creating a copy twice", `run ${runId} already exists`);
    const own = newRunId();
    const first = created(own);
    await store.createRun(first);
    await refuses(
      store.importEvents(own, chain(first, [resumed(1)]), { expectedSeq: 1, status: "running", role: "mirror" }),
      "RUN_OWNED",
      "an import into a run the store owns",
      `run ${own} is owned here: it grows by its own appends, never by an import`,
    );
    check((await store.read(own)).length === 1, "nothing of the refused import is written");
  },
  "moves: importEvents creates a copy only from the run's own run.created at seq 1 and a chain after it, and a mirror's push leaves a run in transit in transit": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const events = foreign(runId);
    const copy = (evs: JournalEvent[], expectedSeq = 0) => store.importEvents(runId, evs, { expectedSeq, status: "running", role: "mirror" });
    await refuses(copy(events, 1), "RUN_NOT_FOUND", "an import after seq 1 into a run the store has no copy of", `no run ${runId}`);
    const creates = `an import creates run ${runId} with its run.created`;
    await refuses(copy([]), "STORE_INVALID_APPEND", "an import that creates with no events", creates);
    await refuses(copy(events.slice(1)), "STORE_INVALID_APPEND", "an import that creates with run.resumed", creates);
    await refuses(copy(foreign(newRunId())), "STORE_INVALID_APPEND", "an import that creates with another run's run.created", creates);
    const again = (seq: number, prev: string): JournalEvent => seal({ ...(events[0] as UnsealedEvent) }, seq, prev);
    await refuses(copy([again(2, "")]), "STORE_INVALID_APPEND", "an import that creates with run.created at seq 2", "a run is created with run.created at seq 1");
    await refuses(copy([again(1, events[1]!.hash)]), "STORE_INVALID_APPEND", "an import that creates with run.created after another event", "a run is created with run.created at seq 1");
    await refuses(copy([events[0]!, { ...events[1]!, prev: "0".repeat(64) }]), "STORE_INVALID_APPEND", "an import that creates with a broken link");
    await refuses(store.read(runId), "RUN_NOT_FOUND", "no refused import created the copy");
    await store.importEvents(runId, events.slice(0, 1), { expectedSeq: 0, status: "running", role: "in_transit" });
    const head = await copy(events.slice(1), 1);
    check(role(head.custody) === "in_transit" && role(await store.custody(runId)) === "in_transit", `a mirror's push into a run in transit leaves it in transit, not ${role(head.custody)}`);
  },
  "moves: a seal (run.moved, appended with the lease) ends the store's ownership: every append and lease is refused with RUN_MOVED, naming the destination": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const first = created(runId);
    await store.createRun(first);
    const l = (await store.acquireLease(runId, "mover", 10_000)) as Lease;
    const [sealEvent] = chain(first, [moved("here", "there", l.token + 1)]);
    await store.append(runId, [sealEvent!], { expectedSeq: 1, lease: l }, "running");
    const c = await store.custody(runId);
    check(c?.role === "moved" && c.to === "there" && c.epoch === l.token + 1 && c.seq === 2, `custody after the seal: moved to there, not ${JSON.stringify(c)}`);
    const message = `run ${runId} moved to there at event 2 (epoch ${l.token + 1}): it is continued there`;
    await refuses(store.acquireLease(runId, "driver", 1000), "RUN_MOVED", "a lease after the seal", message);
    await refuses(store.append(runId, chain(sealEvent!, [cancelled()]), { expectedSeq: 2 }, "cancelled"), "RUN_MOVED", "an operator's append after the seal", message);
    await refuses(store.append(runId, chain(sealEvent!, [resumed(l.token)]), { expectedSeq: 2, lease: l }, "running"), "RUN_MOVED", "the mover's own append after the seal", message);
    check((await store.lease(runId)) === null, "the mover's lease is gone with the seal");
  },
  "moves: a seal is the last event of its append, names a place, and has an epoch above every token handed out": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const first = created(runId);
    await store.createRun(first);
    const l = (await store.acquireLease(runId, "mover", 10_000)) as Lease;
    await refuses(
      store.append(runId, chain(first, [moved("a", "b", l.token + 1), resumed(l.token)]), { expectedSeq: 1, lease: l }, "running"),
      "STORE_INVALID_APPEND",
      "a seal followed by an event",
      `event 2 of run ${runId}: a seal ends its append, names a place, and has an epoch above ${l.token}`,
    );
    await refuses(store.append(runId, chain(first, [moved("a", "b", l.token)]), { expectedSeq: 1, lease: l }, "running"), "STORE_INVALID_APPEND", "a seal whose epoch is not above the last token");
    await refuses(store.append(runId, chain(first, [moved("a", "", l.token + 1)]), { expectedSeq: 1, lease: l }, "running"), "STORE_INVALID_APPEND", "a seal naming no place");
    await refuses(store.append(runId, chain(first, [moved("a", "b", l.token + 1)]), { expectedSeq: 1 }, "running"), "STORE_INVALID_APPEND", "a seal without the lease");
    check(role(await store.custody(runId)) === "owner" && (await store.read(runId)).length === 1, "nothing refused was written; the store still owns the run");
  },
  "moves: events ending with a seal naming this store's place make it the owner, its next lease token above the epoch; a seal naming another place leaves it a copy": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const events = foreign(runId);
    await store.importEvents(runId, events, { expectedSeq: 0, status: "running", role: "in_transit" });
    const other = newRunId();
    const o = foreign(other);
    await store.importEvents(other, [...o, ...chain(o[1]!, [moved("src", "elsewhere", 9)])], { expectedSeq: 0, status: "running", role: "in_transit", here: "me" });
    check((await store.custody(other))?.role === "moved", "a seal naming another place leaves a copy that moved there");
    const head = await store.importEvents(runId, chain(events[1]!, [moved("src", "me", 9)]), { expectedSeq: 2, status: "running", role: "in_transit", here: "me" });
    check(head.custody === undefined && (await store.custody(runId)) === undefined, "the seal naming this place makes the store the owner");
    const l = await store.acquireLease(runId, "driver", 1000);
    check(l !== null && l.token > 9, `the next lease token is above the epoch 9, not ${l?.token}`);
  },
  "moves: the events a store writes as it takes a run over (guard.own) follow the seal naming it, in the same import; after a seal naming another place, with no seal, or sealing again, they are refused and nothing is written":
    async (s) => {
      const store = movable(s.store);
      const runId = newRunId();
      const events = foreign(runId);
      await store.importEvents(runId, events, { expectedSeq: 0, status: "running", role: "in_transit" });
      const guard = { expectedSeq: 2, status: "running" as const, role: "in_transit" as const, here: "me", own: 1 };
      const refusal = "the events a store writes as it takes a run over must follow the seal naming it (me), and neither seal nor create the run";
      await refuses(store.importEvents(runId, chain(events[1]!, [moved("src", "elsewhere", 9), cancelled()]), guard), "STORE_INVALID_APPEND", "own events after a seal naming another place", refusal);
      await refuses(store.importEvents(runId, chain(events[1]!, [resumed(9), cancelled()]), guard), "STORE_INVALID_APPEND", "own events with no seal before them", refusal);
      await refuses(store.importEvents(runId, chain(events[1]!, [moved("src", "me", 9), moved("me", "me", 10)]), guard), "STORE_INVALID_APPEND", "an own event that seals the run again", refusal);
      await refuses(store.importEvents(runId, chain(events[1]!, [cancelled()]), guard), "STORE_INVALID_APPEND", "own events and nothing before them", refusal);
      check((await store.read(runId)).length === 2 && role(await store.custody(runId)) === "in_transit", "nothing of the refused imports was written; the copy is still in transit");
      const head = await store.importEvents(runId, chain(events[1]!, [moved("src", "me", 9), cancelled(1004)]), guard);
      check(head.seq === 4 && head.custody === undefined && (await store.custody(runId)) === undefined, `the seal and the store's own event make it the owner at event 4, not ${JSON.stringify(head)}`);
      check((await store.read(runId)).map((e) => e.type).join() === "run.created,run.resumed,run.moved,run.cancelled", "the own event is written after the seal");
      const l = await store.acquireLease(runId, "driver", 1000);
      check(l !== null && l.token > 9, `the next lease token is above the epoch 9, not ${l?.token}`);
    },
  "moves: a copy's custody keeps how far it is vouched for (guard.vouched, never lowered, kept by abandonTransit and by a seal naming another place); a seal the store appends vouches for all it wrote":
    async (s) => {
      const store = movable(s.store);
      const runId = newRunId();
      const events = foreign(runId);
      await store.importEvents(runId, events.slice(0, 1), { expectedSeq: 0, status: "running", role: "in_transit", vouched: 1 });
      check((await store.custody(runId))?.vouched === 1, `a copy vouched for up to event 1 says so, not ${JSON.stringify(await store.custody(runId))}`);
      await store.importEvents(runId, events.slice(1), { expectedSeq: 1, status: "running", role: "in_transit" });
      check((await store.custody(runId))?.vouched === 1, "an import that vouches for nothing more leaves it");
      check((await store.abandonTransit(runId)) && (await store.custody(runId))?.vouched === 1, "abandoning the move keeps it");
      const sealed = chain(events[1]!, [moved("src", "elsewhere", 9)]);
      const head = await store.importEvents(runId, sealed, { expectedSeq: 2, status: "running", role: "mirror", here: "me", vouched: 3 });
      check(
        head.custody?.role === "moved" && head.custody.vouched === 3 && (await store.custody(runId))?.vouched === 3,
        `a seal naming another place, vouched for, keeps it: ${JSON.stringify(head.custody)}`,
      );
      const own = newRunId();
      const first = created(own);
      await store.createRun(first);
      const l = (await store.acquireLease(own, "mover", 10_000)) as Lease;
      await store.append(own, chain(first, [moved("here", "there", l.token + 1)]), { expectedSeq: 1, lease: l }, "running");
      const c = await store.custody(own);
      check(c?.role === "moved" && c.vouched === 2, `the store's own seal vouches for its whole journal (to event 2), not ${JSON.stringify(c)}`);
    },
  "moves: abandonTransit makes a run in transit a mirror, and a seal imported later still hands it over": async (s) => {
    const store = movable(s.store);
    const runId = newRunId();
    const events = foreign(runId);
    await store.importEvents(runId, events, { expectedSeq: 0, status: "running", role: "in_transit" });
    check((await store.abandonTransit(runId)) === true && role(await store.custody(runId)) === "mirror", "abandoned: a mirror");
    check((await store.abandonTransit(runId)) === false, "a mirror is not in transit: nothing to abandon");
    await store.importEvents(runId, chain(events[1]!, [moved("src", "me", 4)]), { expectedSeq: 2, status: "running", role: "mirror", here: "me" });
    check((await store.custody(runId)) === undefined, "the seal still hands it over");
  },
  "moves: a bundle round trip through the store (from memory and back), and a move to it and back out, its journal and artifacts intact": async (s) => {
    const store = movable(s.store);
    const reference = memoryStore();
    const runId = newRunId();
    const first = created(runId);
    await reference.createRun(first);
    const art = await reference.putArtifact(encodeUtf8(`artifact of ${runId}`));
    const l = (await reference.acquireLease(runId, "d", 10_000)) as Lease;
    const tail = chain(first, [
      resumed(l.token),
      { v: 2, at: 1002, type: "step.decided", step: 1, decision: { kind: "calls", calls: [{ callId: "c1", name: "t", args: "{}" }] } } as unknown as UnsealedEvent,
      {
        v: 2,
        at: 1003,
        type: "call.rejected",
        step: 1,
        callId: "c1",
        observation: { type: "tool_error", failure: "error", error: "e", truncated: { strategy: "tail", totalBytes: 99, shownBytes: 1, artifact: art.sha256 } },
      } as unknown as UnsealedEvent,
    ]);
    await reference.append(runId, tail, { expectedSeq: 1, lease: l }, "running");
    await reference.releaseLease(l);
    const text = await bundleText(exportRun(reference, runId));
    const r = await importRun(store, text, { here: "under-test" });
    check(r.outcome === "created" && r.seq === 4 && role(r.custody) === "mirror", `the bundle is imported as a mirror, not ${JSON.stringify(r)}`);
    check((await importRun(store, text, { here: "under-test" })).outcome === "unchanged", "the same bundle twice changes nothing");
    check((await store.getArtifact(art.sha256)) !== null, "the artifact came with it");
    check((await bundleText(exportRun(store, runId))) === text, "the store exports the same bundle it imported");
    // A move from the reference to the store, and back out.
    const here = localPlace(store, { name: "under-test" });
    const there = localPlace(reference, { name: "reference" });
    const next = newRunId();
    await reference.createRun(created(next));
    await moveRun(next, there, here);
    check((await store.custody(next)) === undefined && (await reference.custody!(next))?.role === "moved", "moved in: the store owns the run, the reference sealed it");
    const back = await moveRun(next, here, there);
    check((await reference.custody!(next)) === undefined && (await store.custody(next))?.role === "moved", "moved out: the reference owns it again");
    check(back.epoch > 1, "the epoch rose across the moves");
    const types = (await reference.read(next)).map((e) => e.type).join();
    check(types === "run.created,run.moved,run.moved", `the journal carries both seals, not ${types}`);
  },
};
