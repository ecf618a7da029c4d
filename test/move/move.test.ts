import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, isIsoagentError, memoryStore, rulesPolicy, scriptedAgent, type Driver, type JournalEvent, type RunId, type Store } from "../../src/index.js";
import { seal } from "../../src/journal/index.js";
import { Crash, isCrash, manualClock, type ManualClock } from "../../src/testkit/index.js";
import { bundleText, exportRun, importRun, localPlace, movable, moveRun, sealRun, settleMove, type MovePoint, type Place } from "../../src/move/index.js";
import { rng } from "../helpers/rng.js";
import { SHAPES, TOOLS, trustingKeys, waitingRun } from "./helpers.js";

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (!isIsoagentError(e)) throw e;
    return { code: e.code, message: e.message };
  }
  throw new Error("expected a refusal, but it succeeded");
}

/** The agent of every place: reads twice, asks to write, ends (the run waits at step 3 until someone approves). */
const agent = () =>
  scriptedAgent((view) => (view.step <= 2 ? calls(call("read_file", { path: `p${view.step}` })) : view.step === 3 ? calls(call("write_file", { path: "out.md", content: "x" })) : final("done")));

interface World {
  readonly clock: ManualClock;
  readonly stores: Record<"tab" | "edge", Store>;
  readonly places: Record<"tab" | "edge", Place>;
  readonly drivers: Record<"tab" | "edge", Driver>;
  /** Every instant a store changed: how many of the two owned the run then (never above 1). */
  readonly owners: number[];
  runId: RunId;
}

/**
 * Two places (a tab and the edge), each a memory store watched after every
 * write: how many own the run. With `trust`, each signs its exports and
 * trusts the other's key, so a move keeps the decisions it carries; without
 * it, the destination decides the open calls again (docs/moves.md, "Trust").
 */
async function world(trust = true): Promise<World> {
  const clock = manualClock();
  const keys = trust ? await trustingKeys(["tab", "edge"]) : undefined;
  const w = { clock, owners: [] as number[], stores: {}, places: {}, drivers: {} } as unknown as World & {
    stores: Record<string, Store>;
    places: Record<string, Place>;
    drivers: Record<string, Driver>;
  };
  const count = async (): Promise<void> => {
    let n = 0;
    for (const s of Object.values(raw)) {
      try {
        if ((await s.custody!(w.runId)) === undefined) n++;
      } catch (e) {
        if (!isIsoagentError(e, "RUN_NOT_FOUND")) throw e;
      }
    }
    w.owners.push(n);
  };
  const raw: Record<string, Store> = { tab: movable(memoryStore({ clock })), edge: movable(memoryStore({ clock })) };
  for (const name of ["tab", "edge"] as const) {
    const s = raw[name]!;
    const watched: Store = { ...s };
    for (const m of ["createRun", "append", "importEvents", "abandonTransit"] as const) {
      const f = s[m] as (...a: unknown[]) => Promise<unknown>;
      (watched as unknown as Record<string, unknown>)[m] = async (...a: unknown[]) => {
        try {
          return await f(...a);
        } finally {
          await count();
        }
      };
    }
    w.stores[name] = watched;
    w.places[name] = localPlace(watched, { name, tools: SHAPES, clock, ...(keys === undefined ? {} : { keys: keys[name] }) });
    w.drivers[name] = createDriver({ store: watched, clock, owner: `${name}-driver`, agent: agent(), tools: TOOLS, policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]) });
  }
  w.runId = await w.drivers["tab"]!.create("read, then write out.md");
  return w;
}

const custodyOf = async (s: Store, runId: RunId): Promise<string> => {
  try {
    return (await s.custody!(runId))?.role ?? "owner";
  } catch (e) {
    if (isIsoagentError(e, "RUN_NOT_FOUND")) return "none";
    throw e;
  }
};

async function approveAll(d: Driver, runId: RunId): Promise<void> {
  const state = await d.state(runId);
  for (const a of Object.values(state.approvals).filter((x) => x.status === "pending")) await d.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "ana" });
}

/** The owner drives the run to its end, answering what it asks (again, after a move it does not trust). */
async function finish(d: Driver, runId: RunId): Promise<string> {
  let status = (await d.resume(runId)).status;
  for (let round = 0; status === "waiting" && round < 3; round++) {
    await approveAll(d, runId);
    status = (await d.resume(runId)).status;
  }
  return status;
}

/** Every copy is a prefix of the owner's journal: nothing a place committed was lost, and no place forked. */
async function prefixes(w: World): Promise<{ owner: string; events: JournalEvent[] }> {
  const owners: string[] = [];
  const journals: Record<string, JournalEvent[]> = {};
  for (const name of ["tab", "edge"] as const) {
    const c = await custodyOf(w.stores[name], w.runId);
    if (c === "none") continue;
    if (c === "owner") owners.push(name);
    journals[name] = await w.stores[name].read(w.runId);
  }
  expect(owners).toHaveLength(1);
  const owner = owners[0]!;
  for (const [name, events] of Object.entries(journals)) {
    expect(
      events.map((e) => e.hash),
      `${name}'s copy is a prefix of ${owner}'s journal`,
    ).toEqual(journals[owner]!.slice(0, events.length).map((e) => e.hash));
  }
  return { owner, events: journals[owner]! };
}

describe("moving a run between two places", () => {
  it("tab to edge and back: the source refuses with RUN_MOVED naming the destination, the destination drives it under tokens above the epoch", async () => {
    const w = await world();
    const { tab, edge } = w.drivers;
    expect((await tab.resume(w.runId)).status).toBe("waiting");
    const out = await moveRun(w.runId, w.places.tab, w.places.edge);
    expect(out).toMatchObject({ from: "tab", to: "edge", seq: 14, epoch: 3 });
    const moved = `run ${w.runId} moved to edge at event 14 (epoch 3): it is continued there`;
    expect(await refusal(tab.resume(w.runId))).toEqual({ code: "RUN_MOVED", message: moved });
    const [a] = Object.values((await tab.state(w.runId)).approvals);
    expect(await refusal(tab.approve(w.runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" }))).toEqual({ code: "RUN_MOVED", message: moved });
    await approveAll(edge, w.runId);
    const back = await moveRun(w.runId, w.places.edge, w.places.tab);
    expect(back.epoch).toBeGreaterThan(3);
    const done = await tab.resume(w.runId);
    expect(done.status).toBe("completed");
    const events = await tab.events(w.runId);
    const fence = events.flatMap((e) => (e.type === "run.resumed" ? [e.token] : e.type === "run.moved" ? [e.epoch] : []));
    expect(fence).toEqual([...fence].sort((x, y) => x - y));
    expect(new Set(fence).size).toBe(fence.length);
    expect(Math.max(...w.owners)).toBe(1);
    await prefixes(w);
  });

  it("is two-phase: in transit the destination refuses (RUN_IN_TRANSIT) while the source still owns the run; a driver on the run refuses the seal (MOVE_REFUSED)", async () => {
    const w = await world();
    await w.drivers.tab.resume(w.runId);
    await w.places.edge.receive(w.runId, await w.places.tab.export(w.runId, 1), "in_transit");
    expect(await custodyOf(w.stores.edge, w.runId)).toBe("in_transit");
    expect((await refusal(w.drivers.edge.resume(w.runId))).code).toBe("RUN_IN_TRANSIT");
    expect(await custodyOf(w.stores.tab, w.runId)).toBe("owner");
    const lease = (await w.stores.tab.acquireLease(w.runId, "tab-driver", 10_000))!;
    expect(await refusal(sealRun(w.stores.tab, w.runId, { from: "tab", to: "edge" }))).toEqual({
      code: "MOVE_REFUSED",
      message: `run ${w.runId} is being driven (its lease is held by tab-driver until ${lease.expiresAt}): stop its driver, or wait for its lease to expire, before moving it`,
    });
    await w.stores.tab.releaseLease(lease);
    await moveRun(w.runId, w.places.tab, w.places.edge);
    expect([await custodyOf(w.stores.tab, w.runId), await custodyOf(w.stores.edge, w.runId)]).toEqual(["moved", "owner"]);
  });

  it("a copy is never driven by driveAll, and listed with its custody", async () => {
    const w = await world();
    await w.places.edge.receive(w.runId, await w.places.tab.export(w.runId, 1), "mirror");
    expect(await w.drivers.edge.driveAll()).toEqual([]);
    const [listed] = await w.drivers.edge.listRuns();
    expect(listed).toMatchObject({ runId: w.runId, custody: { role: "mirror" } });
  });
});

// ---- the crash matrix -----------------------------------------------------------

type Side = "source" | "destination";
const POINTS = ["before_export", "after_import", "after_seal", "before_seal_reaches"] as const;

/**
 * One cell: a move from the tab (source) to the edge (destination), cut at
 * `point` by a crash in `side`. The mover runs in the side that crashes
 * when the crash is at one of its own points; the other side's crash is its
 * handler dying (before or after its write).
 */
async function cut(w: World, point: (typeof POINTS)[number], side: Side): Promise<void> {
  const crashAt = (p: MovePoint) => ({
    at: (q: MovePoint) => {
      if (q === p) throw new Crash(`crash at ${p}`);
    },
  });
  const dying = (place: Place, when: "receive-before" | "receive-after" | "seal-after", nth: number): Place => {
    let seen = 0;
    return {
      ...place,
      async receive(runId, bundle, role) {
        if (when.startsWith("receive") && ++seen === nth) {
          if (when === "receive-before") throw new Crash("the destination died before writing");
          await place.receive(runId, bundle, role);
          throw new Crash("the destination died after writing, before answering");
        }
        return place.receive(runId, bundle, role);
      },
      async seal(runId, to) {
        const r = await place.seal(runId, to);
        if (when === "seal-after") throw new Crash("the source died after sealing, before answering");
        return r;
      },
    };
  };
  const { tab, edge } = w.places;
  const run = (source: Place, destination: Place, faults?: ReturnType<typeof crashAt>) => moveRun(w.runId, source, destination, faults === undefined ? {} : { faults });
  const cell: Record<string, () => Promise<unknown>> = {
    "before_export/source": () => run(tab, edge, crashAt("before_export")),
    "before_export/destination": () => run(tab, dying(edge, "receive-before", 1)),
    "after_import/source": () => run(tab, edge, crashAt("after_import")),
    "after_import/destination": () => run(tab, dying(edge, "receive-after", 1)),
    "after_seal/source": () => run(dying(tab, "seal-after", 0), edge),
    "after_seal/destination": () => run(tab, edge, crashAt("after_seal")),
    "before_seal_reaches/source": () => run(tab, edge, crashAt("after_seal")),
    "before_seal_reaches/destination": () => run(tab, dying(edge, "receive-before", 2)),
  };
  try {
    await cell[`${point}/${side}`]!();
  } catch (e) {
    if (!isCrash(e)) throw e;
    return;
  }
  throw new Error(`${point}/${side}: the move was not cut`);
}

describe("the crash matrix: a move cut at each of its points, by a crash in either place, settled from either side", () => {
  const sealedAt = new Set(["after_seal", "before_seal_reaches"]);
  for (const point of POINTS) {
    for (const side of ["source", "destination"] as const) {
      for (const back of ["source", "destination"] as const) {
        for (const prefer of ["complete", "rollback"] as const) {
          it(`${point}, crash in the ${side}, the ${back} comes back first and prefers to ${prefer}: one owner at every instant, then exactly one, and nothing lost (places that trust each other, and places that do not)`, async () => {
            for (const trust of [true, false]) {
              const w = await world(trust);
              await w.drivers.tab.resume(w.runId);
              const before = await w.stores.tab.read(w.runId);
              await cut(w, point, side);
              expect(Math.max(...w.owners), "never two owners").toBeLessThanOrEqual(1);
              const sealed = (await custodyOf(w.stores.tab, w.runId)) === "moved";
              // The seal is written exactly when the cut came after it.
              expect(sealed).toBe(sealedAt.has(point));
              const inTransit = (await custodyOf(w.stores.edge, w.runId)) === "in_transit";
              expect(inTransit).toBe(point !== "before_export");
              const [a, b] = back === "source" ? [w.places.tab, w.places.edge] : [w.places.edge, w.places.tab];
              const settled = await settleMove(w.runId, a, b, { prefer });
              // Sealed: only completion is left. In transit: the preference decides. Nothing there: the source keeps it.
              expect(settled.owner).toBe(sealed || (inTransit && prefer === "complete") ? "edge" : "tab");
              expect(Math.max(...w.owners), "never two owners, settling included").toBeLessThanOrEqual(1);
              const { owner, events } = await prefixes(w);
              expect(events.slice(0, before.length).map((e) => e.hash)).toEqual(before.map((e) => e.hash));
              // The owner finishes the run: at once where it trusts the other place, after answering again where it does not.
              const d = w.drivers[owner as "tab" | "edge"];
              if (trust) {
                await approveAll(d, w.runId);
                expect((await d.resume(w.runId)).status).toBe("completed");
              } else expect(await finish(d, w.runId)).toBe("completed");
              await prefixes(w);
            }
          });
        }
      }
    }
  }
});

// ---- the fork attempt ------------------------------------------------------------------

describe("a fork attempt: after a partition, the tab and the edge both try to continue the run", () => {
  it("cut after the seal: the tab gets RUN_MOVED, the edge RUN_IN_TRANSIT until the seal reaches it, then only the edge continues; nothing is lost", async () => {
    const w = await world();
    await w.drivers.tab.resume(w.runId);
    await cut(w, "before_seal_reaches", "source");
    const tabTry = await refusal(w.drivers.tab.resume(w.runId));
    const edgeTry = await refusal(w.drivers.edge.resume(w.runId));
    expect([tabTry.code, edgeTry.code]).toEqual(["RUN_MOVED", "RUN_IN_TRANSIT"]);
    // An answer given in the tab during the partition is refused, not lost silently.
    expect((await refusal(approveAll(w.drivers.tab, w.runId))).code).toBe("RUN_MOVED");
    expect(await settleMove(w.runId, w.places.edge, w.places.tab)).toEqual({ outcome: "completed", owner: "edge" });
    await approveAll(w.drivers.edge, w.runId);
    expect((await w.drivers.edge.resume(w.runId)).status).toBe("completed");
    const { owner } = await prefixes(w);
    expect(owner).toBe("edge");
  });

  it("cut before the seal: the tab still owns the run and continues; the edge's copy in transit refuses; on reconnection it is rolled back and follows as a mirror", async () => {
    const w = await world();
    await w.drivers.tab.resume(w.runId);
    await cut(w, "after_import", "source");
    await approveAll(w.drivers.tab, w.runId);
    expect((await w.drivers.tab.resume(w.runId)).status).toBe("completed");
    expect((await refusal(w.drivers.edge.resume(w.runId))).code).toBe("RUN_IN_TRANSIT");
    expect(await settleMove(w.runId, w.places.tab, w.places.edge)).toEqual({ outcome: "rolled_back", owner: "tab" });
    const tail = await w.places.tab.export(w.runId, (await w.places.edge.head(w.runId))!.seq + 1);
    expect((await w.places.edge.receive(w.runId, tail, "mirror")).outcome).toBe("fast_forwarded");
    expect((await prefixes(w)).owner).toBe("tab");
  });

  it("a continuation written under a lease the move fenced off is refused at the destination (MOVE_FENCED), though its chain verifies", async () => {
    const w = await world();
    await w.drivers.tab.resume(w.runId);
    const stale = (await w.stores.tab.acquireLease(w.runId, "stale", 1))!;
    w.clock.advance(10);
    await moveRun(w.runId, w.places.tab, w.places.edge);
    // A tab that kept the journal in memory and wrote on under its old lease token, then pushed it.
    const events = await w.stores.edge.read(w.runId);
    const last = events[events.length - 1]!;
    const forged = seal({ v: 2, at: 1, type: "run.resumed", owner: "stale", token: stale.token } as never, last.seq + 1, last.hash);
    const text = await bundleText(exportRun(w.stores.edge, w.runId));
    const lines = text.trim().split("\n");
    const header = JSON.parse(lines[0]!);
    header.bundle.to = forged.seq;
    header.bundle.head = forged.hash;
    const end = { end: { events: forged.seq, artifacts: header.bundle.artifacts, head: forged.hash } };
    const bundle = [JSON.stringify(header), ...lines.slice(1, 1 + events.length), JSON.stringify({ event: forged }), ...lines.slice(1 + events.length, -1), JSON.stringify(end)].join("\n") + "\n";
    const other = memoryStore();
    expect((await refusal(importRun(other, bundle))).code).toBe("MOVE_FENCED");
    expect((await refusal(w.stores.tab.append(w.runId, [forged], { expectedSeq: last.seq, lease: stale }, "running"))).code).toBe("RUN_MOVED");
  });
});

describe("never two owners (property: random interleavings of a move's steps, drives, answers, mirrors and settlements over 300 schedules)", () => {
  it("holds at every instant; after settling, exactly one place owns the run, and every copy is a prefix of its journal", async () => {
    const seen = { ended: { tab: 0, edge: 0 }, done: 0, zeroOwners: 0, sealed: 0 };
    for (let seed = 1; seed <= 300; seed++) {
      const random = rng(seed);
      // Half the schedules between places that trust each other, half between places that do not.
      const w = await world(seed % 2 === 0);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const names = ["tab", "edge"] as const;
      const other = (n: "tab" | "edge") => (n === "tab" ? "edge" : "tab");
      const steps: string[] = [];
      for (let k = 0; k < 14; k++) {
        const at = pick(names);
        const to = other(at);
        const action = pick(["drive", "approve", "transit", "seal", "push", "mirror", "abandon", "settle", "move", "move-cut"] as const);
        steps.push(`${action}@${at}`);
        try {
          if (action === "drive") await w.drivers[at].resume(w.runId);
          else if (action === "approve") await approveAll(w.drivers[at], w.runId);
          else if (action === "transit") await w.places[to].receive(w.runId, await w.places[at].export(w.runId, ((await w.places[to].head(w.runId))?.seq ?? 0) + 1), "in_transit");
          else if (action === "seal") await w.places[at].seal(w.runId, to);
          else if (action === "push" || action === "mirror")
            await w.places[to].receive(w.runId, await w.places[at].export(w.runId, ((await w.places[to].head(w.runId))?.seq ?? 0) + 1), action === "push" ? "in_transit" : "mirror");
          else if (action === "abandon") await w.places[at].abandon(w.runId);
          else if (action === "settle") await settleMove(w.runId, w.places[at], w.places[to], { prefer: pick(["complete", "rollback"] as const) });
          else if (action === "move") await moveRun(w.runId, w.places[at], w.places[to]);
          else await cut(w, pick(POINTS), pick(["source", "destination"] as const)).catch(() => {});
        } catch (e) {
          // Refusals are the point: they must be typed, never a crash of the runtime.
          if (!isIsoagentError(e) && !isCrash(e)) throw new Error(`seed ${seed}, ${steps.join(" ")}: ${String(e)}`);
        }
        expect(Math.max(...w.owners), `seed ${seed}: ${steps.join(" ")}`).toBeLessThanOrEqual(1);
        if (w.owners.at(-1) === 0) seen.zeroOwners++;
      }
      const s = await settleMove(w.runId, w.places.tab, w.places.edge, { prefer: pick(["complete", "rollback"] as const) });
      expect(s.owner, `seed ${seed}: ${steps.join(" ")}`).toBeDefined();
      const { owner, events } = await prefixes(w);
      seen.ended[owner as "tab" | "edge"]++;
      if (events.some((e) => e.type === "run.completed")) seen.done++;
      seen.sealed += events.filter((e) => e.type === "run.moved").length;
      // Never a run nobody can finish: its owner does.
      const d = w.drivers[owner as "tab" | "edge"];
      expect(await finish(d, w.runId), `seed ${seed}: ${steps.join(" ")}`).toBe("completed");
      await prefixes(w);
    }
    // The schedules did reach what they are about: moves both ways, runs finished, the instant between a seal and its arrival.
    expect(seen.ended.edge).toBeGreaterThan(40);
    expect(seen.ended.tab).toBeGreaterThan(40);
    expect(seen.done).toBeGreaterThan(0);
    expect(seen.zeroOwners).toBeGreaterThan(20);
    expect(seen.sealed).toBeGreaterThan(150);
  });
});

void waitingRun;
