/**
 * The metaschema check of the core: each draft's structural metaschema
 * (structural-data.ts, derived from the carried metaschemas with the same
 * verdicts) compiled once, on first use, by the fast evaluator. A
 * differential test holds its first issue to the one @cfworker/json-schema
 * gives against the carried metaschema.
 */
import { cloneJson, type JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { compileFast } from "./fast.js";
import type { ValidationIssue } from "./issues.js";
import { indexDocument, resolveTarget, resolveUri, stamp, type Lookup } from "./resolve.js";
import { STRUCTURAL_METASCHEMAS } from "./structural-data.js";

type Check = (v: JsonValue) => ValidationIssue[] | undefined;

const compiled: Partial<Record<SchemaDraft, Check>> = {};

function compileStructural(draft: SchemaDraft): Check {
  const work = cloneJson(STRUCTURAL_METASCHEMAS[draft]);
  const index = indexDocument(work, draft, Object.create(null) as Lookup, "https://schema.isoagent.invalid/meta.json", resolveUri);
  for (const r of index.refs) {
    resolveTarget(index, r.abs, r);
    stamp(r.node, "$ref", r.abs);
  }
  return compileFast(work, index.lookup, draft);
}

/** What the draft's metaschema refuses in a schema, in order; undefined when it accepts it. */
export function metaschemaIssues(value: JsonValue, draft: SchemaDraft): ValidationIssue[] | undefined {
  return (compiled[draft] ??= compileStructural(draft))(value);
}
