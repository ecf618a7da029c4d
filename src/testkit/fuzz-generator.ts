/**
 * The fuzzer's generator of valid arguments: a value for a tool's input
 * schema (its types, bounds, formats, patterns, enums and local `$ref`s),
 * made from a seeded random source, with the schema of each node it made,
 * so that the near misses can break one node at a time. A schema it cannot
 * satisfy is a FUZZ_UNSATISFIABLE refusal, and the fuzzer tries another.
 */
import { IsoagentError } from "../errors.js";
import type { JsonValue } from "../json/index.js";
import { sampleMatching } from "./regex-sample.js";

export type Obj = { [k: string]: JsonValue };
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export type Path = (string | number)[];

/** A generated value and the schema of each of its nodes, for targeted mutations. */
export interface Generated {
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

/** Makes a valid value for a schema, remembering the schema of each node it makes (for the near misses). Throws FUZZ_UNSATISFIABLE for what it cannot satisfy. */
export class Generator {
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
      const itemSchema = k < prefix.length ? prefix[k]! : (s["items"] ?? true);
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
