/**
 * How `format` reaches the evaluators. In the compiler's working copy, a
 * format that asserts is renamed `isoagent:<name>` (the checkers of
 * formats/, part of full schema support, are registered under those names
 * in @cfworker/json-schema's format table, which has no other way to take
 * a checker); a format that does not assert is removed. Both evaluators
 * thus check formats with the same exact checkers, and @cfworker's own
 * approximate checkers are never reached: no asserted name is one of
 * theirs.
 */
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { at, SchemaError } from "./errors.js";
import { ASSERTED_PREFIX, formatSupport } from "./format-names.js";
import type { FullSupportNeed } from "./support.js";
import { forEachSchemaObject } from "./walk.js";

/**
 * Prepares the working copy's formats. `assert`: true checks every standard
 * format and refuses one that cannot be checked exactly (idn-email,
 * idn-hostname) with SCHEMA_UNSUPPORTED_KEYWORD; undefined follows the draft
 * (an annotation in 2019-09 and 2020-12; checked in draft-04, 06 and 07,
 * which let an implementation check the formats it can, so the two unchecked
 * ones stay annotations there); false makes every format an annotation.
 * Formats no draft defines are annotations always. Returns the first format
 * that asserts, when the checkers are not loaded (`checkers` false).
 */
export function prepareFormats(work: JsonValue, draft: SchemaDraft, assert: boolean | undefined, checkers: boolean): FullSupportNeed | undefined {
  const asserting = assert ?? (draft !== "2019-09" && draft !== "2020-12");
  let need: FullSupportNeed | undefined;
  forEachSchemaObject(work, (node, pointer) => {
    const name = node["format"];
    if (name === undefined) return;
    const support = asserting && typeof name === "string" ? formatSupport(name) : "annotation";
    if (support === "checked") {
      if (!checkers) need ??= { why: `format ${JSON.stringify(name)} asserts, and the format checkers are part of it`, pointer: `${pointer}/format` };
      node["format"] = ASSERTED_PREFIX + (name as string);
      return;
    }
    if (support === "unchecked" && assert === true) {
      throw new SchemaError(
        "SCHEMA_UNSUPPORTED_KEYWORD",
        `schema uses a keyword the validator cannot evaluate correctly: format ${JSON.stringify(name)} cannot be checked exactly, and a format is never approximated (at ${at(`${pointer}/format`)})`,
        { pointer: `${pointer}/format` },
      );
    }
    delete node["format"];
  });
  return need;
}
