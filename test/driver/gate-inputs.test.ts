/**
 * The gate's checks of what comes from outside it, each at its edges (issue
 * 21: the driver area's mutation run found them tested only on well-formed
 * input): an agent's decision (toDecision), the model's report of who
 * answered and what it cost (toAnswer), what a tool says a call touches
 * (checkResources), and errors from other copies of the library
 * (isToolError). All of it is untrusted: a malformed part is refused or left
 * out, never let through half-checked.
 */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/index.js";
import { checkResources, isToolError, toAnswer, toDecision } from "../../src/call/gate.js";

describe("isToolError", () => {
  it("knows a ToolError of this copy, or of another copy by the isoagent brand and its code, and nothing else", () => {
    expect(isToolError(new ToolError("x"))).toBe(true);
    expect(isToolError({ [Symbol.for("isoagent.error")]: true, code: "TOOL_ERROR", name: "ToolError", summary: "from another copy" })).toBe(true);
    const lookalikes = [
      { name: "ToolError", summary: "s" },
      { [Symbol.for("isoagent.error")]: true, code: "ABORT_RUN", summary: "s" },
    ];
    for (const e of [...lookalikes, { name: "ToolError" }, { name: "ToolError", summary: 3 }, { name: "Error", summary: "s" }, { summary: "s" }, null, undefined, "ToolError", 42, new Error("x")]) {
      expect(isToolError(e), JSON.stringify(e)).toBe(false);
    }
  });
});

describe("checkResources", () => {
  it("copies { kind, value, operation? } strings, dropping anything else", () => {
    const given = [
      { kind: "path", value: "a.md", extra: "x" },
      { kind: "url", value: "https://h/", operation: "network" },
    ];
    const out = checkResources(given);
    expect(out).toEqual([
      { kind: "path", value: "a.md" },
      { kind: "url", value: "https://h/", operation: "network" },
    ]);
    expect(out[0]).not.toBe(given[0]);
    for (const operation of ["read", "write", "delete", "network", "execute"]) expect(checkResources([{ kind: "k", value: "v", operation }])).toEqual([{ kind: "k", value: "v", operation }]);
    expect(checkResources([])).toEqual([]);
  });

  it("refuses anything else with a TypeError that says what a resource is", () => {
    const table: [unknown, string][] = [
      [undefined, "resources must be an array"],
      [{ kind: "path", value: "a" }, "resources must be an array"],
      ["a.md", "resources must be an array"],
      [[null], "a resource must be { kind, value }"],
      [["a.md"], "a resource must be { kind, value }"],
      [[1], "a resource must be { kind, value }"],
      [[{ kind: 1, value: "a" }], "a resource must be { kind, value } strings"],
      [[{ kind: "path", value: 2 }], "a resource must be { kind, value } strings"],
      [[{ kind: "path" }], "a resource must be { kind, value } strings"],
      [[{ kind: "path", value: "a", operation: "fly" }], "a resource's operation must be read, write, delete, network or execute"],
      [[{ kind: "path", value: "a", operation: null }], "a resource's operation must be read, write, delete, network or execute"],
      [
        [
          { kind: "path", value: "a" },
          { kind: "path", value: "b", operation: "READ" },
        ],
        "a resource's operation must be read, write, delete, network or execute",
      ],
    ];
    for (const [value, message] of table) {
      let thrown: unknown;
      try {
        checkResources(value);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(value)).toBeInstanceOf(TypeError);
      expect((thrown as Error).message, JSON.stringify(value)).toBe(message);
    }
  });
});

describe("toAnswer", () => {
  const ok = { provider: "openai", model: "gpt-x", finishReason: "stop", usage: { input: 10, output: 2, cached: 4 } };

  it("copies a well-formed report, with only the fields it knows", () => {
    expect(toAnswer({ ...ok, extra: 1, usage: { ...ok.usage, extra: 9 } })).toEqual(ok);
    expect(toAnswer({ provider: "p", model: "m" })).toEqual({ provider: "p", model: "m" });
    expect(toAnswer({ provider: "p", model: "m", usage: { input: 0, output: 0 } })).toEqual({ provider: "p", model: "m", usage: { input: 0, output: 0 } });
    const long = "x".repeat(200);
    expect(toAnswer({ provider: long, model: long, finishReason: long })).toEqual({ provider: long, model: long, finishReason: long });
  });

  it("is nothing without a provider and model that are labels (non-empty strings of at most 200 characters)", () => {
    for (const a of [
      null,
      undefined,
      "openai",
      3,
      {},
      { provider: "p" },
      { model: "m" },
      { ...ok, provider: "" },
      { ...ok, model: "" },
      { ...ok, provider: "x".repeat(201) },
      { ...ok, model: "x".repeat(201) },
      { ...ok, provider: 1 },
      { ...ok, model: ["m"] },
    ]) {
      expect(toAnswer(a), JSON.stringify(a)).toBeUndefined();
    }
  });

  it("leaves out a finish reason that is not a label, and usage unless input, output (and cached, when given) are safe non-negative integers", () => {
    for (const finishReason of ["", "x".repeat(201), 3, null]) expect(toAnswer({ ...ok, finishReason })).not.toHaveProperty("finishReason");
    const bad = [-1, 1.5, 2 ** 53, "3", NaN, Infinity, null];
    for (const v of bad) {
      for (const field of ["input", "output", "cached"]) {
        const a = toAnswer({ ...ok, usage: { ...ok.usage, [field]: v } });
        expect(a, `${field}: ${String(v)}`).toEqual({ provider: "openai", model: "gpt-x", finishReason: "stop" });
      }
    }
    for (const usage of [null, "10/2", 5, { input: 1 }, { output: 1 }]) expect(toAnswer({ ...ok, usage })).not.toHaveProperty("usage");
  });
});

describe("toDecision", () => {
  it("turns a final answer into a decision (output null when absent), with the text and the answer when well-formed", () => {
    expect(toDecision({ kind: "final", output: { a: 1 } } as never, 1)).toEqual({ decision: { kind: "final", output: { a: 1 } } });
    expect(toDecision({ kind: "final" } as never, 1)).toEqual({ decision: { kind: "final", output: null } });
    expect(toDecision({ kind: "final", output: "done", text: "All done.", answer: { provider: "p", model: "m" } } as never, 1)).toEqual({
      decision: { kind: "final", output: "done", text: "All done." },
      answer: { provider: "p", model: "m" },
    });
    expect(toDecision({ kind: "final", output: "done", text: 3, answer: { provider: "" } } as never, 1)).toEqual({ decision: { kind: "final", output: "done" } });
  });

  it("refuses a final output that is not JSON, saying why", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    for (const output of [() => 1, 10n, cycle, { when: new Date(0) }]) {
      const r = toDecision({ kind: "final", output } as never, 1);
      expect(typeof r === "string" && r.startsWith("its output is not JSON (") && r.endsWith(")") && r.length > "its output is not JSON ()".length, String(r)).toBe(true);
    }
  });

  it("gives calls their ids (s<step>c<k> unless the agent gave one), with the text and the answer", () => {
    expect(
      toDecision(
        {
          kind: "calls",
          calls: [
            { name: "a", args: "{}" },
            { name: "b", args: "{}", callId: "call:b-1.x_y" },
          ],
          text: "Looking.",
          answer: { provider: "p", model: "m" },
        } as never,
        7,
      ),
    ).toEqual({
      decision: {
        kind: "calls",
        calls: [
          { callId: "s7c1", name: "a", args: "{}" },
          { callId: "call:b-1.x_y", name: "b", args: "{}" },
        ],
        text: "Looking.",
      },
      answer: { provider: "p", model: "m" },
    });
    expect(toDecision({ kind: "calls", calls: [{ name: "a", args: "{}", callId: "x".repeat(128) }] } as never, 1)).toEqual({
      decision: { kind: "calls", calls: [{ callId: "x".repeat(128), name: "a", args: "{}" }] },
    });
  });

  it("refuses anything else, naming the call at fault", () => {
    const table: [unknown, string][] = [
      [null, "not an object"],
      ["final", "not an object"],
      [{ kind: "other" }, 'it is neither "final" nor a non-empty list of calls'],
      [{ kind: "other", calls: [{ name: "a", args: "{}" }] }, 'it is neither "final" nor a non-empty list of calls'],
      [{ kind: "calls" }, 'it is neither "final" nor a non-empty list of calls'],
      [{ kind: "calls", calls: {} }, 'it is neither "final" nor a non-empty list of calls'],
      [{ kind: "calls", calls: [] }, 'it is neither "final" nor a non-empty list of calls'],
      [{ kind: "calls", calls: [null] }, "call 1 needs a name and raw argument text"],
      [{ kind: "calls", calls: ["a"] }, "call 1 needs a name and raw argument text"],
      [{ kind: "calls", calls: [{ name: "a", args: "{}" }, { args: "{}" }] }, "call 2 needs a name and raw argument text"],
      [{ kind: "calls", calls: [{ name: 1, args: "{}" }] }, "call 1 needs a name and raw argument text"],
      [{ kind: "calls", calls: [{ name: "a", args: {} }] }, "call 1 needs a name and raw argument text"],
      [{ kind: "calls", calls: [{ name: "a", args: "{}", callId: "" }] }, "call 1 has a missing, malformed or repeated id"],
      [{ kind: "calls", calls: [{ name: "a", args: "{}", callId: "has space" }] }, "call 1 has a missing, malformed or repeated id"],
      [{ kind: "calls", calls: [{ name: "a", args: "{}", callId: "x".repeat(129) }] }, "call 1 has a missing, malformed or repeated id"],
      [{ kind: "calls", calls: [{ name: "a", args: "{}", callId: 5 }] }, "call 1 has a missing, malformed or repeated id"],
      [
        {
          kind: "calls",
          calls: [
            { name: "a", args: "{}", callId: "c" },
            { name: "b", args: "{}", callId: "c" },
          ],
        },
        "call 2 has a missing, malformed or repeated id",
      ],
      // A given id may not take the id another call of the step gets by default.
      [
        {
          kind: "calls",
          calls: [
            { name: "a", args: "{}" },
            { name: "b", args: "{}", callId: "s1c1" },
          ],
        },
        "call 2 has a missing, malformed or repeated id",
      ],
    ];
    for (const [d, why] of table) expect(toDecision(d as never, 1), JSON.stringify(d)).toBe(why);
  });
});
