import { describe, expect, it } from "vitest";
import { integer, nullable, strictObject, string, type ToolSpec } from "../../src/index.js";
import { checkArgs, compileTool } from "../../src/tools/index.js";

const readFile: ToolSpec<{ path: string; limit: number | null }> = {
  name: "read_file",
  description: "Read a text file from the workspace.",
  inputSchema: strictObject({ path: string("Workspace-relative path", { minLength: 1 }), limit: nullable(integer("Most lines to return", { minimum: 1 })) }, ["path"]),
  sideEffect: "read_only",
  timeoutMs: 5_000,
};

const SCHEMA_NEXT = "[Next: Call read_file again with arguments that match its input schema.]";
const SCHEMA_RECOVERY = "[Recovery: Correct only what is listed. If the task cannot be done with arguments this schema accepts, stop and say why instead of retrying.]";
const JSON_NEXT = "[Next: Call read_file again with its arguments as one JSON object that matches its input schema.]";
const JSON_RECOVERY = "[Recovery: Strict JSON only: no comments, trailing commas, repeated keys or unpaired surrogates. If you cannot write the arguments that way, stop and say why.]";

describe("checkArgs: the invalid_decision text, pinned by exact value", () => {
  const cases: [string, string][] = [
    ['{"path":3}', `Error: invalid arguments for read_file: at /path: expected string, got integer\n${SCHEMA_NEXT}\n${SCHEMA_RECOVERY}`],
    ["", `Error: invalid arguments for read_file: missing required property "path"\n${SCHEMA_NEXT}\n${SCHEMA_RECOVERY}`],
    ['{"path":"a","mode":"x","other":1}', `Error: invalid arguments for read_file: unexpected property "mode"; unexpected property "other"\n${SCHEMA_NEXT}\n${SCHEMA_RECOVERY}`],
    ['{"path":"","limit":0}', `Error: invalid arguments for read_file: at /path: must be at least 1 character long; at /limit: must be >= 1\n${SCHEMA_NEXT}\n${SCHEMA_RECOVERY}`],
    ['{"path":"a","path":"b"}', `Error: invalid arguments for read_file: the arguments are not valid JSON: duplicate key "path" at line 1, column 13\n${JSON_NEXT}\n${JSON_RECOVERY}`],
    ['{"path":"\\ud800"}', `Error: invalid arguments for read_file: the arguments are not valid JSON: unpaired surrogate "\\ud800" in a string at line 1, column 10\n${JSON_NEXT}\n${JSON_RECOVERY}`],
    // A raw one (the text itself holds it, as a JS string can): JSON.parse takes it, the boundary must not.
    ['{"path":"a\ud800"}', `Error: invalid arguments for read_file: the arguments are not valid JSON: unpaired surrogate U+D800 in a string at line 1, column 11\n${JSON_NEXT}\n${JSON_RECOVERY}`],
    ['{"path":"a",}', `Error: invalid arguments for read_file: the arguments are not valid JSON: trailing comma at line 1, column 13\n${JSON_NEXT}\n${JSON_RECOVERY}`],
    ["[" + "[".repeat(300), `Error: invalid arguments for read_file: the arguments are not valid JSON: nesting deeper than 256 levels at line 1, column 257\n${JSON_NEXT}\n${JSON_RECOVERY}`],
    ["[1]", `Error: invalid arguments for read_file: expected object, got array\n${SCHEMA_NEXT}\n${SCHEMA_RECOVERY}`],
  ];
  it.each(cases)("%j", (raw, text) => {
    const r = checkArgs(readFile, raw);
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.text).toBe(text);
  });

  it("lists at most 8 problems, then says how many more", () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, k) => [`x${k}`, k]));
    const r = checkArgs(readFile, JSON.stringify({ path: "a", ...many }));
    expect(r.valid).toBe(false);
    if (!r.valid) {
      const listed = Array.from({ length: 8 }, (_, k) => `unexpected property "x${k}"`).join("; ");
      expect(r.text.split("\n")[0]).toBe(`Error: invalid arguments for read_file: ${listed}; and 3 more`);
      expect(r.issues.filter((i) => i.keyword === "additionalProperties")).toHaveLength(11);
    }
  });

  it("accepts valid arguments, from text or bytes, and empty text as {}", () => {
    expect(checkArgs(readFile, '{"path":"notes.md","limit":null}')).toEqual({ valid: true, args: { path: "notes.md", limit: null } });
    expect(checkArgs(readFile, new TextEncoder().encode('{"path":"é"}'))).toEqual({ valid: true, args: { path: "é" } });
    const noArgs: ToolSpec = { name: "list_files", description: "List files.", inputSchema: strictObject({}), sideEffect: "read_only", timeoutMs: 1000 };
    expect(checkArgs(noArgs, "")).toEqual({ valid: true, args: {} });
    expect(checkArgs(noArgs, "  \n")).toEqual({ valid: true, args: {} });
    expect(checkArgs(noArgs, new Uint8Array())).toEqual({ valid: true, args: {} });
  });

  it("reports why: invalid_json with the boundary error, invalid_arguments with the issues", () => {
    const j = checkArgs(readFile, "{,}");
    expect(j).toMatchObject({ valid: false, failure: "invalid_json", issues: [] });
    if (!j.valid) expect(j.jsonError?.code).toBe("JSON_SYNTAX");
    const s = checkArgs(readFile, "{}");
    expect(s).toMatchObject({ valid: false, failure: "invalid_arguments", jsonError: undefined });
    if (!s.valid) expect(s.issues.map((i) => i.keyword)).toEqual(["required"]);
  });

  it("gives the same answer as the compiled tool's check", () => {
    const tool = compileTool(readFile);
    for (const raw of ['{"path":3}', '{"path":"a"}', "", "{,}", '{"path":"a","x":1}']) expect(checkArgs(readFile, raw)).toEqual(tool.check(raw));
  });

  it("throws the spec's refusal, as compileTool does", () => {
    expect(() => checkArgs({ ...readFile, timeoutMs: 0 }, "{}")).toThrow('tool "read_file": timeoutMs must be a finite number of milliseconds greater than 0, not 0');
  });

  it("never lets an exception's text into the model-facing text", () => {
    // A key crafted to look like a stack trace stays a quoted key.
    const r = checkArgs(readFile, JSON.stringify({ path: "a", "Error: at /home/user/secret.js:1:1": 1 }));
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.text.split("\n")[0]).toBe('Error: invalid arguments for read_file: unexpected property "Error: at /home/user/secret.js:1:1"');
  });
});
