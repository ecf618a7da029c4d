/**
 * The fast evaluator's object keywords, in the other evaluator's order:
 * required, minProperties, maxProperties, propertyNames, dependentRequired,
 * dependentSchemas, properties, patternProperties, additionalProperties.
 */
import { patternOf } from "../pattern/index.js";
import { messages } from "./issues.js";
import { descend, fail, report, template, type Check, type Compile } from "./fast-core.js";
import { isObject, pointerToken, type SchemaObject } from "./walk.js";

const hasOwn = Object.prototype.hasOwnProperty;

/** The checks of an object value, in order. */
export function objectChecks(s: SchemaObject, compile: Compile): Check[] {
  const objects: Check[] = [];
  if (Array.isArray(s["required"])) {
    const names = s["required"] as string[];
    const missing = names.map((name) => template("required", messages.required(name)));
    objects.push((v, out) => {
      let ok = true;
      for (let k = 0; k < names.length; k++) {
        const name = names[k]!;
        if (!hasOwn.call(v, name)) {
          if (out === undefined) return false;
          ok = report(out, missing[k]!);
        }
      }
      return ok;
    });
  }
  if (typeof s["minProperties"] === "number") {
    const n = s["minProperties"];
    const t = template("minProperties", messages.minProperties(n));
    objects.push((v, out) => Object.keys(v as object).length >= n || report(out, t));
  }
  if (typeof s["maxProperties"] === "number") {
    const n = s["maxProperties"];
    const t = template("maxProperties", messages.maxProperties(n));
    objects.push((v, out) => Object.keys(v as object).length <= n || report(out, t));
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
  const patterns = patternProperties === undefined ? [] : Object.keys(patternProperties).map((p) => [patternOf(p), compile(patternProperties[p]), pointerToken(p)] as const);
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
    if (extra === false && patterns.length === 0) {
      objects.push((v, out) => {
        let ok = true;
        for (const key in v as object) {
          if (!hasOwn.call(known, key)) {
            if (out === undefined) return false;
            ok = fail(out, "additionalProperties", messages.unexpectedProperty(key));
          }
        }
        return ok;
      });
    } else if (extra === false) {
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

  return objects;
}
