import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../src/index.js";
const noop = defineTool({ name: "noop", description: "Do nothing.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000, call: () => "ok" }) as Tool<never, unknown>;
async function run(n: number) {
  const agent = scriptedAgent((view) => (view.step <= n ? calls(call("noop")) : final("done")));
  const driver = createDriver({ store: memoryStore(), agent, tools: [noop], limits: { maxSteps: n + 1 } });
  await driver.start("bench");
}
for (let k = 0; k < 5; k++) await run(200);
const t0 = performance.now();
for (let k = 0; k < 30; k++) await run(200);
console.log(((performance.now() - t0) / 30 / 200 * 1000).toFixed(1), "us/step");
