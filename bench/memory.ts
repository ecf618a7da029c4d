/**
 * `npm run bench -- memory`: the heap a 10,000-event run keeps in the memory
 * store (and the driver) against the size of its journal serialized, in
 * the same process, measured after forced garbage collection.
 */
import { execFileSync } from "node:child_process";
import { result, type Result } from "./results.js";

export interface MemoryFigure {
  readonly events: number;
  readonly journalBytes: number;
  readonly retainedBytes: number;
}

/** Runs the measurement in a fresh Node with --expose-gc (the bench's own heap would blur it). */
export function benchMemory(): MemoryFigure {
  const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/memory-probe.ts"], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").at(-1)!) as MemoryFigure;
}

export function printMemory(f: MemoryFigure): void {
  console.log("memory: heap retained by a 10,000-event run in the memory store against its journal serialized");
  console.log(`events ${f.events}, journal ${(f.journalBytes / 1024).toFixed(0)} KB, heap retained ${(f.retainedBytes / 1024).toFixed(0)} KB, ratio ${(f.retainedBytes / f.journalBytes).toFixed(2)}`);
}

export function memoryResults(f: MemoryFigure): Result[] {
  return [result("memory.heap-per-journal", `heap retained per ${f.events}-event run ÷ its journal serialized`, f.retainedBytes / f.journalBytes, "<= 3", { ...f })];
}
