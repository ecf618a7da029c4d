import { describe, expect, it } from "vitest";
import { bashCrashMatrix } from "../../scripts/lib/bash-crash.js";
import { formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";

describe("the crash matrix covers bash, a local_mutation tool with receipts (memory store)", () => {
  it("crashed at every point around the first command: no lost step, no unreconciled re-execution, the file appended to once per call", async () => {
    const rows = await bashCrashMatrix();
    console.log(formatMatrix(rows));
    expect(rows.length).toBe(5);
    expect(matrixProblems(rows)).toEqual([]);
    expect(rows.map((r) => [r.point, r.crashed, r.status, r.finalEqual])).toEqual([
      ["before_started", true, "completed", true],
      ["after_started", true, "completed", true],
      ["during_effect", true, "completed", true],
      ["after_effect", true, "completed", true],
      ["after_finished", true, "completed", true],
    ]);
    // After the effect, the receipt answers: bash's hook records the result, and the command ran once per call.
    for (const r of rows.filter((x) => x.point === "during_effect" || x.point === "after_effect")) expect([r.recovery, r.executions]).toEqual(["hook", 2]);
    // Before it, the hook finds no receipt and runs the call again: safe, nothing was committed (the crash came before the tool ran).
    expect(rows.find((x) => x.point === "after_started")).toMatchObject({ recovery: "hook", executions: 2 });
  }, 60_000);
});
