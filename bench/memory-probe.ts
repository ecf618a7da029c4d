/**
 * Measures, in its own process (run with --expose-gc), the heap a
 * 10,000-event run keeps: the store holding it and a driver. Prints one JSON
 * line.
 */
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../src/index.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const settle = (): number => {
  for (let k = 0; k < 5; k++) gc();
  return process.memoryUsage().heapUsed;
};

const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
const steps = 2499; // 4 events a step, plus created, resumed, the final decision and completed: 10,000 events
const agent = scriptedAgent((view) => (view.step <= steps ? calls(call("noop")) : final("done")));
// Warm up the code paths, so compiled code is not counted as the run's.
await createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: 100 } }).start("warm");

const before = settle();
const store = memoryStore();
const driver = createDriver({ store, agent, tools: [noop], limits: { maxSteps: steps + 1 } });
const outcome = await driver.start("bench");
const after = settle();
const events = await store.read(outcome.runId);
const journalBytes = Buffer.byteLength(events.map((e) => JSON.stringify(e)).join("\n"));
console.log(JSON.stringify({ events: events.length, journalBytes, retainedBytes: after - before }));
void driver;
