/**
 * @cfworker/json-schema's output units as our issues (part of full schema
 * support): our messages, plain JSON Pointers, and only what to fix.
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import { formatName } from "./format-names.js";
import { messages, type ValidationIssue } from "./issues.js";
import type { Lookup } from "./resolve.js";

/** How the working copy names the format that stands for a node's `pattern` (and its own format): slot k is `isoagent:pattern:k`. */
export const PATTERN_SLOT = "isoagent:pattern:";

/** A node's `pattern`, taken out of the working copy into a format slot (full.ts). */
export interface PatternSlot {
  readonly pattern: string;
  /** The node's own format (as the working copy named it), checked in the same slot. */
  readonly format: string | undefined;
  test(s: string): boolean;
  readonly formatTest: ((s: string) => boolean) | undefined;
}

/** Keywords whose failure only says a subschema failed; the subschema's own issues say why. */
const WRAPPERS = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "allOf",
  "if",
  "dependentSchemas",
  "additionalItems",
  "unevaluatedItems",
  "additionalProperties",
  "unevaluatedProperties",
]);
/** Keywords whose subschemas' issues are alternatives tried, not what to fix. */
const ALTERNATIVES = new Set(["anyOf", "oneOf", "contains", "not", "propertyNames"]);
const PROPERTY_SINKS = new Set(["additionalProperties", "unevaluatedProperties"]);
const ITEM_SINKS = new Set(["items", "additionalItems", "unevaluatedItems"]);

const decodeToken = (t: string): string => t.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * The evaluator writes locations as URI fragments ("#/a%20b"): percent-encoded
 * with encodeURI. Issues carry plain JSON Pointers ("/a b").
 */
function pointerOf(location: string): string {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURI(fragment);
  } catch {
    return fragment;
  }
}

const MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);

/** The schema object holding a keyword, by evaluation path, following `$ref`s; undefined when it cannot be followed. */
function schemaAt(root: Schema | boolean, lookup: Lookup, path: string): unknown {
  let node: unknown = root;
  if (path === "") return node;
  let previous = "";
  for (const raw of path.slice(1).split("/")) {
    if (typeof node !== "object" || node === null) return undefined;
    // "$ref" is a reference taken, unless it names a property ("properties/$ref").
    if (raw === "$ref" && !MAP_KEYWORDS.has(previous)) {
      const abs = (node as Schema).__absolute_ref__;
      node = abs === undefined ? undefined : lookup[abs];
    } else if (raw === "$recursiveRef" && !MAP_KEYWORDS.has(previous)) {
      return undefined;
    } else {
      node = (node as Record<string, unknown>)[decodeToken(raw)];
    }
    previous = MAP_KEYWORDS.has(previous) ? "" : raw;
  }
  return node;
}

function valueAt(instance: unknown, pointer: string): unknown {
  let v: unknown = instance;
  if (pointer === "") return v;
  for (const raw of pointer.slice(1).split("/")) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string, unknown>)[decodeToken(raw)];
  }
  return v;
}

const lastToken = (pointer: string): string => decodeToken(pointer.slice(pointer.lastIndexOf("/") + 1));
const parentOf = (pointer: string): string => pointer.slice(0, pointer.lastIndexOf("/"));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Our message for one output unit of @cfworker/json-schema. */
function messageFor(unit: OutputUnit, node: unknown, instance: unknown): string {
  const value = valueAt(instance, pointerOf(unit.instanceLocation));
  const kw = isRecord(node) ? node[unit.keyword] : undefined;
  switch (unit.keyword) {
    case "type":
      return messages.type(kw, value);
    case "required": {
      const m = /required property "(.*)"\.$/s.exec(unit.error);
      return m ? messages.required(m[1]!) : "missing a required property";
    }
    case "false":
      return messages.falseSchema();
    case "enum":
      return messages.enum(kw);
    case "const":
      return messages.const(kw);
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties":
    case "minContains":
    case "maxContains":
      return messages[unit.keyword](kw);
    case "pattern":
      return messages.pattern(kw);
    case "format":
      return messages.format(typeof kw === "string" ? formatName(kw) : kw);
    case "minimum":
    case "maximum": {
      // Draft-04 spells exclusive bounds as a boolean beside minimum/maximum.
      const exclusive = isRecord(node) && node[unit.keyword === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] === true;
      return messages.bound(unit.keyword === "minimum" ? (exclusive ? ">" : ">=") : exclusive ? "<" : "<=", kw);
    }
    case "exclusiveMinimum":
      return messages.bound(">", kw);
    case "exclusiveMaximum":
      return messages.bound("<", kw);
    case "multipleOf":
      return messages.multipleOf(kw);
    case "uniqueItems": {
      const m = /indexes (\d+) and (\d+)/.exec(unit.error);
      return m ? messages.uniqueItems(m[1]!, m[2]!) : "must not contain duplicates";
    }
    case "contains":
      return messages.contains();
    case "anyOf":
      return messages.anyOf();
    case "oneOf": {
      const m = /\((\d+) matches\)/.exec(unit.error);
      return messages.oneOf(m ? m[1]! : "another number");
    }
    case "not":
      return messages.not();
    case "dependentRequired":
    case "dependencies": {
      const m = /^Instance has "(.*)" but does not have "(.*)"\.$/s.exec(unit.error);
      return m ? messages.dependentRequired(m[1]!, m[2]!) : unit.error;
    }
    case "propertyNames": {
      const m = /^Property name "(.*)" does not match schema\.$/s.exec(unit.error);
      return m ? messages.propertyName(m[1]!) : unit.error;
    }
    default:
      return unit.error;
  }
}

/**
 * Converts @cfworker/json-schema's output units to issues: our messages, plain
 * pointers, and only what to fix (see {@link ValidationResult.issues}).
 */
export function toIssues(units: readonly OutputUnit[], root: Schema | boolean, lookup: Lookup, instance: JsonValue, slots: readonly PatternSlot[] = []): ValidationIssue[] {
  // The alternatives' own locations first: contains reports minContains and
  // maxContains after the items it tried, not before.
  const alternatives: string[] = [];
  for (const unit of units) {
    if (!ALTERNATIVES.has(unit.keyword) && unit.keyword !== "minContains" && unit.keyword !== "maxContains") continue;
    const loc = pointerOf(unit.keywordLocation);
    alternatives.push(`${unit.keyword === "minContains" || unit.keyword === "maxContains" ? `${parentOf(loc)}/contains` : loc}/`);
  }
  const inAlternative = (loc: string): boolean => alternatives.some((prefix) => loc.startsWith(prefix));
  const out: ValidationIssue[] = [];
  // A false schema's unit carries no keyword location: it belongs where the
  // unit before it belonged.
  let previousSkipped = false;
  for (let k = 0; k < units.length; k++) {
    const unit = units[k]!;
    const parent = k > 0 ? units[k - 1] : undefined;
    let keyword = unit.keyword;
    let instanceLocation = pointerOf(unit.instanceLocation);
    // The evaluator reports dependentRequired under a misspelt location.
    let keywordLocation = pointerOf(unit.keywordLocation);
    if (keyword === "dependentRequired") keywordLocation = `${parentOf(keywordLocation)}/dependentRequired`;
    let message: string;
    if (keyword === "false" && parent !== undefined && (PROPERTY_SINKS.has(parent.keyword) || ITEM_SINKS.has(parent.keyword))) {
      // A false schema under additionalProperties (or items) is an unexpected
      // property (or item), reported at the object (or array).
      message = PROPERTY_SINKS.has(parent.keyword) ? messages.unexpectedProperty(lastToken(instanceLocation)) : messages.unexpectedItem(lastToken(instanceLocation));
      keyword = parent.keyword;
      keywordLocation = pointerOf(parent.keywordLocation);
      instanceLocation = parentOf(instanceLocation);
      previousSkipped = inAlternative(keywordLocation);
      if (previousSkipped) continue;
    } else if (keyword === "false") {
      if (previousSkipped) continue;
      message = messages.falseSchema();
      keywordLocation = "";
    } else {
      const inside = inAlternative(keywordLocation);
      previousSkipped = inside || ALTERNATIVES.has(keyword);
      if (inside || WRAPPERS.has(keyword)) continue;
      const node = schemaAt(root, lookup, parentOf(keywordLocation));
      const slot =
        keyword === "format" && isRecord(node) && typeof node["format"] === "string" && node["format"].startsWith(PATTERN_SLOT) ? slots[Number(node["format"].slice(PATTERN_SLOT.length))] : undefined;
      if (slot !== undefined) {
        // The slot stands for the node's pattern, then its format: as @cfworker would have reported them.
        const value = valueAt(instance, instanceLocation) as string;
        const at = parentOf(keywordLocation);
        if (!slot.test(value)) out.push({ keyword: "pattern", instanceLocation, keywordLocation: `${at}/pattern`, message: messages.pattern(slot.pattern) });
        if (slot.formatTest !== undefined && !slot.formatTest(value)) out.push({ keyword: "format", instanceLocation, keywordLocation, message: messages.format(formatName(slot.format!)) });
        continue;
      }
      message = messageFor(unit, node, instance);
    }
    out.push({ keyword, instanceLocation, keywordLocation, message });
  }
  return out;
}
