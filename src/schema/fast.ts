/**
 * The fast evaluator: a schema compiled once into a tree of closures, no
 * `eval`, no `new Function`. It covers the keywords tool schemas use; a
 * schema that uses anything else (unevaluated*, $recursiveRef, dependencies,
 * the tuple form of items) is left to @cfworker/json-schema whole.
 *
 * It gives the same verdict as @cfworker/json-schema on every schema it
 * accepts (a differential test runs both over the JSON Schema Test Suite and
 * over fuzzed inputs), and reports the same issues in the same order, built
 * by the same message builders.
 *
 * Each check runs in one of two modes. Without `out` it only answers, and
 * stops at the first failure (what anyOf, oneOf, not, contains and if ask
 * of their subschemas). With `out` it explains: it collects every issue with
 * its locations, the way the other evaluator does with short-circuit off.
 * Validation is one explaining pass: an issue is recorded at its own node
 * and its locations are prefixed on the way back up the failing branch, so
 * what passes builds nothing, and an invalid instance is walked once.
 */
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { formatName } from "./format-names.js";
import { messages, type ValidationIssue } from "./issues.js";
import type { Lookup } from "./resolve.js";
import { fullSupport, type FullSupportNeed } from "./support.js";
import { isObject, pointerToken, type SchemaObject } from "./walk.js";

/**
 * The issues an explaining check records. A check records an issue at its
 * own node (instance location "", evaluation path "/keyword"); each step back
 * up a failing branch prefixes the locations of the issues recorded below it,
 * so what passes costs nothing for its locations.
 */
type Out = Mutable<ValidationIssue>[];
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** Validates `v`; with `out`, records every issue. */
type Check = (v: unknown, out: Out | undefined) => boolean;

/** Keywords the fast evaluator implements, or ignores as annotations. */
const KNOWN = new Set([
  "$ref", "type", "enum", "const", "not", "anyOf", "allOf", "oneOf", "if", "then", "else",
  "required", "minProperties", "maxProperties", "propertyNames", "dependentRequired", "dependentSchemas",
  "properties", "patternProperties", "additionalProperties",
  "maxItems", "minItems", "prefixItems", "items", "contains", "minContains", "maxContains", "uniqueItems",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "pattern", "format",
]);
/** Keywords only the other evaluator has. */
const UNSUPPORTED = new Set(["unevaluatedProperties", "unevaluatedItems", "$recursiveRef", "dependencies", "additionalItems", "$dynamicRef"]);

const hasOwn = Object.prototype.hasOwnProperty;

function fail(out: Out | undefined, keyword: string, message: string): false {
  out?.push({ keyword, instanceLocation: "", keywordLocation: `/${keyword}`, message });
  return false;
}

/**
 * Checks `v` against `sub` one step down, explaining: when it fails, the
 * issues it recorded get `ipSegment` (undefined: the same instance) and
 * `kpSegment` in front of their locations.
 */
function descend(sub: Check, v: unknown, out: Out, ipSegment: string | undefined, kpSegment: string): boolean {
  const before = out.length;
  if (sub(v, out)) return true;
  for (let k = before; k < out.length; k++) {
    const issue = out[k]!;
    if (ipSegment !== undefined) issue.instanceLocation = ipSegment + issue.instanceLocation;
    issue.keywordLocation = kpSegment + issue.keywordLocation;
  }
  return false;
}

/** "/0", "/1", ...: an array item's segment, made once. */
const ITEM_SEGMENTS: string[] = [];
function itemSegment(k: number): string {
  return k < 1024 ? (ITEM_SEGMENTS[k] ??= `/${k}`) : `/${k}`;
}

/** Deep equality of JSON values, key order aside (as @cfworker's deepCompareStrict). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let k = 0; k < x.length; k++) if (!jsonEqual(x[k], y[k])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!hasOwn.call(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Length in code points, as JSON Schema counts it. */
function codePoints(s: string): number {
  let n = s.length;
  for (let k = 0; k < s.length - 1; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        k++;
      }
    }
  }
  return n;
}

function decimal(value: number): [bigint, number] {
  const [coefficient, exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient!.indexOf(".");
  const fraction = point === -1 ? 0 : coefficient!.length - point - 1;
  return [BigInt(coefficient!.replace(".", "")), Number(exponent) - fraction];
}

/** Exact decimal divisibility (as @cfworker/json-schema, which is what the suite expects). */
function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [vc, ve] = decimal(value);
  const [dc, de] = decimal(divisor);
  const diff = ve - de;
  if (diff >= 0) return (vc * 10n ** BigInt(diff)) % dc === 0n;
  return vc % (dc * 10n ** BigInt(-diff)) === 0n;
}

/** One test per type name, picked when the schema is compiled. */
const TYPE_TESTS: Record<string, ((v: unknown) => boolean) | undefined> = {
  __proto__: null as never,
  string: (v) => typeof v === "string",
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};


/** Runs checks in order: all of them when explaining, up to the first failure otherwise. */
function all(checks: Check[]): Check | undefined {
  if (checks.length === 0) return undefined;
  if (checks.length === 1) return checks[0];
  return (v, out) => {
    let ok = true;
    for (let k = 0; k < checks.length; k++) {
      if (!checks[k]!(v, out)) {
        if (out === undefined) return false;
        ok = false;
      }
    }
    return ok;
  };
}

/**
 * Why the fast evaluator cannot take this schema (the first keyword it does
 * not implement, in a schema object reachable from the root), or undefined
 * when it can. `pointerOf` places a schema object of the document.
 */
export function fastUnsupported(root: JsonValue, lookup: Lookup, draft: SchemaDraft, pointerOf: ReadonlyMap<object, string>): FullSupportNeed | undefined {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  const need = (s: SchemaObject, keyword: string, what = ""): FullSupportNeed => ({
    why: `${keyword}${what} needs the reference evaluator (@cfworker/json-schema), which is part of it`,
    pointer: `${pointerOf.get(s) ?? ""}/${keyword}`,
  });
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isObject(node as JsonValue) || seen.has(node)) continue;
    seen.add(node);
    const s = node as SchemaObject;
    if (s["$recursiveAnchor"] === true) return need(s, "$recursiveAnchor");
    for (const k of Object.keys(s)) {
      if (UNSUPPORTED.has(k)) return need(s, k);
      if (k === "items" && Array.isArray(s[k])) return need(s, k, " as an array");
      if (!KNOWN.has(k)) continue;
      const value = s[k];
      if (k === "$ref") {
        stack.push(lookup[(s as Schema).__absolute_ref__ ?? ""]);
        continue;
      }
      if (Array.isArray(value)) stack.push(...value);
      else if (isObject(value)) {
        if (k === "properties" || k === "patternProperties" || k === "dependentSchemas") stack.push(...Object.values(value));
        else stack.push(value);
      }
    }
    if (draft === "draft-04" && typeof s["exclusiveMinimum"] === "number") return need(s, "exclusiveMinimum", " as a number");
    if (draft === "draft-04" && typeof s["exclusiveMaximum"] === "number") return need(s, "exclusiveMaximum", " as a number");
  }
  return undefined;
}

/**
 * Compiles a schema (the working copy, with every `$ref` stamped) into a
 * check. Call only when {@link fastUnsupported} found nothing.
 */
export function compileFast(root: JsonValue, lookup: Lookup, draft: SchemaDraft): (v: JsonValue) => ValidationIssue[] | undefined {
  const memo = new Map<unknown, Check>();
  const legacyRef = draft === "draft-04" || draft === "draft-06" || draft === "draft-07";

  const compile = (schema: unknown): Check => {
    const hit = memo.get(schema);
    if (hit !== undefined) return hit;
    let check: Check;
    if (schema === true || schema === undefined) check = () => true;
    else if (schema === false) check = (_v, out) => (out?.push({ keyword: "false", instanceLocation: "", keywordLocation: "", message: messages.falseSchema() }), false);
    else {
      // Placeholder first, so a schema that refers to itself finds it.
      let real: Check | undefined;
      memo.set(schema, (v, out) => real!(v, out));
      real = build(schema as SchemaObject);
      check = real;
    }
    memo.set(schema, check);
    return check;
  };

  const refCheck = (s: SchemaObject): Check => {
    const target = lookup[(s as Schema).__absolute_ref__ ?? ""];
    let sub: Check | undefined;
    return (v, out) => {
      sub ??= compile(target);
      return out === undefined ? sub(v, undefined) : descend(sub, v, out, undefined, "/$ref");
    };
  };

  const build = (s: SchemaObject): Check => {
    if (s["$ref"] !== undefined && legacyRef) return refCheck(s);
    const general: Check[] = [];
    const strings: Check[] = [];
    const numbers: Check[] = [];
    const arrays: Check[] = [];
    const objects: Check[] = [];

    if (s["$ref"] !== undefined) general.push(refCheck(s));

    const type = s["type"];
    if (type !== undefined) {
      const types = Array.isArray(type) ? (type as string[]) : [type as string];
      const tests = types.map((t) => TYPE_TESTS[t] ?? (() => false));
      const only = tests.length === 1 ? tests[0]! : undefined;
      general.push(only !== undefined
        ? (v, out) => only(v) || fail(out, "type", messages.type(type, v))
        : (v, out) => tests.some((test) => test(v)) || fail(out, "type", messages.type(type, v)));
    }
    if (s["const"] !== undefined) {
      const c = s["const"];
      general.push((v, out) => jsonEqual(v, c) || fail(out, "const", messages.const(c)));
    }
    if (Array.isArray(s["enum"])) {
      const values = s["enum"];
      const primitives = new Set(values.filter((x) => typeof x !== "object" || x === null));
      const composites = values.filter((x) => typeof x === "object" && x !== null);
      general.push((v, out) =>
        (typeof v !== "object" || v === null ? primitives.has(v as never) : composites.some((x) => jsonEqual(v, x))) || fail(out, "enum", messages.enum(values)));
    }
    if (s["not"] !== undefined) {
      const sub = compile(s["not"]);
      general.push((v, out) => !sub(v, undefined) || fail(out, "not", messages.not()));
    }
    if (Array.isArray(s["anyOf"])) {
      const subs = s["anyOf"].map(compile);
      general.push((v, out) => subs.some((c) => c(v, undefined)) || fail(out, "anyOf", messages.anyOf()));
    }
    if (Array.isArray(s["allOf"])) {
      const subs = s["allOf"].map(compile);
      general.push((v, out) => {
        let ok = true;
        for (let k = 0; k < subs.length; k++) {
          if (!(out === undefined ? subs[k]!(v, undefined) : descend(subs[k]!, v, out, undefined, `/allOf/${k}`))) {
            if (out === undefined) return false;
            ok = false;
          }
        }
        return ok;
      });
    }
    if (Array.isArray(s["oneOf"])) {
      const subs = s["oneOf"].map(compile);
      general.push((v, out) => {
        let matches = 0;
        for (const c of subs) if (c(v, undefined)) matches++;
        return matches === 1 || fail(out, "oneOf", messages.oneOf(matches));
      });
    }
    if (s["if"] !== undefined) {
      const cond = compile(s["if"]);
      const then = s["then"] === undefined ? undefined : compile(s["then"]);
      const otherwise = s["else"] === undefined ? undefined : compile(s["else"]);
      general.push((v, out) => {
        if (cond(v, undefined)) return then === undefined || (out === undefined ? then(v, undefined) : descend(then, v, out, undefined, "/then"));
        return otherwise === undefined || (out === undefined ? otherwise(v, undefined) : descend(otherwise, v, out, undefined, "/else"));
      });
    }

    // Objects, in the other evaluator's order.
    if (Array.isArray(s["required"])) {
      const names = s["required"] as string[];
      objects.push((v, out) => {
        let ok = true;
        for (let k = 0; k < names.length; k++) {
          const name = names[k]!;
          if (!hasOwn.call(v, name)) {
            if (out === undefined) return false;
            ok = fail(out, "required", messages.required(name));
          }
        }
        return ok;
      });
    }
    if (typeof s["minProperties"] === "number") {
      const n = s["minProperties"];
      objects.push((v, out) => Object.keys(v as object).length >= n || fail(out, "minProperties", messages.minProperties(n)));
    }
    if (typeof s["maxProperties"] === "number") {
      const n = s["maxProperties"];
      objects.push((v, out) => Object.keys(v as object).length <= n || fail(out, "maxProperties", messages.maxProperties(n)));
    }
    if (s["propertyNames"] !== undefined) {
      const sub = compile(s["propertyNames"]);
      objects.push((v, out) => {
        let ok = true;
        for (const key in v as object) {
          if (!sub(key, undefined)) {
            if (out === undefined) return false;
            ok = fail(out, "propertyNames", messages.propertyName(key));
          }
        }
        return ok;
      });
    }
    if (isObject(s["dependentRequired"])) {
      const deps = Object.entries(s["dependentRequired"]) as [string, string[]][];
      objects.push((v, out) => {
        let ok = true;
        for (const [key, needed] of deps) {
          if (!hasOwn.call(v, key)) continue;
          for (const name of needed) {
            if (!hasOwn.call(v, name)) {
              if (out === undefined) return false;
              ok = fail(out, "dependentRequired", messages.dependentRequired(key, name));
            }
          }
        }
        return ok;
      });
    }
    if (isObject(s["dependentSchemas"])) {
      const deps = Object.entries(s["dependentSchemas"]).map(([key, sub]) => [key, compile(sub), pointerToken(key)] as const);
      objects.push((v, out) => {
        let ok = true;
        for (const [key, sub, token] of deps) {
          if (hasOwn.call(v, key) && !(out === undefined ? sub(v, undefined) : descend(sub, v, out, undefined, `/dependentSchemas/${token}`))) {
            if (out === undefined) return false;
            ok = false;
          }
        }
        return ok;
      });
    }
    const properties = isObject(s["properties"]) ? s["properties"] : undefined;
    if (properties !== undefined) {
      const keys = Object.keys(properties);
      const subs = keys.map((key) => compile(properties[key]));
      const ipSegments = keys.map((key) => `/${pointerToken(key)}`);
      const kpSegments = keys.map((key) => `/properties/${pointerToken(key)}`);
      objects.push((v, out) => {
        let ok = true;
        for (let k = 0; k < keys.length; k++) {
          const key = keys[k]!;
          if (!hasOwn.call(v, key)) continue;
          const item = (v as Record<string, unknown>)[key];
          if (!(out === undefined ? subs[k]!(item, undefined) : descend(subs[k]!, item, out, ipSegments[k]!, kpSegments[k]!))) {
            if (out === undefined) return false;
            ok = false;
          }
        }
        return ok;
      });
    }
    const patternProperties = isObject(s["patternProperties"]) ? s["patternProperties"] : undefined;
    const patterns = patternProperties === undefined
      ? []
      : Object.keys(patternProperties).map((p) => [new RegExp(p, "u"), compile(patternProperties[p]), pointerToken(p)] as const);
    if (patterns.length > 0) {
      objects.push((v, out) => {
        let ok = true;
        for (const [re, sub, token] of patterns) {
          for (const key in v as object) {
            if (!re.test(key)) continue;
            const item = (v as Record<string, unknown>)[key];
            if (!(out === undefined ? sub(item, undefined) : descend(sub, item, out, `/${pointerToken(key)}`, `/patternProperties/${token}`))) {
              if (out === undefined) return false;
              ok = false;
            }
          }
        }
        return ok;
      });
    }
    if (s["additionalProperties"] !== undefined) {
      const extra = s["additionalProperties"];
      const known = properties ?? {};
      const covered = patterns.length === 0 ? (key: string): boolean => hasOwn.call(known, key) : (key: string): boolean => hasOwn.call(known, key) || patterns.some(([re]) => re.test(key));
      if (extra === false) {
        objects.push((v, out) => {
          let ok = true;
          for (const key in v as object) {
            if (!covered(key)) {
              if (out === undefined) return false;
              ok = fail(out, "additionalProperties", messages.unexpectedProperty(key));
            }
          }
          return ok;
        });
      } else {
        const sub = compile(extra);
        objects.push((v, out) => {
          let ok = true;
          for (const key in v as object) {
            if (covered(key)) continue;
            const item = (v as Record<string, unknown>)[key];
            if (!(out === undefined ? sub(item, undefined) : descend(sub, item, out, `/${pointerToken(key)}`, "/additionalProperties"))) {
              if (out === undefined) return false;
              ok = false;
            }
          }
          return ok;
        });
      }
    }

    // Arrays.
    if (typeof s["maxItems"] === "number") {
      const n = s["maxItems"];
      arrays.push((v, out) => (v as unknown[]).length <= n || fail(out, "maxItems", messages.maxItems(n)));
    }
    if (typeof s["minItems"] === "number") {
      const n = s["minItems"];
      arrays.push((v, out) => (v as unknown[]).length >= n || fail(out, "minItems", messages.minItems(n)));
    }
    const prefix = Array.isArray(s["prefixItems"]) ? s["prefixItems"].map(compile) : [];
    const items = s["items"] === undefined ? undefined : s["items"];
    if (prefix.length > 0 || items !== undefined) {
      const rest = items === undefined ? undefined : compile(items);
      arrays.push((v, out) => {
        const a = v as unknown[];
        let ok = true;
        const n = Math.min(prefix.length, a.length);
        for (let k = 0; k < n; k++) {
          if (!(out === undefined ? prefix[k]!(a[k], undefined) : descend(prefix[k]!, a[k], out, itemSegment(k), `/prefixItems/${k}`))) {
            if (out === undefined) return false;
            ok = false;
          }
        }
        if (rest !== undefined) {
          for (let k = n; k < a.length; k++) {
            if (items === false) {
              if (out === undefined) return false;
              ok = fail(out, "items", messages.unexpectedItem(k));
            } else if (!(out === undefined ? rest(a[k], undefined) : descend(rest, a[k], out, itemSegment(k), "/items"))) {
              if (out === undefined) return false;
              ok = false;
            }
          }
        }
        return ok;
      });
    }
    if (s["contains"] !== undefined) {
      const sub = compile(s["contains"]);
      const min = typeof s["minContains"] === "number" ? s["minContains"] : undefined;
      const max = typeof s["maxContains"] === "number" ? s["maxContains"] : undefined;
      arrays.push((v, out) => {
        const a = v as unknown[];
        if (a.length === 0 && min === undefined) return fail(out, "contains", messages.contains());
        if (min !== undefined && a.length < min) return fail(out, "minContains", messages.minContains(min));
        let matched = 0;
        for (const item of a) if (sub(item, undefined)) matched++;
        if (min === undefined && matched === 0) return fail(out, "contains", messages.contains());
        if (min !== undefined && matched < min) return fail(out, "minContains", messages.minContains(min));
        if (max !== undefined && matched > max) return fail(out, "maxContains", messages.maxContains(max));
        return true;
      });
    }
    if (s["uniqueItems"] === true) {
      arrays.push((v, out) => {
        const a = v as unknown[];
        for (let j = 0; j < a.length; j++) {
          for (let k = j + 1; k < a.length; k++) if (jsonEqual(a[j], a[k])) return fail(out, "uniqueItems", messages.uniqueItems(j, k));
        }
        return true;
      });
    }

    // Numbers.
    const min = s["minimum"];
    const max = s["maximum"];
    const xmin = s["exclusiveMinimum"];
    const xmax = s["exclusiveMaximum"];
    if (draft === "draft-04") {
      if (typeof min === "number") {
        const ex = xmin === true;
        numbers.push((v, out) => (ex ? (v as number) > min : (v as number) >= min) || fail(out, "minimum", messages.bound(ex ? ">" : ">=", min)));
      }
      if (typeof max === "number") {
        const ex = xmax === true;
        numbers.push((v, out) => (ex ? (v as number) < max : (v as number) <= max) || fail(out, "maximum", messages.bound(ex ? "<" : "<=", max)));
      }
    } else {
      if (typeof min === "number") numbers.push((v, out) => (v as number) >= min || fail(out, "minimum", messages.bound(">=", min)));
      if (typeof max === "number") numbers.push((v, out) => (v as number) <= max || fail(out, "maximum", messages.bound("<=", max)));
      if (typeof xmin === "number") numbers.push((v, out) => (v as number) > xmin || fail(out, "exclusiveMinimum", messages.bound(">", xmin)));
      if (typeof xmax === "number") numbers.push((v, out) => (v as number) < xmax || fail(out, "exclusiveMaximum", messages.bound("<", xmax)));
    }
    if (typeof s["multipleOf"] === "number") {
      const m = s["multipleOf"];
      numbers.push((v, out) => isMultipleOf(v as number, m) || fail(out, "multipleOf", messages.multipleOf(m)));
    }

    // Strings.
    if (typeof s["minLength"] === "number") {
      const n = s["minLength"];
      strings.push((v, out) => ((v as string).length >= n * 2 || codePoints(v as string) >= n) || fail(out, "minLength", messages.minLength(n)));
    }
    if (typeof s["maxLength"] === "number") {
      const n = s["maxLength"];
      strings.push((v, out) => ((v as string).length <= n || codePoints(v as string) <= n) || fail(out, "maxLength", messages.maxLength(n)));
    }
    if (typeof s["pattern"] === "string") {
      const p = s["pattern"];
      const re = new RegExp(p, "u");
      strings.push((v, out) => re.test(v as string) || fail(out, "pattern", messages.pattern(p)));
    }
    // The compiler renamed the formats that assert and removed the others.
    if (typeof s["format"] === "string") {
      const test = fullSupport()?.formatChecker(s["format"]);
      const name = formatName(s["format"]);
      // Fail closed: the compiler renames a format only with its checker loaded.
      if (test === undefined && name !== s["format"]) throw new Error(`isoagent: format ${name} asserts without its checker`);
      if (test !== undefined) strings.push((v, out) => test(v as string) || fail(out, "format", messages.format(name)));
    }

    const g = all(general);
    const str = all(strings);
    const num = all(numbers);
    const arr = all(arrays);
    const obj = all(objects);
    return (v, out) => {
      let ok = g === undefined || g(v, out);
      if (!ok && out === undefined) return false;
      if (typeof v === "string") return (str === undefined || str(v, out)) && ok;
      if (typeof v === "number") return (num === undefined || num(v, out)) && ok;
      if (typeof v === "object" && v !== null) {
        if (Array.isArray(v)) return (arr === undefined || arr(v, out)) && ok;
        ok = (obj === undefined || obj(v, out)) && ok;
      }
      return ok;
    };
  };

  const rootCheck = compile(root);
  // One pass, explaining as it goes: locations are built only along failing
  // branches, so a valid instance costs about what a bare answer does and an
  // invalid one is not walked twice. The list is this schema's, reused
  // (validation calls nothing that could validate again meanwhile).
  const out: Out = [];
  return (v) => {
    out.length = 0;
    if (rootCheck(v, out)) return undefined;
    const issues = out.slice();
    out.length = 0;
    return issues;
  };
}
