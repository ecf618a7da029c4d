// docs/schema.md's examples: a self-contained schema's issues, exactly as the
// page shows them, and full schema support loaded on demand (a schema whose
// format asserts is refused until it is, and checked after).
import assert from "node:assert/strict";
import { strictObject, string } from "../../src/index.js";
import { fullSupport } from "../../src/schema/support.js";
import { compileTool } from "../../src/tools/index.js";

// DOCS: begin
import { compileSchema } from "../../src/schema/index.js";

const s = compileSchema({ type: "object", properties: { n: { type: "integer", minimum: 1 } } });
s.validate({ n: 0.5 });
// { valid: false, issues: [
//   { keyword: "type", instanceLocation: "/n", keywordLocation: "/properties/n/type", message: "expected integer, got number" },
//   { keyword: "minimum", instanceLocation: "/n", keywordLocation: "/properties/n/minimum", message: "must be >= 1" } ] }
// DOCS: end

assert.deepEqual(s.validate({ n: 0.5 }), {
  valid: false,
  issues: [
    { keyword: "type", instanceLocation: "/n", keywordLocation: "/properties/n/type", message: "expected integer, got number" },
    { keyword: "minimum", instanceLocation: "/n", keywordLocation: "/properties/n/minimum", message: "must be >= 1" },
  ],
});
assert.equal(s.validate({ n: 2 }).valid, true);

const sendMail = {
  name: "send_mail",
  description: "Send a mail.",
  sideEffect: "remote_mutation",
  permission: "ask",
  timeoutMs: 5_000,
  inputSchema: strictObject({ to: string("Recipient", { format: "email" }) }),
} as const;
// The example programs share one module graph, so another may have loaded it already.
if (fullSupport() === undefined) {
  assert.throws(() => compileTool(sendMail), {
    code: "SCHEMA_NEEDS_FULL_SUPPORT",
    message:
      'tool "send_mail": input schema needs full schema support, which is not loaded: format "email" asserts, and the format checkers are part of it (at /properties/to/format); call await loadFullSchemaSupport() once before compiling it',
  });
}

// DOCS: begin
import { loadFullSchemaSupport } from "../../src/index.js";

await loadFullSchemaSupport(); // once; later calls return at once
// DOCS: end

const support = fullSupport();
assert(support !== undefined);
await loadFullSchemaSupport(); // a later call keeps the support it has
assert.equal(fullSupport(), support);
const tool = compileTool(sendMail);
assert.equal(tool.check('{"to":"ana@example.com"}').valid, true);
assert.equal(tool.check('{"to":"not a mail address"}').valid, false);
