/**
 * A reconcile hook's answer is untrusted (a user's code): each shape it can
 * take, and the fault that sends the call to an operator instead, by exact
 * text (issue 21: survivors of the driver area's mutation run in
 * src/driver/recovery.ts).
 */
import { describe, expect, it } from "vitest";
import { checkReconciliation } from "../../src/driver/recovery.js";

describe("checkReconciliation", () => {
  it("takes each known action; record_result keeps its content, the others only the action", () => {
    for (const action of ["run_again", "record_failure", "mark_unknown", "ask_operator"]) expect(checkReconciliation({ action, content: "dropped" })).toEqual({ action });
    expect(checkReconciliation({ action: "record_result", content: { sent: true } })).toEqual({ action: "record_result", content: { sent: true } });
    expect(checkReconciliation({ action: "record_result" })).toEqual({ action: "record_result", content: undefined });
  });

  it("faults anything else, saying what it got (strings cut at 40 characters)", () => {
    const table: [unknown, string][] = [
      [undefined, "the reconcile hook returned undefined, not a reconciliation"],
      [null, "the reconcile hook returned null, not a reconciliation"],
      ["run_again", 'the reconcile hook returned "run_again", not a reconciliation'],
      ["x".repeat(41), `the reconcile hook returned "${"x".repeat(40)}…", not a reconciliation`],
      ["x".repeat(40), `the reconcile hook returned "${"x".repeat(40)}", not a reconciliation`],
      [3, "the reconcile hook returned a number, not a reconciliation"],
      [true, "the reconcile hook returned a boolean, not a reconciliation"],
      [() => ({ action: "run_again" }), "the reconcile hook returned a function, not a reconciliation"],
      [{ action: "retry" }, 'the reconcile hook returned an unknown action "retry"'],
      [{ action: "Run_Again" }, 'the reconcile hook returned an unknown action "Run_Again"'],
      [{}, "the reconcile hook returned an unknown action undefined"],
      [{ action: null }, "the reconcile hook returned an unknown action null"],
      [{ action: ["run_again"] }, "the reconcile hook returned an unknown action a list"],
      [{ action: { kind: "run_again" } }, "the reconcile hook returned an unknown action an object"],
      [[], "the reconcile hook returned an unknown action undefined"],
    ];
    for (const [answer, fault] of table) expect(checkReconciliation(answer), JSON.stringify(answer)).toEqual({ fault });
  });

  it("faults an answer whose fields throw when read", () => {
    const trap = new Proxy(
      {},
      {
        get: () => {
          throw new Error("gotcha");
        },
      },
    );
    expect(checkReconciliation(trap)).toEqual({ fault: "the reconcile hook's answer could not be read" });
    const getter = Object.defineProperty({}, "action", {
      get: () => {
        throw new Error("gotcha");
      },
    });
    expect(checkReconciliation(getter)).toEqual({ fault: "the reconcile hook's answer could not be read" });
  });
});
