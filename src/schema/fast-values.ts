/**
 * The fast evaluator's array, number and string keywords, each group in the
 * other evaluator's order.
 */
import type { SchemaDraft } from "./drafts.js";
import { patternOf } from "../pattern/index.js";
import { formatName } from "./format-names.js";
import { codePoints, isMultipleOf, jsonEqual } from "./fast-support.js";
import { descend, fail, itemSegment, report, template, type Check, type Compile } from "./fast-core.js";
import { messages } from "./issues.js";
import { fullSupport } from "./support.js";
import type { SchemaObject } from "./walk.js";

/** The checks of an array value, in order: maxItems, minItems, prefixItems and items, contains, uniqueItems. */
export function arrayChecks(s: SchemaObject, compile: Compile): Check[] {
  const arrays: Check[] = [];
  if (typeof s["maxItems"] === "number") {
    const n = s["maxItems"];
    const t = template("maxItems", messages.maxItems(n));
    arrays.push((v, out) => (v as unknown[]).length <= n || report(out, t));
  }
  if (typeof s["minItems"] === "number") {
    const n = s["minItems"];
    const t = template("minItems", messages.minItems(n));
    arrays.push((v, out) => (v as unknown[]).length >= n || report(out, t));
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
    const none = template("contains", messages.contains());
    const few = template("minContains", messages.minContains(min));
    const many = template("maxContains", messages.maxContains(max));
    arrays.push((v, out) => {
      const a = v as unknown[];
      if (a.length === 0 && min === undefined) return report(out, none);
      if (min !== undefined && a.length < min) return report(out, few);
      let matched = 0;
      for (const item of a) if (sub(item, undefined)) matched++;
      if (min === undefined && matched === 0) return report(out, none);
      if (min !== undefined && matched < min) return report(out, few);
      if (max !== undefined && matched > max) return report(out, many);
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

  return arrays;
}

/** The checks of a number, in order: minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf. */
export function numberChecks(s: SchemaObject, draft: SchemaDraft): Check[] {
  const numbers: Check[] = [];
  const min = s["minimum"];
  const max = s["maximum"];
  const xmin = s["exclusiveMinimum"];
  const xmax = s["exclusiveMaximum"];
  if (draft === "draft-04") {
    if (typeof min === "number") {
      const ex = xmin === true;
      const t = template("minimum", messages.bound(ex ? ">" : ">=", min));
      numbers.push((v, out) => (ex ? (v as number) > min : (v as number) >= min) || report(out, t));
    }
    if (typeof max === "number") {
      const ex = xmax === true;
      const t = template("maximum", messages.bound(ex ? "<" : "<=", max));
      numbers.push((v, out) => (ex ? (v as number) < max : (v as number) <= max) || report(out, t));
    }
  } else {
    if (typeof min === "number") {
      const t = template("minimum", messages.bound(">=", min));
      numbers.push((v, out) => (v as number) >= min || report(out, t));
    }
    if (typeof max === "number") {
      const t = template("maximum", messages.bound("<=", max));
      numbers.push((v, out) => (v as number) <= max || report(out, t));
    }
    if (typeof xmin === "number") {
      const t = template("exclusiveMinimum", messages.bound(">", xmin));
      numbers.push((v, out) => (v as number) > xmin || report(out, t));
    }
    if (typeof xmax === "number") {
      const t = template("exclusiveMaximum", messages.bound("<", xmax));
      numbers.push((v, out) => (v as number) < xmax || report(out, t));
    }
  }
  if (typeof s["multipleOf"] === "number") {
    const m = s["multipleOf"];
    const t = template("multipleOf", messages.multipleOf(m));
    numbers.push((v, out) => isMultipleOf(v as number, m) || report(out, t));
  }

  return numbers;
}

/** The checks of a string, in order: minLength, maxLength, pattern, format. */
export function stringChecks(s: SchemaObject): Check[] {
  const strings: Check[] = [];
  if (typeof s["minLength"] === "number") {
    const n = s["minLength"];
    const t = template("minLength", messages.minLength(n));
    strings.push((v, out) => (v as string).length >= n * 2 || codePoints(v as string) >= n || report(out, t));
  }
  if (typeof s["maxLength"] === "number") {
    const n = s["maxLength"];
    const t = template("maxLength", messages.maxLength(n));
    strings.push((v, out) => (v as string).length <= n || codePoints(v as string) <= n || report(out, t));
  }
  if (typeof s["pattern"] === "string") {
    const p = s["pattern"];
    const re = patternOf(p);
    const t = template("pattern", messages.pattern(p));
    strings.push((v, out) => re.test(v as string) || report(out, t));
  }
  // The compiler renamed the formats that assert and removed the others.
  if (typeof s["format"] === "string") {
    const test = fullSupport()?.formatChecker(s["format"]);
    const name = formatName(s["format"]);
    // Fail closed: the compiler renames a format only with its checker loaded.
    if (test === undefined && name !== s["format"]) throw new Error(`isoagent: format ${name} asserts without its checker`);
    const t = template("format", messages.format(name));
    if (test !== undefined) strings.push((v, out) => test(v as string) || report(out, t));
  }

  return strings;
}
