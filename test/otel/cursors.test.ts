/**
 * The export cursor conformance suite (isoagent/testkit) on the memory
 * cursor and on the IndexedDB cursor under fake-indexeddb; Chromium's
 * IndexedDB runs it in test/browser/otel-cursor.test.ts, a Durable Object's
 * SQLite in test/workerd/otel.test.ts.
 */
import "fake-indexeddb/auto";
import { deleteDB, openDB } from "idb";
import { describe, expect, it } from "vitest";
import { DB_VERSION, idbCursor, idbStore } from "../../adapters/idb/index.js";
import type { RunId } from "../../src/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { memoryCursor, type ExportCursor } from "../../src/otel/index.js";
import { CURSOR_CASES, runCursorConformance } from "../../src/testkit/index.js";

describe("the memory cursor", () => {
  runCursorConformance({
    name: "memory",
    test: it,
    create: () => ({ cursor: memoryCursor() }),
    skip: [{ tests: ["a cursor is kept when it is opened again"], reason: "a memory cursor is gone with its process: a restarted exporter sends a run's spans again, which a collector drops by id" }],
  });
});

let n = 0;
describe("the IndexedDB cursor under fake-indexeddb (Node)", () => {
  runCursorConformance({
    name: "idb (fake-indexeddb)",
    test: it,
    create: () => {
      const name = `cursor-${++n}`;
      const opened = [idbCursor({ name })];
      return {
        cursor: opened[0]!,
        reopen: async () => {
          opened.at(-1)!.close();
          opened.push(idbCursor({ name }));
          return opened.at(-1)!;
        },
        dispose: async () => {
          for (const c of opened) c.close();
          await deleteDB(name);
        },
      };
    },
  });

  it("is a database of its own: the journal's database keeps its version and stores", async () => {
    const store = idbStore({ name: "journal-beside-cursor", clock: manualClock() });
    await store.listRuns();
    const cursor = idbCursor({ name: "journal-beside-cursor-otel" });
    await cursor.set("r1" as RunId, 4);
    store.close();
    cursor.close();
    const journal = await openDB("journal-beside-cursor");
    expect([journal.version, [...journal.objectStoreNames].sort()]).toEqual([DB_VERSION, ["artifacts", "journal", "runs", "snapshots"]]);
    journal.close();
  });

  it("refuses once closed, with STORE_CLOSED", async () => {
    const cursor = idbCursor({ name: "closed-cursor" });
    await cursor.set("r1" as RunId, 1);
    cursor.close();
    await expect(cursor.get("r1" as RunId)).rejects.toMatchObject({ code: "STORE_CLOSED" });
  });
});

describe("runCursorConformance", () => {
  it("refuses a skip without a reason, and a skip of a case that does not exist", () => {
    const create = () => ({ cursor: memoryCursor() });
    expect(() => runCursorConformance({ name: "x", test: () => {}, create, skip: [{ tests: ["a cursor never moves back"], reason: "" }] })).toThrow(
      "runCursorConformance(x): a skip without a reason (a cursor never moves back)",
    );
    expect(() => runCursorConformance({ name: "x", test: () => {}, create, skip: [{ tests: ["nope"], reason: "r" }] })).toThrow('runCursorConformance(x): no case named "nope" to skip');
  });

  it("fails a cursor that moves back, and one with no reopen that does not skip the case", async () => {
    const at = new Map<RunId, number>();
    const backwards: ExportCursor = { get: async (id) => at.get(id) ?? 0, set: async (id, seq) => void at.set(id, seq) };
    const cases: { name: string; fn: () => Promise<void> }[] = [];
    runCursorConformance({ name: "broken", test: (name, fn) => cases.push({ name, fn }), create: () => ({ cursor: backwards }) });
    expect(cases.map((c) => c.name)).toEqual(Object.keys(CURSOR_CASES).map((k) => `broken: ${k}`));
    await expect(cases.find((c) => c.name.endsWith("a cursor never moves back"))!.fn()).rejects.toThrow("set 3 after 7: expected 7, got 3");
    await expect(cases.find((c) => c.name.endsWith("opened again"))!.fn()).rejects.toThrow("this case needs reopen()");
  });
});
