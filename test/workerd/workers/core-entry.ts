/**
 * A Worker that exercises the built core inside workerd and reports what it
 * saw. It also tries to generate code from a string, to prove the isolate
 * refuses it: a pass here means the core needed no eval.
 */
import { isIsoagentError, loadFullSchemaSupport, strictObject, string, integer, type ToolSpec } from "../../../src/index.js";
import { checkArgs } from "../../../src/tools/index.js";
import { compileSchema } from "../../../src/schema/index.js";
import { canonicalJson, hashJson } from "../../../src/json/index.js";

const spec: ToolSpec = {
  name: "read_file",
  description: "Read a text file.",
  inputSchema: strictObject({ path: string("Path", { pattern: "^[a-z]" }), limit: integer("Lines", { minimum: 1 }) }, ["path"]),
  sideEffect: "read_only",
  timeoutMs: 1000,
};

export default {
  async fetch(): Promise<Response> {
    let codegen: string;
    try {
      codegen = String(new Function("return 'code generation allowed'")());
    } catch (e) {
      codegen = `refused: ${(e as Error).message}`;
    }
    const checks = ['{"path":"notes.md","limit":5}', '{"path":"Notes.md"}', '{"path":"a","path":"b"}', '{"limit":0}', ""].map((raw) => {
      const r = checkArgs(spec, raw);
      return r.valid ? { valid: true, args: r.args } : { valid: false, text: r.text.split("\n")[0] };
    });
    let external: string;
    try {
      compileSchema({ $ref: "https://example.com/s.json" });
      external = "compiled";
    } catch (e) {
      external = (e as Error).message;
    }
    // The metaschema reference needs full schema support: refused before it
    // is loaded, taken after (the lazy chunk loads inside workerd).
    let beforeLoad: string;
    try {
      compileSchema({ $ref: "https://json-schema.org/draft/2020-12/schema" });
      beforeLoad = "compiled";
    } catch (e) {
      beforeLoad = isIsoagentError(e, "SCHEMA_NEEDS_FULL_SUPPORT") ? e.code : String(e);
    }
    await loadFullSchemaSupport();
    const dynamic = compileSchema({
      $id: "https://example.com/string-list",
      $ref: "list",
      $defs: {
        stringItem: { $dynamicAnchor: "item", type: "string" },
        list: { $id: "list", type: "array", items: { $dynamicRef: "#item" }, $defs: { anything: { $dynamicAnchor: "item" } } },
      },
    });
    // Patterns in linear time there too (the matcher, and RegExp for a proved one), with no eval.
    const hostile = `${"a".repeat(64)}!`;
    const patterns = [
      compileSchema({ pattern: "^(a+)+$" }),
      compileSchema({ pattern: "^[a-z]+!$", evaluator: "reference" }),
      compileSchema({ pattern: "^(a|b)*$", unevaluatedItems: false, type: "string" }),
    ].map((s) => s.validate(hostile).valid);
    return Response.json({
      codegen,
      checks,
      patterns,
      external,
      beforeLoad,
      dynamic: [dynamic.validate(["a"]).valid, dynamic.validate([1]).valid],
      metaschemaRef: compileSchema({ $ref: "https://json-schema.org/draft/2020-12/schema" }).validate({ type: 5 }).valid,
      canonical: canonicalJson({ b: 1, a: [true, null] }),
      hash: await hashJson({ a: 1 }),
    });
  },
};
