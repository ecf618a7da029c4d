/**
 * The fuzzer's near misses: from one valid value, samples each broken one
 * way. Against the schema (a wrong type, a missing required property, an
 * extra one, a bound or a pattern missed: whether each is still valid is
 * left to the reference evaluator), and in the raw text (a repeated key,
 * a trailing comma, an escaped lone surrogate, nesting past 256: invalid
 * by construction, whatever the schema says).
 */
import type { JsonValue } from "../json/index.js";
import { isObj, type Generated, type Path } from "./fuzz-generator.js";

/** How a sample was made. */
export type SampleKind = "valid" | "wrong_type" | "missing_required" | "extra_property" | "out_of_range" | "pattern_miss" | "repeated_key" | "lone_surrogate" | "too_deep" | "trailing_comma";

function getAt(v: JsonValue, path: Path): JsonValue | undefined {
  let node: JsonValue | undefined = v;
  for (const p of path) node = isObj(node) ? node[p as string] : Array.isArray(node) ? node[p as number] : undefined;
  return node;
}

function setAt(root: JsonValue, path: Path, value: JsonValue | undefined): JsonValue {
  if (path.length === 0) return value ?? null;
  const copy = JSON.parse(JSON.stringify(root)) as JsonValue;
  const parent = getAt(copy, path.slice(0, -1));
  const last = path[path.length - 1]!;
  if (isObj(parent)) {
    if (value === undefined) delete parent[last as string];
    else parent[last as string] = value;
  } else if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(last as number, 1);
    else parent[last as number] = value;
  }
  return copy;
}

const DEEP = "[".repeat(300) + "]".repeat(300);
const MARK = "\u0000isoagent-fuzz-mark\u0000";

/** Near misses of a valid value, each made one way. */
export function nearMisses(g: Generated, rand: () => number): { kind: SampleKind; raw: string; byConstruction: boolean }[] {
  const pick = <T>(xs: readonly T[]): T | undefined => (xs.length === 0 ? undefined : xs[Math.floor(rand() * xs.length)]);
  const out: { kind: SampleKind; raw: string; byConstruction: boolean }[] = [];
  const present = g.nodes.filter((n) => getAt(g.value, n.path) !== undefined);
  const at = pick(present);
  if (at !== undefined) {
    const current = getAt(g.value, at.path);
    const others: JsonValue[] = [null, true, 7, 1.5, "text", [], {}].filter((x) => JSON.stringify(x) !== JSON.stringify(current) && typeof x !== typeof current);
    out.push({ kind: "wrong_type", raw: JSON.stringify(setAt(g.value, at.path, pick(others)!)), byConstruction: false });
  }
  const withRequired = present.filter((n) => Array.isArray(n.schema["required"]) && (n.schema["required"] as string[]).length > 0 && isObj(getAt(g.value, n.path)));
  const req = pick(withRequired);
  if (req !== undefined) {
    const name = pick(req.schema["required"] as string[])!;
    out.push({ kind: "missing_required", raw: JSON.stringify(setAt(g.value, [...req.path, name], undefined)), byConstruction: false });
  }
  const objects = present.filter((n) => isObj(getAt(g.value, n.path)));
  const obj = pick(objects);
  if (obj !== undefined) out.push({ kind: "extra_property", raw: JSON.stringify(setAt(g.value, [...obj.path, "zz_unexpected"], 1)), byConstruction: false });
  const bounded = present.filter((n) => ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "maxLength", "minLength", "maxItems", "minItems"].some((k) => typeof n.schema[k] === "number"));
  const b = pick(bounded);
  if (b !== undefined) {
    const s = b.schema;
    let v: JsonValue | undefined;
    if (typeof s["maximum"] === "number") v = s["maximum"] + 1;
    else if (typeof s["exclusiveMaximum"] === "number") v = s["exclusiveMaximum"];
    else if (typeof s["minimum"] === "number") v = s["minimum"] - 1;
    else if (typeof s["exclusiveMinimum"] === "number") v = s["exclusiveMinimum"];
    else if (typeof s["maxLength"] === "number") v = "x".repeat(s["maxLength"] + 1);
    else if (typeof s["minLength"] === "number" && s["minLength"] > 0) v = "x".repeat(s["minLength"] - 1);
    else if (typeof s["maxItems"] === "number") v = Array.from({ length: s["maxItems"] + 1 }, () => null);
    else if (typeof s["minItems"] === "number" && s["minItems"] > 0) v = [];
    if (v !== undefined) out.push({ kind: "out_of_range", raw: JSON.stringify(setAt(g.value, b.path, v)), byConstruction: false });
  }
  const patterned = present.filter((n) => typeof n.schema["pattern"] === "string");
  const p = pick(patterned);
  if (p !== undefined) {
    const re = new RegExp(p.schema["pattern"] as string, "u");
    const miss = ["", " ", "!!", "\t\n", "ÿÿ", "/etc/passwd", "A B"].find((x) => !re.test(x));
    if (miss !== undefined) out.push({ kind: "pattern_miss", raw: JSON.stringify(setAt(g.value, p.path, miss)), byConstruction: false });
  }
  // Raw-text mutations: invalid whatever the schema says.
  const text = JSON.stringify(g.value);
  if (isObj(g.value) && Object.keys(g.value).length > 0) {
    const key = Object.keys(g.value)[0]!;
    out.push({ kind: "repeated_key", raw: `{${JSON.stringify(key)}:null,${text.slice(1)}`, byConstruction: true });
    out.push({ kind: "trailing_comma", raw: `${text.slice(0, -1)},}`, byConstruction: true });
  }
  const strings = present.filter((n) => typeof getAt(g.value, n.path) === "string");
  const str = pick(strings);
  if (str !== undefined) {
    // JSON.stringify escapes a lone surrogate as \udXXX: exactly the refused shape.
    out.push({ kind: "lone_surrogate", raw: JSON.stringify(setAt(g.value, str.path, `${String(getAt(g.value, str.path))}\ud800`)), byConstruction: true });
  }
  const anywhere = pick(present.filter((n) => n.path.length > 0)) ?? (isObj(g.value) ? { path: ["zz"], schema: {} } : undefined);
  if (anywhere !== undefined) {
    out.push({ kind: "too_deep", raw: JSON.stringify(setAt(g.value, anywhere.path, MARK)).replace(JSON.stringify(MARK), DEEP), byConstruction: true });
  }
  return out;
}
