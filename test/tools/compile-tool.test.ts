import { describe, expect, it } from "vitest";
import { isIsoagentError, strictObject, string, type ToolSpec } from "../../src/index.js";
import { compileTool, compileTools, ToolSpecError } from "../../src/tools/index.js";
import { asRuntimeControl } from "../../src/tools/compile.js";

const base: ToolSpec = {
  name: "write_file",
  description: "Write a text file in the workspace.",
  inputSchema: strictObject({ path: string("Workspace-relative path"), content: string("The new content") }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
};

function refusal(spec: unknown): { code: string; message: string; field: string; tool: string | undefined } {
  try {
    compileTool(spec as ToolSpec);
  } catch (e) {
    if (!(e instanceof ToolSpecError)) throw e;
    return { code: e.code, message: e.message, field: e.field, tool: e.tool };
  }
  throw new Error("compiled");
}

describe("compileTool refusals, pinned by exact value", () => {
  const cases: [string, unknown, string, string][] = [
    ["no spec", null, "TOOL_SPEC_INVALID", "tool spec must be an object, not null"],
    ["an empty name", { ...base, name: "" }, "TOOL_NAME_INVALID", "tool name is empty"],
    ["a missing name", { ...base, name: undefined }, "TOOL_NAME_INVALID", "tool name is empty"],
    ["a name that is not a string", { ...base, name: 7 }, "TOOL_NAME_INVALID", "tool name must be a string, not 7"],
    ["a malformed name", { ...base, name: "write file" }, "TOOL_NAME_INVALID", 'tool name "write file" is invalid: use 1 to 64 letters, digits, "_" or "-"'],
    ["a too long name", { ...base, name: "x".repeat(65) }, "TOOL_NAME_INVALID", `tool name "${"x".repeat(65)}" is invalid: use 1 to 64 letters, digits, "_" or "-"`],
    ["a reserved name", { ...base, name: "task_complete" }, "TOOL_NAME_RESERVED", 'tool name "task_complete" is reserved for the runtime\'s control tool'],
    ["another reserved name", { ...base, name: "ask_user" }, "TOOL_NAME_RESERVED", 'tool name "ask_user" is reserved for the runtime\'s control tool'],
    ["an empty description", { ...base, description: " " }, "TOOL_DESCRIPTION_INVALID", 'tool "write_file": description must be a non-empty string, not " "'],
    [
      "an invalid side effect",
      { ...base, sideEffect: "mutation" },
      "TOOL_SIDE_EFFECT_INVALID",
      'tool "write_file": side effect must be read_only, local_mutation, remote_mutation or destructive, not "mutation"',
    ],
    [
      "a missing side effect",
      { ...base, sideEffect: undefined },
      "TOOL_SIDE_EFFECT_INVALID",
      'tool "write_file": side effect must be read_only, local_mutation, remote_mutation or destructive, not a value of type undefined',
    ],
    ["a missing timeout", { ...base, timeoutMs: undefined }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs is required'],
    ["a zero timeout", { ...base, timeoutMs: 0 }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be a finite number of milliseconds greater than 0, not 0'],
    ["a negative timeout", { ...base, timeoutMs: -5 }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be a finite number of milliseconds greater than 0, not -5'],
    ["an infinite timeout", { ...base, timeoutMs: Infinity }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be a finite number of milliseconds greater than 0, not Infinity'],
    ["a NaN timeout", { ...base, timeoutMs: NaN }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be a finite number of milliseconds greater than 0, not NaN'],
    ["a timeout as text", { ...base, timeoutMs: "10" }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be a finite number of milliseconds greater than 0, not "10"'],
    ["a timeout a timer cannot hold", { ...base, timeoutMs: 2 ** 31 }, "TOOL_TIMEOUT_INVALID", 'tool "write_file": timeoutMs must be at most 2147483647 (about 24.8 days), not 2147483648'],
    ["a mutating tool without permission", { ...base, permission: undefined }, "TOOL_PERMISSION_REQUIRED", 'tool "write_file": a local_mutation tool must state its permission (allow, ask or deny)'],
    [
      "a destructive tool without permission",
      { ...base, sideEffect: "destructive", permission: undefined },
      "TOOL_PERMISSION_REQUIRED",
      'tool "write_file": a destructive tool must state its permission (allow, ask or deny)',
    ],
    ["an invalid permission", { ...base, permission: "maybe" }, "TOOL_PERMISSION_INVALID", 'tool "write_file": permission must be allow, ask or deny, not "maybe"'],
    [
      "parallelSafe on a mutating tool",
      { ...base, parallelSafe: true },
      "TOOL_PARALLEL_SAFE_INVALID",
      'tool "write_file": parallelSafe is only allowed for read_only tools, and this one is local_mutation',
    ],
    ["parallelSafe that is not a boolean", { ...base, sideEffect: "read_only", parallelSafe: "yes" }, "TOOL_PARALLEL_SAFE_INVALID", 'tool "write_file": parallelSafe must be a boolean, not "yes"'],
    ["terminal that is not a boolean", { ...base, terminal: 1 }, "TOOL_TERMINAL_INVALID", 'tool "write_file": terminal must be a boolean, not 1'],
    [
      "a zero visible cap",
      { ...base, outputPolicy: { maxVisibleBytes: 0 } },
      "TOOL_OUTPUT_POLICY_INVALID",
      'tool "write_file": outputPolicy.maxVisibleBytes must be a whole number of bytes greater than 0, not 0',
    ],
    ["an unknown strategy", { ...base, outputPolicy: { strategy: "middle" } }, "TOOL_OUTPUT_POLICY_INVALID", 'tool "write_file": outputPolicy.strategy must be "head" or "tail", not "middle"'],
    ["resources that is not a function", { ...base, resources: ["a"] }, "TOOL_RESOURCES_INVALID", 'tool "write_file": resources must be a function of the arguments, not a value of type array'],
    ["a missing schema", { ...base, inputSchema: undefined }, "SCHEMA_MISSING", 'tool "write_file": input schema is missing'],
    [
      "schema text that is not JSON",
      { ...base, inputSchema: "{'type':'object'}" },
      "SCHEMA_NOT_JSON",
      'tool "write_file": input schema is not valid JSON: expected a string key, found "\'" at line 1, column 2',
    ],
    ["a schema nested too deep", { ...base, inputSchema: "[".repeat(300) }, "SCHEMA_TOO_DEEP", 'tool "write_file": input schema is nested deeper than 256 levels'],
    [
      "a schema referring outside itself",
      { ...base, inputSchema: { type: "object", $ref: "https://example.com/s.json" } },
      "SCHEMA_EXTERNAL_REF",
      'tool "write_file": input schema refers outside itself: $ref "https://example.com/s.json" at the root',
    ],
    [
      "a schema with an unsupported keyword",
      { ...base, inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", dependentRequired: {} } },
      "SCHEMA_UNSUPPORTED_KEYWORD",
      'tool "write_file": input schema uses a keyword the validator cannot evaluate correctly: dependentRequired is not part of draft-07, but the validator would apply it (at /dependentRequired)',
    ],
    [
      "a schema that does not compile",
      { ...base, inputSchema: { type: "object", required: "path" } },
      "SCHEMA_INVALID",
      'tool "write_file": input schema does not compile: the draft 2020-12 metaschema refuses /required: expected array, got string',
    ],
  ];
  it.each(cases)("%s", (_what, spec, code, message) => {
    const r = refusal(spec);
    expect(r.code).toBe(code);
    expect(r.message).toBe(message);
    expect(isIsoagentError(new Error(), code as never)).toBe(false);
  });

  it("names the field and the tool", () => {
    expect(refusal({ ...base, timeoutMs: 0 })).toMatchObject({ field: "timeoutMs", tool: "write_file" });
    expect(refusal({ ...base, inputSchema: { $ref: "x.json" } })).toMatchObject({ field: "inputSchema", tool: "write_file" });
  });
});

describe("compileTool: defaults and the runtime's own names", () => {
  it("fills the defaults in", () => {
    const t = compileTool({ ...base, name: "read_file", sideEffect: "read_only", permission: undefined });
    expect({ permission: t.permission, terminal: t.terminal, parallelSafe: t.parallelSafe, outputPolicy: t.outputPolicy }).toEqual({
      permission: "allow",
      terminal: false,
      parallelSafe: false,
      outputPolicy: { maxVisibleBytes: 65536, strategy: "tail", keepFull: true },
    });
    expect(Object.isFrozen(t)).toBe(true);
    expect(compileTool({ ...base, outputPolicy: { strategy: "head" } }).outputPolicy).toEqual({ maxVisibleBytes: 65536, strategy: "head", keepFull: true });
  });

  it("lets the runtime's own control tools use the reserved names", () => {
    const t = compileTool(asRuntimeControl({ ...base, name: "task_complete", terminal: true }));
    expect(t.name).toBe("task_complete");
    // A look-alike marker does not.
    expect(refusal({ ...base, name: "ask_user", [Symbol("isoagent.runtimeControl")]: true }).code).toBe("TOOL_NAME_RESERVED");
    expect(refusal({ ...base, name: "ask_user", [Symbol.for("isoagent.runtimeControl")]: true }).code).toBe("TOOL_NAME_RESERVED");
  });

  it("compileTools refuses a name used twice", () => {
    expect(compileTools([base, { ...base, name: "read_file" }]).map((t) => t.name)).toEqual(["write_file", "read_file"]);
    try {
      compileTools([base, { ...base }]);
      throw new Error("compiled");
    } catch (e) {
      expect(isIsoagentError(e, "TOOL_NAME_DUPLICATE")).toBe(true);
      expect((e as Error).message).toBe('duplicate tool name "write_file"');
    }
  });
});
