/**
 * The compile-time rules a schema meets before anything is indexed: it is
 * JSON (text, bytes or a value) and not too deep, its `$schema` names a
 * draft the compiler knows, its keywords are ones its draft defines, its
 * patterns are regular expressions the linear-time matcher takes, and its
 * draft's metaschema accepts it.
 */
import { isIsoagentError } from "../errors.js";
import { compilePattern } from "../pattern/index.js";
import { cloneJson, tryParseJson, type JsonValue } from "../json/index.js";
import { DRAFT_KEYWORDS, EVALUATED_KEYWORDS, type SchemaDraft } from "./drafts.js";
import { at, SchemaError } from "./errors.js";
import { draftOfMetaschemaUri, META_2020_PREFIX, META_2020_TOP } from "./metaschema-uris.js";
import type { FoundRef } from "./resolve.js";
import { metaschemaIssues } from "./structural.js";
import { forEachSchemaObject, isObject } from "./walk.js";

/** @internal A schema given as text, bytes or a value, as JSON: refused as compileSchema refuses it (missing, not JSON, too deep, not a schema). */
export function readSchema(input: unknown): JsonValue {
  if (input === undefined || input === null) throw new SchemaError("SCHEMA_MISSING", "schema is missing");
  let value: JsonValue;
  if (typeof input === "string" || input instanceof Uint8Array) {
    const r = tryParseJson(input);
    if (!r.ok) {
      if (r.error.code === "JSON_TOO_DEEP") throw new SchemaError("SCHEMA_TOO_DEEP", "schema is nested deeper than 256 levels", { cause: r.error });
      throw new SchemaError("SCHEMA_NOT_JSON", `schema is not valid JSON: ${r.error.message}`, { cause: r.error });
    }
    value = r.value;
  } else {
    try {
      value = cloneJson(input);
    } catch (e) {
      if (isIsoagentError(e, "JSON_TOO_DEEP")) throw new SchemaError("SCHEMA_TOO_DEEP", "schema is nested deeper than 256 levels", { cause: e });
      const message = e instanceof Error ? e.message : String(e);
      throw new SchemaError("SCHEMA_NOT_JSON", `schema is not JSON: ${message}`, { cause: e });
    }
  }
  if (typeof value !== "boolean" && !isObject(value)) {
    throw new SchemaError("SCHEMA_INVALID", `schema does not compile: a schema must be an object or a boolean, not ${kindOf(value)}`, { pointer: "" });
  }
  return value;
}

function kindOf(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

export function draftOf(value: JsonValue, fallback: SchemaDraft): SchemaDraft {
  if (!isObject(value) || value["$schema"] === undefined) return fallback;
  const uri = value["$schema"];
  if (typeof uri !== "string") throw new SchemaError("SCHEMA_INVALID", "schema does not compile: $schema must be a string", { pointer: "/$schema" });
  const draft = draftOfMetaschemaUri(uri);
  if (draft === undefined) {
    throw new SchemaError("SCHEMA_EXTERNAL_REF", `schema refers outside itself: $schema ${JSON.stringify(uri)} is not a standard draft the compiler carries`, { pointer: "/$schema", ref: uri });
  }
  return draft;
}

/**
 * Keywords the evaluator would get wrong for this draft, identity keywords it
 * would misread, `$schema`s naming another draft, and patterns that are not
 * regular expressions or that the linear-time matcher refuses.
 */
export function checkKeywords(root: JsonValue, draft: SchemaDraft, toolSchema: boolean): void {
  const idKeyword = draft === "draft-04" ? "id" : "$id";
  const defined = DRAFT_KEYWORDS[draft];
  const unsupported = (pointer: string, why: string): never => {
    throw new SchemaError("SCHEMA_UNSUPPORTED_KEYWORD", `schema uses a keyword the validator cannot evaluate correctly: ${why} (at ${at(pointer)})`, { pointer });
  };
  forEachSchemaObject(root, (node, pointer) => {
    for (const keyword of EVALUATED_KEYWORDS) {
      if (node[keyword] !== undefined && !defined.has(keyword)) {
        unsupported(`${pointer}/${keyword}`, `${keyword} is not part of ${draftName(draft)}, but the validator would apply it`);
      }
    }
    const id = node[idKeyword];
    if (toolSchema && typeof id === "string" && id !== "" && !id.startsWith("#")) {
      throw new SchemaError(
        "SCHEMA_EXTERNAL_REF",
        `schema refers outside itself: ${idKeyword} ${JSON.stringify(id)} at ${at(pointer)} names a document; a tool schema names none (put shared parts under $defs)`,
        { pointer: `${pointer}/${idKeyword}`, ref: id },
      );
    }
    const legacyId = draft === "draft-04" ? "$id" : "id";
    if (typeof node[legacyId] === "string") {
      unsupported(`${pointer}/${legacyId}`, `${legacyId} is not an identifier in ${draftName(draft)}, but the validator would treat it as one`);
    }
    if (node["$anchor"] !== undefined && (draft === "draft-04" || draft === "draft-06" || draft === "draft-07")) {
      unsupported(`${pointer}/$anchor`, `$anchor is not part of ${draftName(draft)}, but the validator would treat it as an anchor`);
    }
    if (pointer !== "" && typeof node["$schema"] === "string") {
      const inner = draftOfMetaschemaUri(node["$schema"]);
      if (inner === undefined) {
        throw new SchemaError("SCHEMA_EXTERNAL_REF", `schema refers outside itself: $schema ${JSON.stringify(node["$schema"])} at ${pointer} is not a standard draft the compiler carries`, {
          pointer: `${pointer}/$schema`,
          ref: node["$schema"],
        });
      }
      if (inner !== draft) {
        unsupported(`${pointer}/$schema`, `$schema names ${draftName(inner)} inside a ${draftName(draft)} schema, and the validator evaluates one draft per schema`);
      }
    }
    const patterns: [string, string][] = [];
    if (typeof node["pattern"] === "string") patterns.push([node["pattern"], `${pointer}/pattern`]);
    const pp = node["patternProperties"];
    if (isObject(pp)) for (const p of Object.keys(pp)) patterns.push([p, `${pointer}/patternProperties`]);
    for (const [p, where] of patterns) {
      const r = compilePattern(p);
      if (r.ok) continue;
      if (r.reason === "invalid") throw new SchemaError("SCHEMA_INVALID", `schema does not compile: ${JSON.stringify(p)} at ${where} is not a valid regular expression`, { pointer: where });
      throw patternUnsupported(p, where, r.why);
    }
  });
}

/** The refusal of a pattern that cannot be matched in linear time (see docs/patterns.md). */
export function patternUnsupported(p: string, where: string, why: string): SchemaError {
  return new SchemaError("SCHEMA_PATTERN_UNSUPPORTED", `schema has a pattern that cannot be matched in linear time: ${JSON.stringify(p)} at ${where} ${why}`, { pointer: where });
}

function draftName(draft: SchemaDraft): string {
  return draft.startsWith("draft-") ? draft : `draft ${draft}`;
}

/** Refuses a schema its draft's metaschema refuses, naming the first problem (by the structural metaschema: structural.ts). */
export function checkAgainstMetaschema(value: JsonValue, draft: SchemaDraft): void {
  const issues = metaschemaIssues(value, draft);
  if (issues === undefined) return;
  const first = issues[0];
  const where = first === undefined ? "" : first.instanceLocation;
  const what = first === undefined ? "it does not match its metaschema" : first.message;
  throw new SchemaError("SCHEMA_INVALID", `schema does not compile: the ${draftName(draft)} metaschema refuses ${where === "" ? "the root" : where}: ${what}`, { pointer: where });
}

/**
 * The 2020-12 metaschemas' $dynamicRefs are resolved for entry through the
 * dialect metaschema only (see metaschema-lookup.ts); refuse any other entry.
 */
export function checkMetaschemaEntry(r: FoundRef): void {
  const doc = r.abs.split("#")[0]!;
  if (doc.startsWith(META_2020_PREFIX) && doc !== META_2020_TOP) {
    throw new SchemaError(
      "SCHEMA_UNSUPPORTED_KEYWORD",
      `schema uses a keyword the validator cannot evaluate correctly: ${r.keyword} ${JSON.stringify(r.ref)} at ${at(r.pointer)} enters a 2020-12 vocabulary metaschema, whose $dynamicRefs the validator can only resolve from the dialect metaschema`,
      { pointer: `${r.pointer}/${r.keyword}` },
    );
  }
}
