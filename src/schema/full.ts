/**
 * Full schema support, the chunk `loadFullSchemaSupport()` (load-full.ts) loads:
 * @cfworker/json-schema (the reference evaluator), the carried
 * metaschemas, `$dynamicRef` resolution and the format checkers. Nothing
 * the core imports statically may import this module: the build and the
 * platform check prove the chunks stay apart.
 *
 * @module
 */
import { format as REFERENCE_FORMATS, validate, type Schema } from "@cfworker/json-schema";
import type { SchemaDraft } from "./drafts.js";
import { resolveDynamicRefs } from "./dynamic-ref.js";
import { ASSERTED_PREFIX } from "./format-names.js";
import { FORMAT_CHECKERS, type FormatChecker } from "./formats/index.js";
import { metaschemaLookup, metaschemaOf } from "./metaschema-lookup.js";
import { toIssues } from "./reference-issues.js";
import type { FullSchemaSupport } from "./support.js";

/** The evaluator's name for each draft. Draft-06 is evaluated as draft-07 without if/then/else (refused by the compiler). */
const EVALUATOR_DRAFT = {
  "draft-04": "4",
  "draft-06": "7",
  "draft-07": "7",
  "2019-09": "2019-09",
  "2020-12": "2020-12",
} as const satisfies Record<SchemaDraft, string>;

let registered = false;
/** Our checkers, under the names the working copy gives asserted formats, in @cfworker's table (its only way to take a checker). */
function registerFormats(): void {
  if (registered) return;
  const table = REFERENCE_FORMATS as Record<string, FormatChecker>;
  for (const name of Object.keys(FORMAT_CHECKERS)) table[ASSERTED_PREFIX + name] = FORMAT_CHECKERS[name]!;
  registered = true;
}

/** @internal */
export const FULL_SCHEMA_SUPPORT: FullSchemaSupport = {
  metaschemas: metaschemaLookup,
  formatChecker: (name) => (name.startsWith(ASSERTED_PREFIX) ? FORMAT_CHECKERS[name.slice(ASSERTED_PREFIX.length)] : undefined),
  resolveDynamicRefs,
  referenceValidator(work, draft, lookup) {
    registerFormats();
    const root = work as Schema | boolean;
    const evaluatorDraft = EVALUATOR_DRAFT[draft];
    return (instance) => {
      const r = validate(instance, root, evaluatorDraft, lookup, false);
      return r.valid ? undefined : toIssues(r.errors, root, lookup, instance);
    };
  },
  metaschemaIssues(value, draft) {
    const meta = metaschemaOf(draft);
    const lookup = metaschemaLookup();
    const r = validate(value, meta, EVALUATOR_DRAFT[draft], lookup, false);
    return r.valid ? [] : toIssues(r.errors, meta, lookup, value);
  },
};
