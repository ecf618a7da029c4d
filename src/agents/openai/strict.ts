/**
 * Whether a tool's input schema can be sent with `strict: true` (OpenAI's
 * structured outputs): every object closed with `additionalProperties: false`
 * and every property required, and only keywords strict mode supports.
 * Anything else is sent with `strict: false`; isoagent checks the arguments
 * either way.
 */
import type { JsonValue } from "../../json/index.js";
import type { JsonSchema } from "../../schema/index.js";
import type { AgentView } from "../port.js";
import { ANSWER_NAME, structuredSchema } from "../model/output.js";

/** The answer's JSON Schema as OpenAI's structured outputs take it (Responses' `text.format`, Chat's `response_format.json_schema`), or undefined when the view has none to send. */
export function answerFormat(view: AgentView, strict: boolean | "auto"): { name: string; schema: JsonValue; strict: boolean } | undefined {
  const schema = structuredSchema(view);
  return schema === undefined ? undefined : { name: ANSWER_NAME, schema, strict: strict === "auto" ? strictCompatible(schema as JsonSchema) : strict };
}

// The subset every published version of the structured-outputs guide
// supports (older ones refuse pattern, format, numeric and length bounds).
const ALLOWED = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "definitions", "description", "title", "$schema"]);

/** True when `schema` can be sent with `strict: true`: a closed object whose properties are all required, with only the keywords strict mode supports. */
export function strictCompatible(schema: JsonSchema): boolean {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  const root = schema as Record<string, unknown>;
  if (root["type"] !== "object") return false;
  return ok(root, 0);
}

function ok(s: unknown, depth: number): boolean {
  if (depth > 10) return false;
  if (typeof s !== "object" || s === null || Array.isArray(s)) return false;
  const o = s as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!ALLOWED.has(k)) return false;
  if (!("type" in o || "anyOf" in o || "$ref" in o || "enum" in o || "const" in o)) return false;
  const type = o["type"];
  const isObject = type === "object" || (Array.isArray(type) && type.includes("object"));
  if (isObject || o["properties"] !== undefined) {
    if (o["additionalProperties"] !== false) return false;
    const props = o["properties"] ?? {};
    if (typeof props !== "object" || props === null || Array.isArray(props)) return false;
    const required = Array.isArray(o["required"]) ? (o["required"] as unknown[]) : [];
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
      if (!required.includes(name)) return false;
      if (!ok(sub, depth + 1)) return false;
    }
  } else if (o["additionalProperties"] !== undefined && o["additionalProperties"] !== false) return false;
  if (o["items"] !== undefined && !ok(o["items"], depth + 1)) return false;
  if (o["anyOf"] !== undefined) {
    if (!Array.isArray(o["anyOf"])) return false;
    for (const sub of o["anyOf"]) if (!ok(sub, depth + 1)) return false;
  }
  for (const defs of [o["$defs"], o["definitions"]]) {
    if (defs === undefined) continue;
    if (typeof defs !== "object" || defs === null) return false;
    for (const sub of Object.values(defs as Record<string, unknown>)) if (!ok(sub, depth + 1)) return false;
  }
  return true;
}
