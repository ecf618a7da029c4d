import { describe, expect, it } from "vitest";
import { isIsoagentError, memoryStore, type JournalEvent, type RunId, type Store } from "../../src/index.js";
import { seal } from "../../src/journal/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { bundleBytes, bundleText, exportRun, fromBase64, importRun, movable, readBundle, toBase64, toolShapes } from "../../src/move/index.js";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { rng } from "../helpers/rng.js";
import { SHAPES, TOOLS, waitingRun, writeTool } from "./helpers.js";

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");
const join = (ls: readonly string[]): string => `${ls.join("\n")}\n`;

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string; seq?: number }> {
  try {
    await p;
  } catch (e) {
    if (!isIsoagentError(e)) throw e;
    const seq = (e as unknown as { seq?: number }).seq;
    return { code: e.code, message: e.message, ...(seq === undefined ? {} : { seq }) };
  }
  throw new Error("expected a refusal, but it succeeded");
}

/** Re-seals events from `from` on (a forger who knows the format: the chain verifies, the content lies). */
function reseal(events: JournalEvent[], from: number, edit: (e: JournalEvent) => JournalEvent): JournalEvent[] {
  const out: JournalEvent[] = events.slice(0, from - 1);
  for (const e of events.slice(from - 1)) {
    const { seq: _s, prev: _p, hash: _h, ...rest } = edit(e);
    out.push(seal(rest as never, e.seq, out[out.length - 1]?.hash ?? ""));
  }
  return out;
}

function rebuild(text: string, events: JournalEvent[]): string {
  const ls = lines(text);
  const header = JSON.parse(ls[0]!) as { bundle: Record<string, unknown> };
  header.bundle["head"] = events[events.length - 1]!.hash;
  const rest = ls.filter((l) => !l.startsWith('{"event"') && !l.startsWith('{"bundle"') && !l.startsWith('{"end"'));
  const end = JSON.parse(ls[ls.length - 1]!) as { end: Record<string, unknown> };
  end.end["head"] = header.bundle["head"];
  return join([JSON.stringify(header), ...events.map((e) => JSON.stringify({ event: e })), ...rest, JSON.stringify(end)]);
}

describe("the run bundle: export and import", () => {
  it("round-trips a run with its artifacts: created, then unchanged the second time; the copy reads back byte for byte and reduces to the same state", async () => {
    const { store, runId } = await waitingRun();
    const text = await bundleText(exportRun(store, runId));
    const ls = lines(text);
    expect(ls.map((l) => Object.keys(JSON.parse(l))[0])).toEqual(["bundle", ...Array(13).fill("event"), "artifact", "artifact", "end"]);
    const dest = memoryStore({ clock: manualClock() });
    const r = await importRun(dest, text, { here: "dest" });
    expect(r).toMatchObject({ runId, outcome: "created", seq: 13, written: 13, status: "waiting", custody: { role: "mirror" } });
    expect(JSON.stringify(await dest.read(runId))).toBe(JSON.stringify(await store.read(runId)));
    for (const l of ls.filter((x) => x.startsWith('{"artifact"'))) {
      const sha = (JSON.parse(l) as { artifact: { sha256: string } }).artifact.sha256;
      expect(await dest.getArtifact(sha)).toEqual(await store.getArtifact(sha));
    }
    expect((await importRun(dest, text, { here: "dest" })).outcome).toBe("unchanged");
    expect(await bundleText(exportRun(dest, runId))).toBe(text);
  });

  it("fast-forwards a copy that is a prefix of the bundle, from a whole bundle or a tail; a bundle that is a prefix of the copy changes nothing", async () => {
    const { store, runId, driver, outcome } = await waitingRun();
    const early = await bundleText(exportRun(store, runId));
    const dest = memoryStore({ clock: manualClock() });
    await importRun(dest, early);
    const [a] = outcome.approvals;
    await driver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await driver.resume(runId);
    const whole = await bundleText(exportRun(store, runId));
    expect(await importRun(dest, whole)).toMatchObject({ outcome: "fast_forwarded", seq: 19, written: 6, status: "completed" });
    expect(await importRun(dest, early)).toMatchObject({ outcome: "unchanged", seq: 19, written: 0 });
    const other = memoryStore({ clock: manualClock() });
    await importRun(other, early);
    const tail = await bundleText(exportRun(store, runId, { fromSeq: 14 }));
    expect(lines(tail).filter((l) => l.startsWith('{"event"'))).toHaveLength(6);
    expect(await importRun(other, tail)).toMatchObject({ outcome: "fast_forwarded", seq: 19, written: 6 });
    expect(JSON.stringify(await other.read(runId))).toBe(JSON.stringify(await store.read(runId)));
  });

  it("refuses a diverging chain, naming the first differing event, and writes nothing", async () => {
    const { store, runId } = await waitingRun();
    const text = await bundleText(exportRun(store, runId));
    const dest = memoryStore({ clock: manualClock() });
    await importRun(dest, text);
    // Another history from event 9 on (a forger's or a fork's): a valid chain of its own.
    const events = await store.read(runId);
    const forked = reseal(events, 9, (e) => (e.seq === 9 ? { ...e, at: e.at + 1 } : e));
    const r = await refusal(importRun(dest, rebuild(text, forked)));
    expect(r).toEqual({ code: "RUN_DIVERGED", seq: 9, message: `run ${runId} diverged at event 9: the bundle's event 9 differs from this store's; nothing was written` });
    // A tail of another history, linking to another event 13 than the copy's.
    const other = reseal(events, 13, (e) => (e.seq === 13 ? { ...e, at: e.at + 1 } : e));
    const more = seal({ v: 2, at: 5, type: "run.cancelled", by: "x" } as never, 14, other[12]!.hash);
    const forgedTail = join([
      JSON.stringify({ bundle: { ...(JSON.parse(lines(text)[0]!) as { bundle: object }).bundle, from: 14, to: 14, prev: other[12]!.hash, head: more.hash, artifacts: 0 } }),
      JSON.stringify({ event: more }),
      JSON.stringify({ end: { events: 1, artifacts: 0, head: more.hash } }),
    ]);
    expect(await refusal(importRun(dest, forgedTail))).toEqual({
      code: "RUN_DIVERGED",
      seq: 13,
      message: `run ${runId} diverged at event 13: the bundle's event 14 does not follow this store's event 13; nothing was written`,
    });
    expect(JSON.stringify(await dest.read(runId))).toBe(JSON.stringify(events));
  });

  it("refuses a tail that would leave a gap (JOURNAL_CONFLICT, saying where the copy ends) and a tail of a run the store lacks", async () => {
    const { store, runId, driver, outcome } = await waitingRun();
    const dest = memoryStore({ clock: manualClock() });
    await importRun(dest, await bundleText(exportRun(store, runId)));
    const [a] = outcome.approvals;
    await driver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await driver.resume(runId);
    const tail = await bundleText(exportRun(store, runId, { fromSeq: 16 }));
    const gap = await refusal(importRun(dest, tail));
    expect(gap).toEqual({ code: "JOURNAL_CONFLICT", message: `run ${runId} is at event 13 here: a bundle from event 16 would leave a gap (export from event 14)` });
    const none = await refusal(importRun(memoryStore(), tail));
    expect(none).toEqual({ code: "RUN_NOT_FOUND", message: `no run ${runId} here: a bundle from event 16 needs the events before it` });
  });

  it("streams: a bundle is yielded in bounded chunks, and read from bytes cut anywhere (a request's body) or a ReadableStream", async () => {
    const { store, runId } = await waitingRun();
    const chunks: string[] = [];
    for await (const c of exportRun(store, runId)) chunks.push(c);
    expect(chunks.every((c) => c.endsWith("\n"))).toBe(true);
    const text = chunks.join("");
    const bytes = new TextEncoder().encode(text);
    const random = rng(7);
    for (let round = 0; round < 20; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 30) }, () => Math.floor(random() * bytes.length)).sort((x, y) => x - y);
      const parts = [0, ...cuts, bytes.length].slice(1).map((end, k, all) => bytes.slice(k === 0 ? 0 : all[k - 1], end));
      const fromBytes = await readBundle(
        (async function* () {
          yield* parts;
        })(),
      );
      expect(fromBytes.events).toHaveLength(13);
    }
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const b of bundleBytes(exportRun(store, runId))) controller.enqueue(b);
        controller.close();
      },
    });
    const dest = memoryStore();
    expect((await importRun(dest, stream)).outcome).toBe("created");
  });

  it("exports a long run in chunks of a few hundred lines, never one string", async () => {
    const store = memoryStore();
    const { runId } = await waitingRun(store);
    // 3,000 more events (operator-free: cancelled runs take late outcomes; simplest is a long journal of run.resumed under leases).
    let head = (await store.read(runId)).at(-1)!;
    for (let k = 0; k < 30; k++) {
      const l = (await store.acquireLease(runId, `o${k}`, 1000))!;
      const batch: JournalEvent[] = [];
      for (let j = 0; j < 100; j++) {
        const e = seal({ v: 2, at: 1, type: "run.resumed", owner: `o${k}`, token: l.token } as never, head.seq + 1, head.hash);
        batch.push(e);
        head = e;
      }
      await store.append(runId, batch, { expectedSeq: batch[0]!.seq - 1, lease: l }, "waiting");
      await store.releaseLease(l);
    }
    let count = 0;
    let largest = 0;
    for await (const c of exportRun(store, runId)) {
      count++;
      if (!c.includes('"artifact"')) largest = Math.max(largest, c.length);
    }
    expect(count).toBeGreaterThan(10);
    expect(largest).toBeLessThan(256 * 1024);
  });

  it("carries the workspace and its receipts, by SHA-256, and puts them in the destination's workspace", async () => {
    const { store, runId } = await waitingRun();
    const ws = memoryWorkspace({ "notes/a.md": "alpha", "bin.dat": new Uint8Array([0, 255, 1]) });
    const key = (await store.read(runId)).find((e) => e.type === "call.started")!;
    await ws.commit([], { key: key.type === "call.started" ? key.idempotencyKey : "", result: "done before" });
    const text = await bundleText(exportRun(store, runId, { workspace: ws }));
    const w = JSON.parse(lines(text).find((l) => l.startsWith('{"workspace"'))!) as { workspace: { files: { path: string }[]; receipts: unknown[] } };
    expect(w.workspace.files.map((f) => f.path)).toEqual(["bin.dat", "notes/a.md"]);
    expect(w.workspace.receipts).toEqual([{ key: "run_d_1:1:s1c1", result: "done before" }]);
    const there = memoryWorkspace({ "stale.md": "old" });
    await importRun(memoryStore(), text, { workspace: there });
    expect((await there.list("")).map((f) => f.path)).toEqual(["bin.dat", "notes/a.md"]);
    expect(await there.read("bin.dat")).toEqual(new Uint8Array([0, 255, 1]));
    expect(await there.receipt("run_d_1:1:s1c1")).toBe("done before");
  });

  it("refuses a run whose tools have another shape where it would be driven, naming the tool (TOOL_SHAPE_CHANGED); a mirror is not checked", async () => {
    const { store, runId } = await waitingRun();
    const text = await bundleText(exportRun(store, runId));
    const changed = toolShapes([TOOLS[0]!, { ...writeTool, description: "Write a file, differently." } as never]);
    const r = await refusal(importRun(memoryStore(), text, { role: "in_transit", tools: changed }));
    expect(r).toEqual({
      code: "TOOL_SHAPE_CHANGED",
      message: `run ${runId} was offered another shape of tool "write_file" (register tools conditionally; never change a tool's shape under a live run)`,
    });
    const missing = await refusal(importRun(memoryStore(), text, { role: "in_transit", tools: toolShapes([TOOLS[0]!]) }));
    expect(missing.message).toBe(`run ${runId} was offered tool "write_file", which this driver does not offer (register tools conditionally; never change a tool's shape under a live run)`);
    expect((await importRun(memoryStore(), text, { role: "in_transit", tools: SHAPES })).outcome).toBe("created");
    expect((await importRun(memoryStore(), text, { role: "mirror", tools: changed })).outcome).toBe("created");
  });
});

describe("bad bundles: typed errors, exact texts, nothing written", () => {
  const cases = async () => {
    const { store, runId } = await waitingRun();
    return { store, runId, text: await bundleText(exportRun(store, runId)) };
  };

  it("truncated, reordered, tampered, another version, a missing or oversized artifact, too large, not strict JSON", async () => {
    const { runId, text } = await cases();
    const ls = lines(text);
    const art = ls.findIndex((l) => l.startsWith('{"artifact"'));
    const sha = (JSON.parse(ls[art]!) as { artifact: { sha256: string } }).artifact.sha256;
    const swap = [...ls];
    [swap[4], swap[5]] = [swap[5]!, swap[4]!];
    const edited = [...ls];
    edited[6] = edited[6]!.replace('"attempt":1', '"attempt":2');
    const badArt = [...ls];
    badArt[art] = badArt[art]!.replace(/"base64":"(.)/, (_m, c: string) => `"base64":"${c === "A" ? "B" : "A"}`);
    const noArt = ls.filter((_, k) => k !== art).map((l) => l.replace('"artifacts":2', '"artifacts":1'));
    const v2 = [ls[0]!.replace('"version":1', '"version":2'), ...ls.slice(1)];
    const other = [ls[0]!.replace('"format":"isoagent.run-bundle"', '"format":"other"'), ...ls.slice(1)];
    const namedTwice = [...ls.slice(0, art + 1), ls[art]!, ...ls.slice(art + 1)];
    const eventAfterArtifact = [...ls.slice(0, art), ls[art]!, ls[5]!, ...ls.slice(art + 1)];
    const expectations: [string, string, string, string][] = [
      ["cut before its end line", join(ls.slice(0, -1)), "BUNDLE_TRUNCATED", `the bundle ends at line ${ls.length - 1} without its end line: it was cut short`],
      ["cut in the middle of a line", text.slice(0, text.length / 2), "BUNDLE_INVALID", ""],
      ["events dropped", join([...ls.slice(0, 10), ...ls.slice(14)]), "BUNDLE_TRUNCATED", "the bundle holds 9 events of the 13 its header announces"],
      ["two events swapped", join(swap), "BUNDLE_REORDERED", "line 5: event 5 comes where event 4 belongs"],
      ["an event after the artifacts", join(eventAfterArtifact), "BUNDLE_REORDERED", `line ${art + 2}: an event line after the artifact lines`],
      ["an event edited", join(edited), "BUNDLE_TAMPERED", "event 6 does not match its hash"],
      ["an artifact's bytes edited", join(badArt), "BUNDLE_TAMPERED", `artifact ${sha} does not match its SHA-256 and size`],
      [
        "an artifact left out",
        join(noArt),
        "BUNDLE_ARTIFACT_MISSING",
        `event ${ls.findIndex((l) => l.startsWith('{"event"') && l.includes(sha))} names artifact ${sha}, which the bundle does not carry`,
      ],
      ["an artifact twice", join(namedTwice), "BUNDLE_INVALID", `artifact ${sha} comes twice`],
      ["version 2", join(v2), "BUNDLE_VERSION", "the bundle is version 2 of isoagent.run-bundle; this code reads version 1"],
      ["another format", join(other), "BUNDLE_VERSION", 'the bundle\'s format is "other", not "isoagent.run-bundle"'],
      ["empty", "", "BUNDLE_TRUNCATED", "the bundle is empty: it has no header"],
      ["no header", join(ls.slice(1)), "BUNDLE_INVALID", 'line 1 is not a bundle header: a bundle starts with {"bundle": {...}}'],
      ["a repeated key", join([ls[0]!, ls[1]!.replace('{"event":{', '{"event":{"v":2,'), ...ls.slice(2)]), "BUNDLE_INVALID", 'line 2 is not strict JSON: duplicate key "v" at line 1, column 17'],
      ["a line after the end", join([...ls, ls[1]!]), "BUNDLE_INVALID", `line ${ls.length + 1} follows the bundle's end line`],
    ];
    for (const [what, bundle, code, message] of expectations) {
      const dest = memoryStore();
      const r = await refusal(importRun(dest, bundle));
      expect([what, r.code], r.message).toEqual([what, code]);
      if (message !== "") expect([what, r.message]).toEqual([what, message]);
      expect(await dest.listRuns(), what).toEqual([]);
    }
    const big = await refusal(importRun(memoryStore(), text, { maxBytes: 100_000 }));
    expect(big).toEqual({ code: "BUNDLE_TOO_LARGE", message: "the bundle is larger than 100000 bytes, the import cap; nothing was written" });
    const bigArt = await refusal(importRun(memoryStore(), text, { maxArtifactBytes: 50_000 }));
    expect(bigArt.code).toBe("BUNDLE_TOO_LARGE");
    expect(bigArt.message).toMatch(/^artifact [0-9a-f]{64} is 88001 bytes, above the cap of 50000 bytes per artifact; nothing was written$/);
    void runId;
  });

  it("stops reading a stream as soon as it passes the cap (a 1 GiB body is never read whole)", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const r = await refusal(readBundle(endless, { maxBytes: 1024 * 1024 }));
    expect(r.code).toBe("BUNDLE_TOO_LARGE");
    expect(pulled).toBeLessThan(40);
  });

  it("refuses a forged continuation under a fenced-off token (MOVE_FENCED), though its chain verifies", async () => {
    const { store, runId } = await waitingRun();
    const events = await store.read(runId);
    const last = events[events.length - 1]!;
    const moved = seal({ v: 3, at: 1, type: "run.moved", from: "a", to: "b", epoch: 5 } as never, last.seq + 1, last.hash);
    const stale = seal({ v: 2, at: 2, type: "run.resumed", owner: "old", token: 4 } as never, moved.seq + 1, moved.hash);
    const text = rebuild(await bundleText(exportRun(store, runId)), [...events, moved, stale])
      .replace(/"to":13/, '"to":15')
      .replace('"events":13', '"events":15');
    expect(await refusal(importRun(memoryStore(), text))).toEqual({
      code: "MOVE_FENCED",
      message: "event 15 (run.resumed) carries lease token 4, not above epoch 5 of the move before it: a driver the move fenced off wrote it",
    });
    const lowEpoch = seal({ v: 3, at: 1, type: "run.moved", from: "a", to: "b", epoch: 1 } as never, last.seq + 1, last.hash);
    const text2 = rebuild(await bundleText(exportRun(store, runId)), [...events, lowEpoch])
      .replace(/"to":13/, '"to":14')
      .replace('"events":13', '"events":14');
    expect(await refusal(importRun(memoryStore(), text2))).toEqual({ code: "MOVE_FENCED", message: "event 14 (run.moved) has epoch 1, not above lease token 1 issued before it" });
  });
});

describe("no tampered bundle is ever imported (property, 400 random tamperings)", () => {
  it("every change to a bundle's bytes is refused with a typed error and writes nothing, or imports exactly the original journal", async () => {
    const { store, runId, driver, outcome } = await waitingRun();
    const [a] = outcome.approvals;
    await driver.approve(runId, a!.approvalId, { requestHash: a!.requestHash, by: "ana" });
    await driver.resume(runId);
    const text = await bundleText(exportRun(store, runId));
    const original = JSON.stringify(await store.read(runId));
    // Half the cases start from a copy that has a prefix, so fast-forwards are attacked too.
    const random = rng(20261117);
    const mutations: ((t: string) => string)[] = [
      (t) => {
        // flip one character
        const k = Math.floor(random() * t.length);
        const c = t.charCodeAt(k);
        return t.slice(0, k) + String.fromCharCode(c === 48 ? 49 : c === 34 ? 39 : c ^ (1 + Math.floor(random() * 7))) + t.slice(k + 1);
      },
      (t) => {
        const ls = lines(t);
        ls.splice(Math.floor(random() * ls.length), 1);
        return join(ls);
      },
      (t) => {
        const ls = lines(t);
        const i = Math.floor(random() * ls.length);
        const j = Math.floor(random() * ls.length);
        [ls[i], ls[j]] = [ls[j]!, ls[i]!];
        return i === j ? t.slice(0, -2) : join(ls);
      },
      (t) => {
        const ls = lines(t);
        const i = Math.floor(random() * ls.length);
        ls.splice(i, 0, ls[Math.floor(random() * ls.length)]!);
        return join(ls);
      },
      (t) => t.slice(0, Math.floor(random() * t.length)),
      (t) => {
        // a number in some line, changed
        const m = [...t.matchAll(/\d+/g)];
        const hit = m[Math.floor(random() * m.length)]!;
        return t.slice(0, hit.index!) + String(Number(hit[0]) + 1) + t.slice(hit.index! + hit[0].length);
      },
    ];
    let refused = 0;
    for (let round = 0; round < 400; round++) {
      const mutate = mutations[round % mutations.length]!;
      const bad = mutate(text);
      const dest: Store = memoryStore();
      const withPrefix = round % 2 === 1;
      if (withPrefix) await importRun(dest, await bundleText(exportRun(await prefixStore(store, runId), runId)));
      const before = JSON.stringify(await dest.listRuns());
      try {
        await importRun(dest, bad);
      } catch (e) {
        expect(isIsoagentError(e), `round ${round}: ${String(e)}`).toBe(true);
        refused++;
        expect(JSON.stringify(await dest.listRuns()), `round ${round}: a refused import wrote nothing`).toBe(before);
        continue;
      }
      // Not refused: then it was no change at all to what the journal says.
      expect(JSON.stringify(await dest.read(runId as RunId)), `round ${round}: an accepted bundle is the original journal`).toBe(original);
    }
    expect(refused).toBeGreaterThan(380);
  });
});

/** A store holding the first 13 events of the run (a copy to fast-forward). */
async function prefixStore(store: Store, runId: RunId): Promise<Store> {
  const copy = memoryStore();
  const events = (await store.read(runId)).slice(0, 13);
  await movable(copy).importEvents(runId, events, { expectedSeq: 0, status: "waiting", role: "mirror" });
  for (const sha of new Set(
    events.flatMap((e) => (e.type === "call.finished" && e.observation.type === "result" && e.observation.truncated !== undefined ? [e.observation.truncated.artifact] : [])),
  )) {
    await copy.putArtifact((await store.getArtifact(sha))!);
  }
  return copy;
}

describe("base64", () => {
  it("round-trips every length and refuses what is not the canonical encoding", () => {
    const random = rng(3);
    for (let n = 0; n < 200; n++) {
      const bytes = Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
      const text = toBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64"));
      expect(fromBase64(text)).toEqual(bytes);
    }
    for (const bad of ["A", "AB=C", "QQ=", "QR==", "QUJ=", "QUI", "Q U I=", "QUI\n", "Ã==="]) expect(fromBase64(bad), bad).toBeUndefined();
  });
});
