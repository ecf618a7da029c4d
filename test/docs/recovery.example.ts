// docs/recovery.md's recovery bounds, as options: the driver takes them, and
// refuses a bound that is not a finite number >= 0 with the page's text.
// (The page's longer example, a read that crashes three times, is
// test/readme/recovery-example.ts.)
import assert from "node:assert/strict";
import { createDriver, final, memoryStore, scriptedAgent } from "../../src/index.js";

const store = memoryStore();
const agent = scriptedAgent([final("done")]);
const tools = [] as const;

// DOCS: begin
const driver = createDriver({ store, agent, tools, recovery: { maxInterruptions: 2, maxResumesWithoutProgress: 3 } });
// DOCS: end

assert.equal((await driver.start("a task")).status, "completed");
assert.throws(() => createDriver({ store, agent, tools, recovery: { maxInterruptions: -1 } }), {
  code: "DRIVER_INVALID",
  message: "recovery.maxInterruptions must be a finite number >= 0 (0: no limit), not -1",
});
assert.throws(() => createDriver({ store, agent, tools, recovery: { maxResumesWithoutProgress: Number.POSITIVE_INFINITY } }), { code: "DRIVER_INVALID" });
createDriver({ store, agent, tools, recovery: { maxInterruptions: 0, maxResumesWithoutProgress: 0 } }); // 0 turns a bound off
