/**
 * Full schema support: the part of the schema compiler an ordinary run does
 * not need, in a chunk of its own (full.ts) that an application loads once,
 * with `loadFullSchemaSupport()` (load-full.ts). It holds @cfworker/json-schema (the
 * evaluator for what the fast one does not implement), the carried
 * metaschemas (for a `$ref` to one) and the format checkers. Until it is
 * loaded, a schema that needs it is refused with SCHEMA_NEEDS_FULL_SUPPORT,
 * never checked by less.
 */
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { at, SchemaError } from "./errors.js";
import type { ValidationIssue } from "./issues.js";
import type { DocumentIndex, FoundRef, Lookup, ResolveTarget, ResolveUri } from "./resolve.js";

/** @internal What the full chunk gives the compiler. */
export interface FullSchemaSupport {
  /** The carried metaschemas, as a lookup by URI. */
  metaschemas(): Lookup;
  /** The exact checker of a format the compiler renamed `isoagent:<name>`. */
  formatChecker(name: string): ((value: string) => boolean) | undefined;
  /** Rewrites the document's `$dynamicRef`s to `$ref`s, or refuses (2020-12). */
  resolveDynamicRefs(work: JsonValue, index: DocumentIndex, resolve: ResolveUri, resolveTarget: ResolveTarget): FoundRef[];
  /**
   * A validator by @cfworker/json-schema for a prepared working copy (whose
   * `pattern`s it takes out: `pattern` gives each one's compiled pattern);
   * issues undefined when valid.
   */
  referenceValidator(work: JsonValue, draft: SchemaDraft, lookup: Lookup, pattern: (source: string) => { test(s: string): boolean }): (instance: JsonValue) => ValidationIssue[] | undefined;
  /** The issues of a schema against its draft's carried metaschema, by @cfworker/json-schema (for the differential test). */
  metaschemaIssues(value: JsonValue, draft: SchemaDraft): ValidationIssue[];
}

let loaded: FullSchemaSupport | undefined;

/** @internal The full support, when it is loaded. */
export function fullSupport(): FullSchemaSupport | undefined {
  return loaded;
}

/** @internal Installs full support (what load-full.ts loads); the first install stays. */
export function installFullSupport(support: FullSchemaSupport): void {
  loaded ??= support;
}

/** Why a schema needs full support, and where. */
export interface FullSupportNeed {
  readonly why: string;
  readonly pointer: string;
}

/** The refusal of a schema that needs full support before it is loaded. */
export function needsFullSupport(need: FullSupportNeed): SchemaError {
  return new SchemaError(
    "SCHEMA_NEEDS_FULL_SUPPORT",
    `schema needs full schema support, which is not loaded: ${need.why} (at ${at(need.pointer)}); call await loadFullSchemaSupport() once before compiling it`,
    { pointer: need.pointer },
  );
}
