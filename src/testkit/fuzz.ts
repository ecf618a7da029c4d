/**
 * Argument fuzzing: generates valid arguments and near misses from a tool's
 * schema, puts each through the runtime's acceptance (`compileTool(...).check`,
 * the code the driver runs), and checks that valid ones are accepted and
 * reach the tool without an unexpected throw, and invalid ones are refused.
 *
 * Whether a value is valid is decided independently of the code under test:
 * by @cfworker/json-schema (the reference evaluator) for values, and by
 * construction for raw-text mutations (a repeated key, an escaped lone
 * surrogate, nesting past 256, a trailing comma).
 */
import { compileSchema, loadFullSchemaSupport, type CompiledSchema, type JsonSchema } from "../schema/index.js";
import { compileTool, type Tool, type ToolContext } from "../tools/index.js";
import { isToolError } from "../tools/tool.js";
import { IsoagentError, isIsoagentError } from "../errors.js";
import { parseCallId, parseRunId } from "../ids.js";
import { sha256HexSync, type JsonValue } from "../json/index.js";
import { newAbortController } from "../web.js";
import { allowAll, evaluatePolicy, type Policy } from "../policy/index.js";
import { sampleMatching } from "./regex-sample.js";

/** How a sample was made. */
export type SampleKind =
  | "valid"
  | "wrong_type"
  | "missing_required"
  | "extra_property"
  | "out_of_range"
  | "pattern_miss"
  | "repeated_key"
  | "lone_surrogate"
  | "too_deep"
  | "trailing_comma";

/** One generated argument text, its kind, and whether it should be accepted. */
export interface FuzzSample {
  readonly kind: SampleKind;
  readonly raw: string;
  /** What the reference (or the construction) says. */
  readonly expectValid: boolean;
}

/** What `fuzz` found for one tool: how many samples of each kind, and every sample the runtime judged wrongly (a clean report has both lists empty). */
export interface FuzzReport {
  readonly tool: string;
  readonly seed: number;
  readonly samples: number;
  readonly valid: number;
  readonly invalid: number;
  readonly byKind: Partial<Record<SampleKind, number>>;
  /** Valid arguments the runtime refused. */
  readonly validRefused: FuzzSample[];
  /** Invalid arguments the runtime accepted (and so would have reached the tool). */
  readonly invalidAccepted: FuzzSample[];
  /** Accepted arguments on which the tool threw something other than a ToolError. */
  readonly crashes: { readonly sample: FuzzSample; readonly error: string }[];
  /** Accepted arguments the tool was called with. */
  readonly reachedTool: number;
}

/** How `fuzz` runs: the seed and number of samples (the same seed gives the same samples), whether accepted arguments reach the tool, and the policy its `permit` answers by. */
export interface FuzzOptions {
  readonly seed?: number;
  readonly count?: number;
  /** Call the tool with accepted arguments (default true). Give false for tools with real effects. */
  readonly call?: boolean;
  /** The policy the tool's `permit` answers by, fail-closed, for what it discovers. Default: allow everything. */
  readonly policy?: Policy;
}

/** A deterministic generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
type Path = (string | number)[];

/** A generated value and the schema of each of its nodes, for targeted mutations. */
interface Generated {
  readonly value: JsonValue;
  readonly nodes: { path: Path; schema: Obj }[];
}

/** A schema (or a part of it) the fuzzer cannot make a value for. Code `FUZZ_UNSATISFIABLE`. */
class Unsatisfiable extends IsoagentError {
  constructor(message: string) {
    super("FUZZ_UNSATISFIABLE", message);
  }
}

const FORMATS: Record<string, (r: () => number) => string> = {
  "date-time": () => "2026-03-04T05:06:07Z",
  date: () => "2026-03-04",
  time: () => "05:06:07Z",
  email: (r) => `user${Math.floor(r() * 100)}@example.com`,
  uri: (r) => `https://example.com/p/${Math.floor(r() * 100)}`,
  "uri-reference": () => "/a/b",
  uuid: () => "123e4567-e89b-12d3-a456-426614174000",
  hostname: () => "example.com",
  ipv4: () => "192.0.2.1",
  ipv6: () => "2001:db8::1",
  duration: (r) => `P${1 + Math.floor(r() * 9)}DT${Math.floor(r() * 24)}H`,
  iri: (r) => `https://example.com/ü/${Math.floor(r() * 100)}`,
  "iri-reference": () => "/ä/b",
  "uri-template": () => "/users/{id}{?fields*}",
  "json-pointer": () => "/a/0",
  "relative-json-pointer": () => "1/a",
  regex: () => "^[a-z]+$",
};

const ALPHABET = ["a", "b", "z", "A", "0", "9", "_", "-", " ", ".", "/", "é", "ß", "中", "😀"];

class Generator {
  readonly nodes: { path: Path; schema: Obj }[] = [];
  constructor(
    private readonly root: JsonValue,
    private readonly rand: () => number,
  ) {}

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)]!;
  }

  private resolve(ref: string): JsonValue {
    if (!ref.startsWith("#")) throw new Unsatisfiable("external ref");
    let node: JsonValue | undefined = this.root;
    const pointer = decodeURIComponent(ref.slice(1));
    if (pointer !== "" && !pointer.startsWith("/")) throw new Unsatisfiable("anchor");
    for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      node = isObj(node) ? node[token] : Array.isArray(node) ? node[Number(token)] : undefined;
    }
    if (node === undefined) throw new Unsatisfiable("unresolved ref");
    return node;
  }

  gen(schema: JsonValue, path: Path, depth: number): JsonValue {
    if (schema === true || (isObj(schema) && Object.keys(schema).length === 0)) return this.anyValue(depth);
    if (schema === false || !isObj(schema)) throw new Unsatisfiable("false schema");
    if (depth > 12) throw new Unsatisfiable("too deep");
    this.nodes.push({ path, schema });
    if (typeof schema["$ref"] === "string") return this.gen(this.resolve(schema["$ref"]), path, depth + 1);
    if (schema["const"] !== undefined) return schema["const"];
    if (Array.isArray(schema["enum"])) return this.pick(schema["enum"]);
    for (const k of ["anyOf", "oneOf"] as const) {
      const list = schema[k];
      if (Array.isArray(list) && list.length > 0) return this.gen(this.pick(list), path, depth + 1);
    }
    const allOf = schema["allOf"];
    if (Array.isArray(allOf) && allOf.length > 0) {
      const merged: Obj = { ...schema };
      delete merged["allOf"];
      for (const s of allOf) if (isObj(s)) Object.assign(merged, s);
      return this.gen(merged, path, depth + 1);
    }
    const type = this.pickType(schema);
    switch (type) {
      case "null":
        return null;
      case "boolean":
        return this.rand() < 0.5;
      case "integer":
      case "number":
        return this.number(schema, type === "integer");
      case "string":
        return this.string(schema);
      case "array":
        return this.array(schema, path, depth);
      default:
        return this.object(schema, path, depth);
    }
  }

  private pickType(s: Obj): string {
    const t = s["type"];
    if (typeof t === "string") return t;
    if (Array.isArray(t) && t.length > 0) return String(this.pick(t));
    if (s["properties"] !== undefined || s["required"] !== undefined || s["additionalProperties"] !== undefined) return "object";
    if (s["items"] !== undefined || s["prefixItems"] !== undefined) return "array";
    if (s["minLength"] !== undefined || s["maxLength"] !== undefined || s["pattern"] !== undefined) return "string";
    if (s["minimum"] !== undefined || s["maximum"] !== undefined || s["multipleOf"] !== undefined) return "number";
    return this.pick(["string", "integer", "boolean", "null"]);
  }

  private number(s: Obj, integer: boolean): number {
    let lo = typeof s["minimum"] === "number" ? s["minimum"] : typeof s["exclusiveMinimum"] === "number" ? s["exclusiveMinimum"] + (integer ? 1 : 0.5) : -1000;
    let hi = typeof s["maximum"] === "number" ? s["maximum"] : typeof s["exclusiveMaximum"] === "number" ? s["exclusiveMaximum"] - (integer ? 1 : 0.5) : lo + 2000;
    if (integer) {
      lo = Math.ceil(lo);
      hi = Math.floor(hi);
    }
    if (hi < lo) throw new Unsatisfiable("empty range");
    const m = s["multipleOf"];
    if (typeof m === "number" && m > 0) {
      const first = Math.ceil(lo / m);
      const last = Math.floor(hi / m);
      if (last < first) throw new Unsatisfiable("no multiple in range");
      return (first + Math.floor(this.rand() * Math.min(last - first + 1, 1000))) * m;
    }
    const edge = this.rand();
    if (edge < 0.15) return lo;
    if (edge < 0.3) return hi;
    const v = lo + this.rand() * (hi - lo);
    return integer ? Math.round(v) : Math.round(v * 100) / 100;
  }

  private string(s: Obj): string {
    const min = typeof s["minLength"] === "number" ? s["minLength"] : 0;
    const max = typeof s["maxLength"] === "number" ? s["maxLength"] : min + 12;
    const format = typeof s["format"] === "string" ? FORMATS[s["format"]] : undefined;
    if (typeof s["pattern"] === "string") {
      for (let k = 0; k < 10; k++) {
        const m = sampleMatching(s["pattern"], this.rand);
        if (m !== undefined && [...m].length >= min && [...m].length <= max) return m;
      }
      throw new Unsatisfiable("pattern");
    }
    if (format !== undefined) return format(this.rand);
    const n = min + Math.floor(this.rand() * (Math.min(max, min + 12) - min + 1));
    let out = "";
    for (let k = 0; k < n; k++) out += this.pick(ALPHABET);
    return out;
  }

  private array(s: Obj, path: Path, depth: number): JsonValue[] {
    const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
    const max = typeof s["maxItems"] === "number" ? s["maxItems"] : min + 3;
    const n = min + Math.floor(this.rand() * (Math.min(max, min + 3) - min + 1));
    const prefix = Array.isArray(s["prefixItems"]) ? s["prefixItems"] : [];
    const out: JsonValue[] = [];
    for (let k = 0; k < n; k++) {
      const itemSchema = k < prefix.length ? prefix[k]! : s["items"] ?? true;
      let item = this.gen(itemSchema, [...path, k], depth + 1);
      if (s["uniqueItems"] === true) {
        for (let tries = 0; tries < 10 && out.some((x) => JSON.stringify(x) === JSON.stringify(item)); tries++) item = this.gen(itemSchema, [...path, k], depth + 1);
      }
      out.push(item);
    }
    return out;
  }

  private object(s: Obj, path: Path, depth: number): Obj {
    const properties = isObj(s["properties"]) ? s["properties"] : {};
    const required = Array.isArray(s["required"]) ? (s["required"] as string[]) : [];
    const out: Obj = {};
    for (const name of Object.keys(properties)) {
      if (required.includes(name) || this.rand() < 0.6) {
        Object.defineProperty(out, name, { value: this.gen(properties[name]!, [...path, name], depth + 1), enumerable: true, writable: true, configurable: true });
      }
    }
    for (const name of required) if (!(name in out)) out[name] = this.anyValue(depth + 1);
    return out;
  }

  anyValue(depth: number): JsonValue {
    const k = Math.floor(this.rand() * (depth > 3 ? 4 : 6));
    if (k === 0) return null;
    if (k === 1) return this.rand() < 0.5;
    if (k === 2) return Math.floor(this.rand() * 100);
    if (k === 3) return this.pick(ALPHABET);
    if (k === 4) return [this.anyValue(depth + 1)];
    return { k: this.anyValue(depth + 1) };
  }
}

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
function nearMisses(g: Generated, rand: () => number): { kind: SampleKind; raw: string; byConstruction: boolean }[] {
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

/**
 * Fuzzes a tool's argument checking (and, by default, the tool with the
 * arguments accepted). Deterministic for a seed.
 *
 * @example
 * ```ts
 * const report = await fuzz(writeFile, { seed: 1, count: 2000, call: false })
 * expect(report.validRefused).toEqual([])
 * expect(report.invalidAccepted).toEqual([])
 * ```
 */
export async function fuzz(tool: Tool<never, unknown>, options: FuzzOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const count = options.count ?? 1000;
  const rand = seededRandom(seed);
  // The verdicts are @cfworker/json-schema's: full schema support.
  await loadFullSchemaSupport();
  const compiled = compileTool(tool);
  const reference: CompiledSchema = compileSchema(compiled.inputSchema as JsonSchema, { evaluator: "reference" });
  const samples: FuzzSample[] = [];
  let failures = 0;
  while (samples.length < count) {
    const gen = new Generator(compiled.inputSchema as JsonValue, rand);
    let value: JsonValue;
    try {
      value = gen.gen(compiled.inputSchema as JsonValue, [], 0);
    } catch (e) {
      if (!isIsoagentError(e, "FUZZ_UNSATISFIABLE") || ++failures > count * 10) throw new Error(`fuzz: cannot generate arguments for ${compiled.name} (${e instanceof Error ? e.message : "?"})`);
      continue;
    }
    const g: Generated = { value, nodes: gen.nodes };
    samples.push({ kind: "valid", raw: JSON.stringify(value), expectValid: reference.validate(value).valid });
    for (const m of nearMisses(g, rand)) {
      if (samples.length >= count) break;
      const expectValid = m.byConstruction ? false : reference.validate(JSON.parse(m.raw) as JsonValue).valid;
      samples.push({ kind: m.kind, raw: m.raw, expectValid });
    }
  }
  const report = { tool: compiled.name, seed, samples: samples.length, valid: 0, invalid: 0, byKind: {} as Partial<Record<SampleKind, number>>, validRefused: [] as FuzzSample[], invalidAccepted: [] as FuzzSample[], crashes: [] as { sample: FuzzSample; error: string }[], reachedTool: 0 };
  for (const sample of samples) {
    report.byKind[sample.kind] = (report.byKind[sample.kind] ?? 0) + 1;
    if (sample.expectValid) report.valid++;
    else report.invalid++;
    const verdict = compiled.check(sample.raw);
    if (sample.expectValid && !verdict.valid) report.validRefused.push(sample);
    if (!sample.expectValid && verdict.valid) report.invalidAccepted.push(sample);
    if (!verdict.valid || options.call === false) continue;
    report.reachedTool++;
    const controller = newAbortController();
    const ctx: ToolContext = {
      runId: parseRunId("fuzz"),
      step: 1,
      callId: parseCallId("fuzz"),
      attempt: 1,
      idempotencyKey: `fuzz:${report.reachedTool}`,
      fencingToken: 1,
      signal: controller.signal,
      permit: (resources) => evaluatePolicy(options.policy ?? allowAll, { tool: compiled.name, sideEffect: compiled.sideEffect, args: verdict.args, resources, stage: "discovered" }),
      readArtifact: async () => undefined,
      // Fuzzing keeps nothing: progress is dropped, artifacts are hashed and let go.
      progress: () => {},
      putArtifact: async (bytes) => ({ sha256: sha256HexSync(bytes), size: bytes.length }),
    };
    try {
      await tool.call(verdict.args as never, ctx);
    } catch (e) {
      if (!isToolError(e)) report.crashes.push({ sample, error: e instanceof Error ? e.name : typeof e });
    } finally {
      controller.abort();
    }
  }
  return report;
}
