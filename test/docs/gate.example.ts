// docs/gate.md's examples: the schema builders' types, an explicit type a
// builder schema contradicts (tsc checks the error), and the policy
// primitives composed with allOf, each answering as the page says.
import assert from "node:assert/strict";
import { expectTypeOf } from "vitest";
import { array, defineTool, enumOf, integer, nullable, number, object, pathScopePolicy, strictObject, string, type JsonValue, type PolicyRequest, type SchemaType } from "../../src/index.js";
import { checkArgs } from "../../src/tools/index.js";

// DOCS: begin
const read = strictObject({ path: string(), limit: integer(), mode: enumOf(["head", "tail"]) }, ["path"]);
// SchemaType<typeof read>: { path: string; limit?: number; mode?: "head" | "tail" }: a property left out of `required` is optional
const rows = array(nullable(number())); // (number | null)[]
const query = object({ query: string() }); // { query: string } & { [key: string]: JsonValue }: other properties allowed
// DOCS: end

expectTypeOf<SchemaType<typeof read>>().toEqualTypeOf<{ path: string; limit?: number; mode?: "head" | "tail" }>();
expectTypeOf<SchemaType<typeof rows>>().toEqualTypeOf<(number | null)[]>();
expectTypeOf<SchemaType<typeof query>>().toEqualTypeOf<{ query: string } & { [key: string]: JsonValue }>();
// Plain JSON Schema (2020-12).
assert.deepEqual(read, {
  type: "object",
  properties: { path: { type: "string" }, limit: { type: "integer" }, mode: { enum: ["head", "tail"] } },
  required: ["path"],
  additionalProperties: false,
});
assert.deepEqual(rows, { type: "array", items: { type: ["number", "null"] } });
assert.deepEqual(query, { type: "object", properties: { query: { type: "string" } }, required: ["query"] });

const spec = { name: "read_file", description: "Read a file.", sideEffect: "read_only", timeoutMs: 5_000 } as const;
// DOCS: begin
// @ts-expect-error: the schema's { path: string } does not fit { path: number }
defineTool<{ path: number }>({ ...spec, inputSchema: strictObject({ path: string() }), call: (a) => a.path });
// DOCS: end

// The same spec with the type the schema says compiles; so does one with no
// type given (inferred), and a schema written by hand gives JsonValue.
const inferred = defineTool({ ...spec, inputSchema: strictObject({ path: string() }), call: (a) => a.path });
expectTypeOf(inferred.call).parameter(0).toEqualTypeOf<{ path: string }>();
defineTool<{ path: string }>({ ...spec, inputSchema: strictObject({ path: string() }), call: (a) => a.path });
const byHand = defineTool({ ...spec, inputSchema: { type: "object", properties: { path: { type: "string" } } }, call: (a) => a });
expectTypeOf(byHand.call).parameter(0).toEqualTypeOf<JsonValue>();
assert.equal(checkArgs(inferred, '{"path":"notes.md"}').valid, true);

// DOCS: begin
import { allOf, rulesPolicy, workspacePolicy } from "../../src/index.js";

const policy = allOf(
  workspacePolicy({
    deny: ["**/.env", "secrets/**"], // workspace-relative path globs
    ask: ["package.json"],
    grants: [
      // the allowlist for what changes things or reaches out
      { operation: ["write", "delete"], match: "docs/**" },
      { operation: "network", match: "api.example.com" },
    ],
    askForSideEffects: ["remote_mutation", "destructive"],
    requireCommandApproval: true, // a command resource asks; it grants nothing by itself
  }),
  rulesPolicy([{ tool: "http_*", resource: { kind: "host", match: "*.internal" }, permission: "deny" }]),
);
// DOCS: end

type Resource = PolicyRequest["resources"][number];
const ask = (tool: string, sideEffect: PolicyRequest["sideEffect"], ...resources: Resource[]) => policy({ tool, sideEffect, args: {}, resources }).permission;
const path = (value: string): Resource => ({ kind: "path", value });

assert.equal(ask("read_file", "read_only", path("notes.md")), "allow"); // reads are not grant-checked
assert.equal(ask("read_file", "read_only", path("app/.env")), "deny");
assert.equal(ask("read_file", "read_only", path("secrets/key.pem")), "deny");
assert.equal(ask("read_file", "read_only", path("package.json")), "ask");
assert.equal(ask("read_file", "read_only", path("../etc/passwd")), "deny"); // outside the workspace
assert.equal(ask("read_file", "read_only", path("/etc/passwd")), "deny");
assert.equal(ask("write_file", "local_mutation", path("docs/a.md")), "allow"); // granted
assert.equal(ask("write_file", "local_mutation", path("src/a.ts")), "deny"); // no grant
assert.equal(ask("write_file", "local_mutation", path("docs/.env")), "deny"); // deny wins over a grant
assert.equal(ask("http_fetch", "read_only", { kind: "host", value: "api.example.com" }), "allow");
assert.equal(ask("http_fetch", "read_only", { kind: "host", value: "example.org" }), "deny");
assert.equal(ask("http_post", "remote_mutation", { kind: "host", value: "api.example.com" }), "ask"); // askForSideEffects
assert.equal(ask("http_fetch", "read_only", { kind: "host", value: "db.internal" }), "deny"); // the rule
assert.equal(ask("bash", "local_mutation", { kind: "command", value: "ls" }), "deny"); // no execute grant
// A command that is granted still asks (requireCommandApproval).
const commands = workspacePolicy({ grants: [{ operation: "execute", match: "*" }], requireCommandApproval: true });
assert.equal(commands({ tool: "bash", sideEffect: "local_mutation", args: {}, resources: [{ kind: "command", value: "ls" }] }).permission, "ask");

// The prose's pathScopePolicy: paths only inside approved roots, each with its operations.
const scoped = pathScopePolicy({ scopes: [{ path: "/workspace" }, { path: "/home/ana/reference", operations: ["read"] }] });
const scope = (sideEffect: PolicyRequest["sideEffect"], value: string) => scoped({ tool: "t", sideEffect, args: {}, resources: [path(value)] }).permission;
assert.equal(scope("read_only", "/home/ana/reference/a.md"), "allow");
assert.equal(scope("local_mutation", "/home/ana/reference/a.md"), "deny");
assert.equal(scope("local_mutation", "/workspace/a.md"), "allow");
assert.equal(scope("read_only", "/home/ana/other.md"), "deny");
