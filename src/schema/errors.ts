import { IsoagentError, type IsoagentErrorCode } from "../errors.js";

/** The codes a schema can be refused with: every `SCHEMA_` code. */
export type SchemaErrorCode = Extract<IsoagentErrorCode, `SCHEMA_${string}`>;

/** The rule each code stands for, as conformance reports count them. */
export const SCHEMA_RULES: Record<SchemaErrorCode, string> = {
  SCHEMA_MISSING: "missing",
  SCHEMA_NOT_JSON: "not valid JSON",
  SCHEMA_TOO_DEEP: "nested deeper than 256 levels",
  SCHEMA_EXTERNAL_REF: "refers outside itself",
  SCHEMA_UNSUPPORTED_KEYWORD: "unsupported keyword",
  SCHEMA_INVALID: "does not compile",
  SCHEMA_NEEDS_FULL_SUPPORT: "needs full schema support",
  SCHEMA_PATTERN_UNSUPPORTED: "unsupported pattern",
};

/**
 * A schema refused by {@link compileSchema}. `rule` names the rule broken
 * (see {@link SCHEMA_RULES}); `pointer` is the JSON Pointer of the offending
 * place in the schema when there is one ("" for the root); `ref` is the
 * reference that refers outside the schema, for SCHEMA_EXTERNAL_REF.
 */
export class SchemaError extends IsoagentError {
  declare readonly code: SchemaErrorCode;
  readonly rule: string;
  readonly pointer: string | undefined;
  readonly ref: string | undefined;

  constructor(code: SchemaErrorCode, message: string, details: { pointer?: string; ref?: string; cause?: unknown } = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "SchemaError";
    this.rule = SCHEMA_RULES[code];
    this.pointer = details.pointer;
    this.ref = details.ref;
  }
}

/** Shows a schema location in a message: "the root" or the JSON Pointer. */
export function at(pointer: string): string {
  return pointer === "" ? "the root" : pointer;
}
