// docs/gate.md's first example, as a newcomer would copy it: newcomer.test.ts
// checks that docs/gate.md shows this code verbatim (with "isoagent" for the
// import path), and tsc checks that it typechecks with no annotation.
// README: begin
import { defineTool, integer, nullable, strictObject, string } from "../../src/index.js";
import { checkArgs, compileTool } from "../../src/tools/index.js";

const files = new Map([["notes.md", "# Notes\n- milk\n- eggs\n"]]);

const readFile = defineTool({
  name: "read_file", // 1-64 of [A-Za-z0-9_-], unique in a driver
  description: "Read a UTF-8 text file from the workspace.",
  inputSchema: strictObject({
    // additionalProperties: false, every property required
    path: string("Workspace-relative path", { minLength: 1 }),
    limit: nullable(integer("Most lines to return", { minimum: 1 })),
  }),
  sideEffect: "read_only", // read_only | local_mutation | remote_mutation | destructive
  timeoutMs: 5_000, // required, > 0
  parallelSafe: true, // read_only tools only
  resources: (args) => [{ kind: "path", value: args.path }], // what policy matches on
  call: (args) => {
    // args: { path: string; limit: number | null }, from the schema
    const lines = (files.get(args.path) ?? "").split("\n");
    return lines.slice(0, args.limit ?? lines.length).join("\n");
  },
});

const tool = compileTool(readFile); // every check the driver makes; throws ToolSpecError
const ok = tool.check('{"path":"notes.md","limit":null}');
// { valid: true, args: { path: "notes.md", limit: null } }

const r = checkArgs(readFile, '{"path":"a","path":"b"}'); // compileTool + check, cached
// r.valid === false, r.failure === "invalid_json", and r.text is exactly what
// the driver records in the invalid_decision observation:
// Error: invalid arguments for read_file: the arguments are not valid JSON: duplicate key "path" at line 1, column 13
// [Next: Call read_file again with its arguments as one JSON object that matches its input schema.]
// [Recovery: Strict JSON only: no comments, trailing commas, repeated keys or unpaired surrogates. If you cannot write the arguments that way, stop and say why.]
// README: end

export { ok, r, readFile };
