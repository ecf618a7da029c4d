/**
 * The fast evaluator: a schema compiled once into a tree of closures, no
 * `eval`, no `new Function`. It covers the keywords tool schemas use; a
 * schema that uses anything else (unevaluated*, $recursiveRef, dependencies,
 * the tuple form of items) is left to @cfworker/json-schema whole
 * (fast-support.ts says which).
 *
 * It gives the same verdict as @cfworker/json-schema on every schema it
 * accepts (a differential test runs both over the JSON Schema Test Suite and
 * over fuzzed inputs), and reports the same issues in the same order, built
 * by the same message builders. What a failure reports is made when the
 * schema is compiled (fast-core.ts: templates), so a failure costs an
 * object, not string work.
 *
 * Each check runs in one of two modes. Without `out` it only answers, and
 * stops at the first failure (what anyOf, oneOf, not, contains and if ask
 * of their subschemas). With `out` it explains: it collects every issue with
 * its locations, the way the other evaluator does with short-circuit off.
 * Validation is one explaining pass: an issue is recorded at its own node
 * and its locations are prefixed on the way back up the failing branch, so
 * what passes builds nothing, and an invalid instance is walked once.
 * General keywords are here; fast-objects.ts and fast-values.ts hold the
 * keywords of each JSON type.
 */
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "../json/index.js";
import type { SchemaDraft } from "./drafts.js";
import { all, descend, fail, FALSE_MESSAGE, isOfType, report, template, TYPE_CODES, type Check, type Out, type Template } from "./fast-core.js";
import { objectChecks } from "./fast-objects.js";
import { jsonEqual } from "./fast-support.js";
import { arrayChecks, numberChecks, stringChecks } from "./fast-values.js";
import { jsonTypeOf, messages, type ValidationIssue } from "./issues.js";
import type { Lookup } from "./resolve.js";
import type { SchemaObject } from "./walk.js";

export { fastUnsupported } from "./fast-support.js";

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
    else if (schema === false) check = (_v, out) => (out?.push({ keyword: "false", instanceLocation: "", keywordLocation: "", message: FALSE_MESSAGE }), false);
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

    if (s["$ref"] !== undefined) general.push(refCheck(s));

    const type = s["type"];
    let typeCheck: Check | undefined;
    let only: number | undefined;
    if (type !== undefined) {
      const types = Array.isArray(type) ? (type as string[]) : [type as string];
      const codes = types.map((t) => TYPE_CODES[t] ?? 0);
      only = codes.length === 1 ? codes[0]! : undefined;
      // One template per JSON type of the value, made on first use.
      const byType: Record<string, Template> = {};
      const wrongType = (out: Out | undefined, v: unknown): false => {
        if (out === undefined) return false;
        const t = jsonTypeOf(v);
        return report(out, (byType[t] ??= template("type", messages.type(type, v))));
      };
      const one = only;
      typeCheck = one !== undefined ? (v, out) => isOfType(one, v) || wrongType(out, v) : (v, out) => codes.some((c) => isOfType(c, v)) || wrongType(out, v);
      general.push(typeCheck);
    }
    if (s["const"] !== undefined) {
      const c = s["const"];
      const t = template("const", messages.const(c));
      general.push((v, out) => jsonEqual(v, c) || report(out, t));
    }
    if (Array.isArray(s["enum"])) {
      const values = s["enum"];
      const primitives = new Set(values.filter((x) => typeof x !== "object" || x === null));
      const composites = values.filter((x) => typeof x === "object" && x !== null);
      const t = template("enum", messages.enum(values));
      general.push((v, out) => (typeof v !== "object" || v === null ? primitives.has(v as never) : composites.some((x) => jsonEqual(v, x))) || report(out, t));
    }
    if (s["not"] !== undefined) {
      const sub = compile(s["not"]);
      const t = template("not", messages.not());
      general.push((v, out) => !sub(v, undefined) || report(out, t));
    }
    if (Array.isArray(s["anyOf"])) {
      const subs = s["anyOf"].map(compile);
      const t = template("anyOf", messages.anyOf());
      general.push((v, out) => subs.some((c) => c(v, undefined)) || report(out, t));
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

    const objects = objectChecks(s, compile);
    const arrays = arrayChecks(s, compile);
    const numbers = numberChecks(s, draft);
    const strings = stringChecks(s);

    const g = all(general);
    const str = all(strings);
    const num = all(numbers);
    const arr = all(arrays);
    const obj = all(objects);
    const byKind = (v: unknown, out: Out | undefined, ok: boolean): boolean => {
      if (typeof v === "string") return (str === undefined || str(v, out)) && ok;
      if (typeof v === "number") return (num === undefined || num(v, out)) && ok;
      if (typeof v === "object" && v !== null) {
        if (Array.isArray(v)) return (arr === undefined || arr(v, out)) && ok;
        return (obj === undefined || obj(v, out)) && ok;
      }
      return ok;
    };
    const code = only !== undefined && general.length === 1 && general[0] === typeCheck ? only : undefined;
    if (code !== undefined) return (v, out) => (isOfType(code, v) ? byKind(v, out, true) : out !== undefined && (typeCheck!(v, out), byKind(v, out, false)));
    return (v, out) => {
      const ok = g === undefined || g(v, out);
      if (!ok && out === undefined) return false;
      return byKind(v, out, ok);
    };
  };

  const rootCheck = compile(root);
  // One pass, explaining as it goes: locations are built only along failing
  // branches, so a valid instance costs about what a bare answer does and an
  // invalid one is not walked twice. The list is this schema's, reused
  // (validation calls nothing that could validate again meanwhile).
  let out: Out = [];
  return (v) => {
    if (out.length !== 0) out = [];
    if (rootCheck(v, out)) return undefined;
    const issues = out;
    out = [];
    return issues;
  };
}
