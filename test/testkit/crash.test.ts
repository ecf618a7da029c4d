import { describe, expect, it } from "vitest";
import { createDriver, memoryStore } from "../../src/index.js";
import { Crash, manualClock } from "../../src/testkit/index.js";
import { baselineOf, crashTest, judge, listScenario } from "../../src/testkit/index.js";
import { crashLoopMatrix, crashMatrix, formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";

describe("crash tests around a tool's effect (memory store)", () => {
  it("the matrix: 4 side-effect classes x 5 crash points, no lost step, no unreconciled re-execution", async () => {
    const rows = await crashMatrix();
    expect(rows.length).toBe(20);
    expect(matrixProblems(rows)).toEqual([]);
    // A crash between the effect and its record makes the effect run again:
    // for read_only by the runtime, for the other classes only after an
    // operator said so.
    for (const r of rows.filter((x) => x.point === "during_effect" || x.point === "after_effect")) {
      expect(r.executions).toBe(3);
      expect(r.recovery).toBe(r.scenario === "read_only" ? "runtime" : "operator");
    }
    expect(formatMatrix(rows).split("\n").length).toBe(22);
  });

  it("with a tool that is not idempotent, an operator's record_failure keeps the effect single", async () => {
    const scenario = { ...listScenario("remote_mutation", { idempotent: false }), operator: () => ({ resolution: "record_failure" as const }) };
    const rows = await crashTest(scenario, { createStore: (clock) => memoryStore({ clock }), points: ["during_effect"] });
    expect(rows).toEqual([
      {
        scenario: "remote_mutation (not idempotent)",
        point: "during_effect",
        crashed: true,
        status: "completed",
        lostSteps: 0,
        unreconciledReruns: 0,
        chainIntact: true,
        finalEqual: null,
        recovery: "operator",
        executions: 2,
        maxAttempts: 1,
        unboundedReruns: 0,
        limitAsks: 0,
      },
    ]);
  });

  it("crash loops (issue 26): each run crashed twice at its point; a call interrupted twice is run again only on the operator's word, and no step is lost", async () => {
    const rows = await crashLoopMatrix();
    expect(rows.length).toBe(20);
    expect(matrixProblems(rows)).toEqual([]);
    for (const r of rows) {
      // Interrupted twice (started, never finished): asked at the limit, the operator's run_again its third start.
      const interrupted = r.point === "after_started" || r.point === "during_effect" || r.point === "after_effect" || (r.point === "after_finished" && r.scenario === "read_only");
      expect([r.scenario, r.point, r.maxAttempts, r.limitAsks, r.unboundedReruns]).toEqual([r.scenario, r.point, interrupted ? 3 : 1, interrupted ? 1 : 0, 0]);
    }
    // A read that died twice was run again once by the runtime, then asked about.
    expect(rows.filter((r) => r.scenario === "read_only" && r.point === "during_effect").map((r) => [r.recovery, r.executions])).toEqual([["runtime", 4]]);
  });

  it("judges a start past the bound: a read run again by the runtime is one start past a bound of 1, none past 2; an operator's run_again allows one more", async () => {
    const scenario = listScenario("read_only");
    const clock = manualClock();
    const store = memoryStore({ clock });
    const world = scenario.setup();
    let crashed = false;
    const faults = {
      at: (p: string) => {
        if (p === "after_start_append" && !crashed) {
          crashed = true;
          throw new Crash();
        }
      },
    };
    const runId = await createDriver({ store, clock, agent: scenario.agent(), tools: world.tools, faults }).create(scenario.task);
    await createDriver({ store, clock, agent: scenario.agent(), tools: world.tools, faults }).resume(runId);
    clock.advance(30_001);
    const done = await createDriver({ store, clock, agent: scenario.agent(), tools: world.tools }).resume(runId);
    const events = await store.read(runId);
    const record = { status: done.status, output: done.output, events, log: [], world: world.state() };
    const baseline = baselineOf(record);
    expect(judge(scenario, "after_started", true, baseline, record, 1)).toMatchObject({ maxAttempts: 2, unboundedReruns: 1 });
    expect(judge(scenario, "after_started", true, baseline, record)).toMatchObject({ maxAttempts: 2, unboundedReruns: 0 });
    const byOperator = events.map((e) => (e.type === "call.reconciled" ? { ...e, by: "ana" } : e));
    expect(judge(scenario, "after_started", true, baseline, { ...record, events: byOperator }, 1)).toMatchObject({ unboundedReruns: 0 });
  });
});
