/**
 * How `format` reaches the evaluators. In the compiler's working copy, a
 * format that asserts is renamed `isoagent:<name>`, and the checkers of
 * formats/ are registered under those names in @cfworker/json-schema's format
 * table (it has no other way to take a checker); a format that does not
 * assert is removed. Both evaluators thus check formats with the same exact
 * checkers, and @cfworker's own approximate checkers are never reached: no
 * asserted name is one of theirs.
 */
import { format as REFERENCE_FORMATS } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { at, SchemaError } from "./errors.js";
import { FORMAT_CHECKERS, formatSupport, type FormatChecker } from "./formats/index.js";
import { forEachSchemaObject } from "./walk.js";

const PREFIX = "isoagent:";

/** The checker of an asserted format name as the working copy holds it, or undefined for any other name. */
export function assertedFormatChecker(name: string): FormatChecker | undefined {
  return name.startsWith(PREFIX) ? FORMAT_CHECKERS[name.slice(PREFIX.length)] : undefined;
}

/** The format's own name, as messages show it. */
export function formatName(name: string): string {
  return name.startsWith(PREFIX) ? name.slice(PREFIX.length) : name;
}

let registered = false;
function registerWithReferenceEvaluator(): void {
  if (registered) return;
  const table = REFERENCE_FORMATS as Record<string, FormatChecker>;
  for (const name of Object.keys(FORMAT_CHECKERS)) table[PREFIX + name] = FORMAT_CHECKERS[name]!;
  registered = true;
}

/**
 * Prepares the working copy's formats. `assert`: true checks every standard
 * format and refuses one that cannot be checked exactly (idn-email,
 * idn-hostname) with SCHEMA_UNSUPPORTED_KEYWORD; undefined follows the draft
 * (an annotation in 2019-09 and 2020-12; checked in draft-04, 06 and 07,
 * which let an implementation check the formats it can, so the two unchecked
 * ones stay annotations there); false makes every format an annotation.
 * Formats no draft defines are annotations always.
 */
export function prepareFormats(work: JsonValue, draft: SchemaDraft, assert: boolean | undefined): void {
  const asserting = assert ?? (draft !== "2019-09" && draft !== "2020-12");
  forEachSchemaObject(work, (node, pointer) => {
    const name = node["format"];
    if (name === undefined) return;
    const support = asserting && typeof name === "string" ? formatSupport(name) : "annotation";
    if (support === "checked") {
      registerWithReferenceEvaluator();
      node["format"] = PREFIX + (name as string);
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
}
