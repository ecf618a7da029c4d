import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { crashTest, listScenario } from "../../src/testkit/index.js";
import { crashMatrix, formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";

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
      { scenario: "remote_mutation (not idempotent)", point: "during_effect", crashed: true, status: "completed", lostSteps: 0, unreconciledReruns: 0, chainIntact: true, finalEqual: null, recovery: "operator", executions: 2 },
    ]);
  });
});
