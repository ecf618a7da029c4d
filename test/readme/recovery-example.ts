// docs/recovery.md's example, as a reader would copy it: recovery-doc.test.ts
// checks that the page shows this code verbatim (with "isoagent" for the
// import path) and runs it; tsc checks that it typechecks.
// DOCS: begin
import { createDriver, memoryStore, defineTool, scriptedAgent, calls, call, final, strictObject } from "../../src/index.js";
import { manualClock, Crash } from "../../src/testkit/index.js";

const clock = manualClock(); // so that a dead driver's lease can run out at once
const store = memoryStore({ clock });
let runs = 0;
const fetchReport = defineTool({
  name: "fetch_report",
  description: "Fetch the weekly report.",
  sideEffect: "read_only",
  timeoutMs: 5_000,
  inputSchema: strictObject({}),
  call: () => {
    runs++;
    if (runs <= 3) throw new Crash("the process died"); // as a process dies in it: out of memory, killed
    return { rows: 3 };
  },
});
// A new driver for each process that starts after the last one died.
const driver = () =>
  createDriver({
    store,
    clock,
    tools: [fetchReport],
    agent: scriptedAgent([calls(call("fetch_report")), final("reported")]),
    recovery: { maxInterruptions: 2, maxResumesWithoutProgress: 3 }, // the defaults
  });

let outcome = await driver().start("the weekly report"); // stopped: "crashed" (1st run)
clock.advance(30_001); // its lease runs out
outcome = await driver().resume(outcome.runId); // the runtime runs it again: crashed (2nd run)
clock.advance(30_001);
outcome = await driver().resume(outcome.runId); // interrupted 2 times: not run again, asked
// outcome.status === "waiting"; the ask:
const [ask] = outcome.approvals;
// ask.request.kind === "interrupted_side_effect", ask.request.attempt === 2 (each attempt interrupted),
// ask.request.interrupted: { cause: "lease_expired", holder, expiresAt, startedAt, limit: 2 }, ask.request.note
await driver().approve(outcome.runId, ask!.approvalId, { requestHash: ask!.requestHash, by: "ana" }); // once more
outcome = await driver().resume(outcome.runId); // crashed (3rd run)
clock.advance(30_001);
const again = await driver().resume(outcome.runId); // asked again (attempt 3): each answer, one run
await driver().settle(again.runId, again.approvals[0]!.approvalId, { requestHash: again.approvals[0]!.requestHash, by: "ana", resolution: "run_again" });
outcome = await driver().resume(again.runId); // the 4th run returns: completed
// DOCS: end

export { ask, again, outcome, runs };
