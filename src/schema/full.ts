/**
 * Full schema support, the chunk `loadFullSchemaSupport()` (load-full.ts) loads:
 * @cfworker/json-schema (the reference evaluator), the carried
 * metaschemas, `$dynamicRef` resolution and the format checkers. Patterns
 * are the core's (src/pattern/, passed in): @cfworker never runs a
 * `pattern`, and runs only `patternProperties` the compiler proved linear on
 * RegExp. Nothing
 * the core imports statically may import this module: the build and the
 * platform check prove the chunks stay apart.
 *
 * @module
 */
import { format as REFERENCE_FORMATS, validate, type Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { resolveDynamicRefs } from "./dynamic-ref.js";
import { ASSERTED_PREFIX } from "./format-names.js";
import { FORMAT_CHECKERS, type FormatChecker } from "./formats/index.js";
import { metaschemaLookup, metaschemaOf } from "./metaschema-lookup.js";
import { PATTERN_SLOT, toIssues, type PatternSlot } from "./reference-issues.js";
import type { FullSchemaSupport } from "./support.js";
import { forEachSchemaObject } from "./walk.js";

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

/** The pattern slots of the validation under way (validation is synchronous: one at a time). */
let slots: readonly PatternSlot[] = [];

/**
 * Takes every `pattern` out of the working copy, so that @cfworker (which
 * runs `new RegExp(pattern).test`) never runs one: each becomes the format
 * `isoagent:pattern:<k>`, whose checker is the linear-time pattern (and the
 * node's own asserted format, if it had one), in the format table. The
 * table holds one checker per slot number, which reads the slots of the
 * validation under way, so it stays as small as the largest schema's count
 * of patterns, whatever is compiled.
 */
function takePatterns(work: JsonValue, pattern: (source: string) => { test(s: string): boolean }): PatternSlot[] {
  const table = REFERENCE_FORMATS as Record<string, FormatChecker>;
  const taken: PatternSlot[] = [];
  forEachSchemaObject(work, (node) => {
    const source = node["pattern"];
    if (typeof source !== "string") return;
    const format = typeof node["format"] === "string" ? node["format"] : undefined;
    const formatCheck = format === undefined ? undefined : FULL_SCHEMA_SUPPORT.formatChecker(format);
    const p = pattern(source);
    const k = taken.length;
    taken.push({ pattern: source, format, test: (s) => p.test(s), formatTest: formatCheck });
    const name = `${PATTERN_SLOT}${k}`;
    table[name] ??= (s) => slots[k]!.test(s) && (slots[k]!.formatTest?.(s) ?? true);
    delete node["pattern"];
    node["format"] = name;
  });
  return taken;
}

/** @internal */
export const FULL_SCHEMA_SUPPORT: FullSchemaSupport = {
  metaschemas: metaschemaLookup,
  formatChecker: (name) => (name.startsWith(ASSERTED_PREFIX) ? FORMAT_CHECKERS[name.slice(ASSERTED_PREFIX.length)] : undefined),
  resolveDynamicRefs,
  referenceValidator(work, draft, lookup, pattern) {
    registerFormats();
    const taken = takePatterns(work, pattern);
    const root = work as Schema | boolean;
    const evaluatorDraft = EVALUATOR_DRAFT[draft];
    return (instance) => {
      const before = slots;
      slots = taken;
      try {
        const r = validate(instance, root, evaluatorDraft, lookup, false);
        return r.valid ? undefined : toIssues(r.errors, root, lookup, instance, taken);
      } finally {
        slots = before;
      }
    };
  },
  metaschemaIssues(value, draft) {
    const meta = metaschemaOf(draft);
    const lookup = metaschemaLookup();
    const r = validate(value, meta, EVALUATOR_DRAFT[draft], lookup, false);
    return r.valid ? [] : toIssues(r.errors, meta, lookup, value);
  },
};
