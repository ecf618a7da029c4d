/**
 * Side-by-side timing: contenders run alternately, round after round, in the
 * same process, after a warm-up; each round's time per operation is compared
 * with the baseline's in the same round, so a noisy neighbour slows both.
 * Reported: the median ratio over the rounds and its spread (min to max).
 */
import { performance } from "node:perf_hooks";

export interface Contender {
  readonly name: string;
  /** One operation; its result is kept so the work cannot be optimised away. */
  readonly run: () => unknown;
}

export interface Measured {
  readonly name: string;
  /** Median time per operation, in nanoseconds. */
  readonly medianNs: number;
  /** Median of the per-round ratios to the baseline (the first contender). */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

export interface MeasureOptions {
  readonly rounds?: number;
  /** Target time of one contender's batch in a round. */
  readonly batchMs?: number;
  /**
   * What a batch's time is: "wall" (performance.now, the default), or "cpu"
   * (this process's CPU time, process.cpuUsage): on a shared, loaded
   * machine the time the process spends descheduled is not counted, so a
   * ratio of synchronous work is not at the mercy of its neighbours.
   */
  readonly clock?: "wall" | "cpu";
}

/** This process's CPU time (user + system), in milliseconds. */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

let sink: unknown;
/** Keeps a value alive (read by nothing). */
export function consume(v: unknown): void {
  sink = v;
}

/** The contenders' indices in round `r`: in order, reversed every other round, so none always runs first. */
export function roundOrder(count: number, r: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  return r % 2 === 1 ? order.reverse() : order;
}

/**
 * Runs `rounds` rounds of one sample per contender (the order alternating,
 * see {@link roundOrder}) and returns each contender's samples, round by
 * round: for contenders that are whole runs (a page, an object) rather than
 * functions to repeat.
 */
export async function alternate<K extends string>(rounds: number, names: readonly K[], sample: (name: K, round: number) => Promise<number>): Promise<Record<K, number[]>> {
  const out = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < rounds; r++) for (const i of roundOrder(names.length, r)) out[names[i]!].push(await sample(names[i]!, r));
  return out;
}

/** The median and spread of `a[r] / b[r]`, round by round. */
export function ratioOf(a: readonly number[], b: readonly number[]): { ratio: number; min: number; max: number } {
  const ratios = a.map((x, r) => x / b[r]!);
  return { ratio: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function batchSize(c: Contender, batchMs: number, now: () => number): number {
  let n = 1;
  for (;;) {
    const t = now();
    for (let k = 0; k < n; k++) consume(c.run());
    const dt = now() - t;
    if (dt >= batchMs / 4 || n > 1e7) return Math.max(1, Math.round((n * batchMs) / Math.max(dt, 0.001)));
    n *= 2;
  }
}

/** Measures contenders against the first one (the baseline). */
export function measure(contenders: readonly Contender[], options: MeasureOptions = {}): Measured[] {
  const rounds = options.rounds ?? 15;
  const batchMs = options.batchMs ?? 40;
  // Warm-up doubles as calibration.
  const now = options.clock === "cpu" ? cpuNow : () => performance.now();
  const sizes = contenders.map((c) => batchSize(c, batchMs, now));
  contenders.forEach((c, i) => {
    for (let k = 0; k < sizes[i]!; k++) consume(c.run());
  });
  const perOp: number[][] = contenders.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const i of roundOrder(contenders.length, r)) {
      const c = contenders[i]!;
      const n = sizes[i]!;
      const t = now();
      for (let k = 0; k < n; k++) consume(c.run());
      perOp[i]!.push(((now() - t) * 1e6) / n);
    }
  }
  return summarize(contenders, perOp);
}

/** Per-contender medians, and the median of same-round ratios to the first contender. */
function summarize(contenders: readonly { name: string }[], perOp: number[][]): Measured[] {
  const base = perOp[0]!;
  return contenders.map((c, i) => {
    const ratios = perOp[i]!.map((ns, r) => ns / base[r]!);
    return { name: c.name, medianNs: median(perOp[i]!), ratio: median(ratios), ratioMin: Math.min(...ratios), ratioMax: Math.max(...ratios) };
  });
}

/** Formats nanoseconds for people. */
export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} us`;
  return `${ns.toFixed(0)} ns`;
}

export { sink };

/** One async contender: `run` does `ops` operations (so results read per operation). */
export interface AsyncContender {
  readonly name: string;
  readonly ops: number;
  readonly run: () => Promise<unknown>;
}

/**
 * Like {@link measure}, for async work: each round takes one sample of every
 * contender, alternating the order. The warm-up runs each contender for at
 * least `warmupMs` (and `warmup` runs): a fast contender needs many runs
 * before the engine has optimised it, a slow one few. A sample repeats the
 * contender's run until it lasts `minMs`, so one short run is not at the
 * mercy of a single collection.
 */
export async function measureAsync(contenders: readonly AsyncContender[], options: { rounds?: number; warmup?: number; warmupMs?: number; minMs?: number } = {}): Promise<Measured[]> {
  const rounds = options.rounds ?? 9;
  const minMs = options.minMs ?? 40;
  for (const c of contenders) {
    const t = performance.now();
    for (let w = 0; w < (options.warmup ?? 2) || performance.now() - t < (options.warmupMs ?? 300); w++) consume(await c.run());
  }
  const perOp: number[][] = contenders.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const i of roundOrder(contenders.length, r)) {
      const c = contenders[i]!;
      let runs = 0;
      const t = performance.now();
      do {
        consume(await c.run());
        runs++;
      } while (performance.now() - t < minMs);
      perOp[i]!.push(((performance.now() - t) * 1e6) / (c.ops * runs));
    }
  }
  return summarize(contenders, perOp);
}
