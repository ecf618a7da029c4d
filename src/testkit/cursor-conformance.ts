/**
 * The conformance suite every export cursor passes (isoagent/otel's
 * `ExportCursor`): memory, IndexedDB, a Durable Object's SQLite, and any
 * third party's. Like the store suite it needs no test framework.
 *
 * @example
 * ```ts
 * import { it } from "vitest"
 * runCursorConformance({
 *   name: "memory",
 *   test: it,
 *   create: () => ({ cursor: memoryCursor() }),
 *   skip: [{ tests: ["a cursor is kept when it is opened again"], reason: "memory keeps nothing across a restart" }],
 * })
 * ```
 */
import { parseRunId, type RunId } from "../ids.js";
import type { ExportCursor } from "../otel/exporter.js";
import { ConformanceFailure, registerCases, type ConformanceSkip } from "./conformance.js";

/** A fresh cursor, and how to open it again on the same storage (a reload, a new incarnation of the object). */
export interface CursorUnderTest {
  readonly cursor: ExportCursor;
  /** Closes what the cursor holds open, if anything, and opens the same storage again. */
  reopen?(): Promise<ExportCursor>;
  /** Called after the case, to free resources. */
  dispose?(): Promise<void>;
}

/** What `runCursorConformance` runs: a name for the suite, a factory for a fresh cursor under test, the cases to skip (each with its reason), and the test runner's `test`. */
export interface CursorConformanceOptions {
  readonly name: string;
  readonly create: () => CursorUnderTest | Promise<CursorUnderTest>;
  readonly skip?: readonly ConformanceSkip[];
  /** Registers one test: vitest's `it`, node:test's `test`, ... */
  readonly test: (name: string, fn: () => Promise<void>) => void;
}

async function expectAt(cursor: ExportCursor, runId: RunId, seq: number, what: string): Promise<void> {
  const at = await cursor.get(runId);
  if (at !== seq) throw new ConformanceFailure(`${what}: expected ${seq}, got ${JSON.stringify(at)}`);
}

let counter = 0;
/** Run ids unique in this process, so that cases may share one storage. */
const newRunId = (): RunId => parseRunId(`cursor_${Date.now().toString(36)}_${++counter}`);

/** One case of the export cursor conformance suite. */
export type CursorCase = (c: CursorUnderTest) => Promise<void>;

/** Every case, by name. */
export const CURSOR_CASES: Readonly<Record<string, CursorCase>> = {
  "a run never exported is at 0": async ({ cursor }) => {
    await expectAt(cursor, newRunId(), 0, "get of an unknown run");
  },
  "set moves the cursor, and get reads it": async ({ cursor }) => {
    const runId = newRunId();
    await cursor.set(runId, 3);
    await expectAt(cursor, runId, 3, "after set 3");
    await cursor.set(runId, 12);
    await expectAt(cursor, runId, 12, "after set 12");
  },
  "a cursor never moves back": async ({ cursor }) => {
    const runId = newRunId();
    await cursor.set(runId, 7);
    await cursor.set(runId, 3);
    await expectAt(cursor, runId, 7, "set 3 after 7");
    await cursor.set(runId, 7);
    await expectAt(cursor, runId, 7, "set 7 again");
  },
  "sets at once keep the highest": async ({ cursor }) => {
    const runId = newRunId();
    await Promise.all([cursor.set(runId, 4), cursor.set(runId, 9), cursor.set(runId, 6), cursor.set(runId, 2)]);
    await expectAt(cursor, runId, 9, "four sets at once");
  },
  "runs have cursors of their own": async ({ cursor }) => {
    const a = newRunId();
    const b = newRunId();
    await cursor.set(a, 5);
    await expectAt(cursor, b, 0, "another run");
    await cursor.set(b, 2);
    await expectAt(cursor, a, 5, "the first run after the second moved");
  },
  "a seq past 2^32 is kept exactly": async ({ cursor }) => {
    const runId = newRunId();
    await cursor.set(runId, 2 ** 40 + 1);
    await expectAt(cursor, runId, 2 ** 40 + 1, "a large seq");
  },
  "a cursor is kept when it is opened again": async (c) => {
    if (c.reopen === undefined) throw new ConformanceFailure("this case needs reopen(); give it, or skip the case with a reason");
    const runId = newRunId();
    await c.cursor.set(runId, 21);
    const again = await c.reopen();
    await expectAt(again, runId, 21, "after opening it again");
    await again.set(runId, 22);
    await expectAt(again, runId, 22, "moved after opening it again");
  },
};

/**
 * Registers every case of the cursor suite, as `runStoreConformance` does:
 * a skip names a real case and gives a reason, or the suite fails.
 */
export function runCursorConformance(options: CursorConformanceOptions): void {
  registerCases("runCursorConformance", options, CURSOR_CASES);
}
