/**
 * `npm run bench -- do`: durable steps per second in a Durable Object
 * (workerd through miniflare, storage on disk), each against a raw baseline
 * of one small insert per transaction confirmed the way that driver confirms
 * its own writes, in the same object and the same run (rounds alternate which
 * goes first):
 * - durability "sync": the driver syncs before each effect; the baseline
 *   syncs after each insert.
 * - durability "output-gate": the effect is one RPC, held by the output gate
 *   until the journal is confirmed; the baseline sends the same RPC after
 *   each insert.
 * Also a driver in the Worker reaching the run's object over RPC (each reply
 * held by the gate), against the sync baseline.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../scripts/lib/bundle.js";
import { RUN_OBJECTS } from "../scripts/lib/worker.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";

export interface DoFigure {
  readonly driver: "hosted, sync" | "hosted, output-gate" | "Worker over RPC";
  readonly steps: number;
  readonly rawMsPerTx: number;
  readonly driverMsPerStep: number;
  readonly stepsPerSecond: number;
  /** Driver steps per second / confirmed inserts per second (goal: at least 0.9). */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
  /** Two inserts per step, the first confirmed (the least an effectful step's journal needs), in ms per step. */
  readonly twoWritesMsPerStep: number;
  /** Driver steps per second / two-write steps per second (informative). */
  readonly ratioVsTwoWrites: number;
}



export async function benchDo(options: { quick?: boolean } = {}): Promise<DoFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bench-do-"));
  const mf = new Miniflare({
    name: "bench",
    modules: true,
    script: await bundleWorker("bench/workers/do-bench.ts"),
    compatibilityDate: "2026-07-01",
    ...RUN_OBJECTS,
    durableObjectsPersist: dir,
  });
  /** Milliseconds for one request, checked: a driver run must complete with every event. */
  const time = async (path: string, n: number): Promise<number> => {
    const t0 = performance.now();
    const res = await mf.dispatchFetch(`http://localhost${path}`);
    const body = (await res.json()) as { status: string; seq: number };
    const ms = performance.now() - t0;
    if (!res.ok || body.status !== "completed" || body.seq !== 3 + 4 * n + 1) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return ms;
  };
  const figures: DoFigure[] = [];
  try {
    const rounds = options.quick ? 3 : 7;
    const n = options.quick ? 100 : 200;
    const cases = [
      { driver: "hosted, sync", path: "hosted", durability: "sync" },
      { driver: "hosted, output-gate", path: "hosted", durability: "output-gate" },
      { driver: "Worker over RPC", path: "remote", durability: "sync" },
    ] as const;
    for (const c of cases) {
      await time(`/${c.path}?object=warm-${c.driver}&steps=20&durability=${c.durability}`, 20);
      await time(`/raw?object=warm-${c.driver}&steps=20&durability=${c.durability}`, 20);
      const path = (what: string, round: number) => (what === "driver" ? `/${c.path}` : "/raw") + `?object=${c.path}-${c.durability}-${round}&steps=${n}&durability=${c.durability}${what === "two" ? "&writes=2" : ""}`;
      const got = await alternate(rounds, ["driver", "raw", "two"] as const, async (what, round) => (await time(path(what, round), n)) / n);
      const vsRaw = ratioOf(got.raw, got.driver);
      figures.push({
        driver: c.driver,
        steps: n,
        rawMsPerTx: median(got.raw),
        driverMsPerStep: median(got.driver),
        stepsPerSecond: 1000 / median(got.driver),
        ratio: vsRaw.ratio,
        ratioMin: vsRaw.min,
        ratioMax: vsRaw.max,
        twoWritesMsPerStep: median(got.two),
        ratioVsTwoWrites: ratioOf(got.two, got.driver).ratio,
      });
    }
  } finally {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

export function printDo(figures: DoFigure[]): void {
  console.log("do: driver steps (one local_mutation call each) in a Durable Object against one small insert per transaction, confirmed the same way, same object, same run");
  console.log("| driver (durability) | steps per run | confirmed insert | driver per step | steps per second | ratio (steps/s / inserts/s) (spread) | two inserts per step | ratio to two inserts |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(
      `| ${f.driver} | ${f.steps} | ${formatNs(f.rawMsPerTx * 1e6)} | ${formatNs(f.driverMsPerStep * 1e6)} | ${Math.round(f.stepsPerSecond)} | ${f.ratio.toFixed(2)} (${f.ratioMin.toFixed(2)}-${f.ratioMax.toFixed(2)}) | ${formatNs(f.twoWritesMsPerStep * 1e6)} | ${f.ratioVsTwoWrites.toFixed(2)} |`,
    );
  }
  console.log("goal: a ratio of at least 0.9 (a step costs about one confirmed transaction)");
  console.log("informative: an effectful step's journal needs two writes (its start, confirmed before the effect; its outcome after), so two inserts per step is the floor the crash semantics allow");
}

export function doResults(figures: DoFigure[]): Result[] {
  const slug = (d: DoFigure["driver"]): string => (d === "hosted, sync" ? "hosted-sync" : d === "hosted, output-gate" ? "hosted-output-gate" : "worker-rpc");
  return figures.flatMap((f) => [
    result(`durable.do.${slug(f.driver)}`, `driver steps/s ÷ one confirmed insert per transaction /s in a Durable Object (${f.driver})`, f.ratio, ">= 0.9", {
      rawMsPerTx: f.rawMsPerTx,
      driverMsPerStep: f.driverMsPerStep,
      spread: [f.ratioMin, f.ratioMax],
    }),
    result(
      `durable.do.${slug(f.driver)}.vs-two-writes`,
      `driver steps/s ÷ steps/s of two inserts per step, the first confirmed: the least an effectful step's journal needs (${f.driver}, informative)`,
      f.ratioVsTwoWrites,
      "informative",
      { twoWritesMsPerStep: f.twoWritesMsPerStep, driverMsPerStep: f.driverMsPerStep },
    ),
  ]);
}
