/**
 * `npm run bench -- memory`: the heap a run keeps, measured in a fresh Node
 * with --expose-gc after forced collections (the bench's own heap would blur
 * it), against the run's data serialized:
 * - a completed 10,000-event run (no budget) in the memory store, and a
 *   driver, against its journal;
 * - a live run of about 100,000 events under the trimmer (the memory store;
 *   its driver waiting on the agent) against its journal;
 * - the same run resumed by a new driver (waiting on the agent): the heap
 *   that driver added against the snapshot and the events after it, which
 *   is what a resume reads.
 */
import { execFileSync } from "node:child_process";
import { result, type Result } from "./results.js";

export interface MemoryFigure {
  readonly events: number;
  readonly journalBytes: number;
  readonly retainedBytes: number;
}

export interface LongMemoryFigure {
  readonly events: number;
  readonly steps: number;
  readonly journalBytes: number;
  readonly liveBytes: number;
  readonly snapshotBytes: number;
  readonly tailEvents: number;
  readonly readBytes: number;
  readonly resumedBytes: number;
}

const probe = (...args: string[]): string => {
  const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/memory-probe.ts", ...args], { encoding: "utf8", maxBuffer: 1 << 24 });
  return out.trim().split("\n").at(-1)!;
};

export function benchMemory(): { completed: MemoryFigure; long: LongMemoryFigure } {
  return { completed: JSON.parse(probe()) as MemoryFigure, long: JSON.parse(probe("long")) as LongMemoryFigure };
}

const kb = (b: number): string => `${(b / 1024).toFixed(0)} KB`;

export function printMemory(f: { completed: MemoryFigure; long: LongMemoryFigure }): void {
  const c = f.completed;
  const l = f.long;
  console.log("memory: heap a run keeps (measured in a child after forced collections) against its data serialized");
  console.log(`completed run, no budget: events ${c.events}, journal ${kb(c.journalBytes)}, heap retained ${kb(c.retainedBytes)}, ratio ${(c.retainedBytes / c.journalBytes).toFixed(2)}`);
  console.log(`live run, trimmer on: events ${l.events} (${l.steps} steps), journal ${kb(l.journalBytes)}, heap ${kb(l.liveBytes)}, ratio ${(l.liveBytes / l.journalBytes).toFixed(2)}`);
  console.log(
    `resumed: snapshot ${kb(l.snapshotBytes)} + ${l.tailEvents} events after it = ${kb(l.readBytes)}, heap the resuming driver added ${kb(l.resumedBytes)}, ratio ${(l.resumedBytes / l.readBytes).toFixed(2)}`,
  );
  for (const x of memoryResults(f)) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function memoryResults(f: { completed: MemoryFigure; long: LongMemoryFigure }): Result[] {
  const c = f.completed;
  const l = f.long;
  return [
    result("memory.heap-per-journal", `heap retained per ${c.events}-event run ÷ its journal serialized (completed, no budget, memory store)`, c.retainedBytes / c.journalBytes, "<= 3", { ...c }),
    result(
      "memory.live-per-journal",
      `heap of a live ${l.events}-event run ÷ its journal serialized (trimmer on, memory store, its artifacts included in the heap)`,
      l.liveBytes / l.journalBytes,
      "<= 3",
      { ...l },
    ),
    result(
      "memory.resumed-per-snapshot-tail",
      `heap a driver adds resuming that run ÷ the snapshot and the ${l.tailEvents} events after it, serialized (what it read)`,
      l.resumedBytes / l.readBytes,
      "<= 3",
      { ...l },
    ),
  ];
}
