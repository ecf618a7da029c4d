/**
 * What the fast evaluator's checks share: the list an explaining check
 * records issues in, the issue templates made at compile time, and the
 * step down a failing branch that prefixes locations.
 */
import { messages, type ValidationIssue } from "./issues.js";

/**
 * The issues an explaining check records. A check records an issue at its
 * own node (instance location "", evaluation path "/keyword"); each step back
 * up a failing branch prefixes the locations of the issues recorded below it,
 * so what passes costs nothing for its locations.
 */
export type Out = Mutable<ValidationIssue>[];
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** Validates `v`; with `out`, records every issue. */
export type Check = (v: unknown, out: Out | undefined) => boolean;
/** Compiles a subschema (memoised: a schema that refers to itself gets its own check). */
export type Compile = (schema: unknown) => Check;

export const FALSE_MESSAGE = messages.falseSchema();

/**
 * An issue as the compiler prepares it: its keyword location and its
 * message are made once, when the schema is compiled, so that a failure
 * costs one object and no string work.
 */
export interface Template {
  readonly keyword: string;
  readonly keywordLocation: string;
  readonly message: string;
}
export const template = (keyword: string, message: string): Template => ({ keyword, keywordLocation: `/${keyword}`, message });

export function report(out: Out | undefined, t: Template): false {
  out?.push({ keyword: t.keyword, instanceLocation: "", keywordLocation: t.keywordLocation, message: t.message });
  return false;
}

/** A failure whose message depends on the value (a key, an index, a count). */
export function fail(out: Out | undefined, keyword: string, message: string): false {
  out?.push({ keyword, instanceLocation: "", keywordLocation: `/${keyword}`, message });
  return false;
}

/**
 * Checks `v` against `sub` one step down, explaining: when it fails, the
 * issues it recorded get `ipSegment` (undefined: the same instance) and
 * `kpSegment` in front of their locations.
 */
export function descend(sub: Check, v: unknown, out: Out, ipSegment: string | undefined, kpSegment: string): boolean {
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
export function itemSegment(k: number): string {
  return k < 1024 ? (ITEM_SEGMENTS[k] ??= `/${k}`) : `/${k}`;
}

/** The JSON Schema types, as codes for {@link isOfType} (0: a name that is none of them). */
export const TYPE_CODES: Record<string, number | undefined> = { __proto__: null as never, string: 1, integer: 2, number: 3, boolean: 4, null: 5, array: 6, object: 7 };

/** Whether `v` has the type of a code; one function the optimiser can inline. */
export function isOfType(code: number, v: unknown): boolean {
  switch (code) {
    case 1:
      return typeof v === "string";
    case 2:
      return typeof v === "number" && Number.isInteger(v);
    case 3:
      return typeof v === "number";
    case 4:
      return typeof v === "boolean";
    case 5:
      return v === null;
    case 6:
      return Array.isArray(v);
    case 7:
      return typeof v === "object" && v !== null && !Array.isArray(v);
    default:
      return false;
  }
}

/** Runs checks in order: all of them when explaining, up to the first failure otherwise. */
export function all(checks: Check[]): Check | undefined {
  if (checks.length === 0) return undefined;
  if (checks.length === 1) return checks[0];
  if (checks.length === 3) {
    const [a, b, c] = checks as [Check, Check, Check];
    return (v, out) => {
      if (out === undefined) return a(v, undefined) && b(v, undefined) && c(v, undefined);
      const x = a(v, out);
      const y = b(v, out);
      return c(v, out) && x && y;
    };
  }
  if (checks.length === 2) {
    const [a, b] = checks as [Check, Check];
    return (v, out) => {
      if (out === undefined) return a(v, undefined) && b(v, undefined);
      const x = a(v, out);
      return b(v, out) && x;
    };
  }
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
