/**
 * `npm run bench -- steps`: the driver's cost per step on the memory store
 * (a scripted agent, a no-op read_only tool, every step journaled with its
 * hash chain), against a plain loop that calls the same tool directly, in the
 * same run.
 */
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../src/index.js";
import { formatNs, measureAsync } from "./harness.js";

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;

export interface StepsFigure {
  readonly steps: number;
  readonly driverNsPerStep: number;
  readonly loopNsPerStep: number;
  readonly stepsPerSecond: number;
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

async function driverRun(n: number): Promise<void> {
  const agent = scriptedAgent((view) => (view.step <= n ? calls(call("noop")) : final("done")));
  const driver = createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: n + 1 } });
  const outcome = await driver.start("bench");
  if (outcome.status !== "completed" || outcome.seq !== 3 + 4 * n + 1) throw new Error(`bench run ended ${outcome.status} at ${outcome.seq}`);
}

async function plainLoop(n: number): Promise<void> {
  const ctx = {} as never;
  for (let k = 0; k < n; k++) await noop.call({} as never, ctx);
}

export async function benchSteps(options: { quick?: boolean } = {}): Promise<StepsFigure[]> {
  const figures: StepsFigure[] = [];
  for (const n of options.quick ? [200] : [50, 200, 400]) {
    const [loop, driver] = await measureAsync(
      [
        { name: "plain loop", ops: n, run: () => plainLoop(n) },
        { name: "driver", ops: n, run: () => driverRun(n) },
      ],
      { rounds: options.quick ? 5 : 11 },
    );
    figures.push({ steps: n, driverNsPerStep: driver!.medianNs, loopNsPerStep: loop!.medianNs, stepsPerSecond: 1e9 / driver!.medianNs, ratio: driver!.ratio, ratioMin: driver!.ratioMin, ratioMax: driver!.ratioMax });
  }
  return figures;
}

export function printSteps(figures: StepsFigure[]): void {
  console.log("steps: the driver (memory store, scripted agent, no-op read_only tool) against a plain loop calling the tool, same run");
  console.log("| steps per run | driver per step | steps per second | plain loop per step | ratio driver / loop (spread) |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    console.log(`| ${f.steps} | ${formatNs(f.driverNsPerStep)} | ${Math.round(f.stepsPerSecond)} | ${formatNs(f.loopNsPerStep)} | ${f.ratio.toFixed(0)} (${f.ratioMin.toFixed(0)}-${f.ratioMax.toFixed(0)}) |`);
  }
  const flat = figures.length > 1 ? figures[figures.length - 1]!.driverNsPerStep / figures[0]!.driverNsPerStep : 1;
  console.log(`per-step time at the longest run / the shortest: ${flat.toFixed(2)} (flat is 1.0)`);
}
