/**
 * Elicitation on the client side: a server asks, in the middle of a call, for
 * something from a person. It goes to the application's handler, live (a
 * call in flight cannot wait durably, and nothing of it is journaled); the
 * default declines. The server's requested schema must be the flat form the
 * spec allows and compile with isoagent's compiler; what the handler accepts
 * gets the schema's defaults for what it left out (SEP-1034) and must match
 * the schema, or the answer is a decline: nothing unchecked goes back.
 */
import type { JsonValue } from "../json/index.js";
import { compileSchema } from "../schema/index.js";
import type { AbortSignalLike } from "../web.js";
import type { JsonObject } from "./jsonrpc.js";

/** What a handler is asked. */
export interface McpElicitation {
  /** The server's message (cleaned of control characters): show it, with the server's name. */
  readonly message: string;
  /** The flat schema of what is asked (primitive properties, enums). */
  readonly requestedSchema: JsonObject;
  /** The server's name, as it introduced itself. */
  readonly server: string;
  /** The isoagent tool whose call the server interrupted: the call whose stream carried the request, or else the only call in flight (absent when several are). */
  readonly tool?: string;
  readonly runId?: string;
  readonly callId?: string;
  /** Aborted when the server withdraws the request or the call ends. */
  readonly signal: AbortSignalLike;
}

/** A value a form can hold. */
export type McpFormValue = string | number | boolean | readonly string[];

/** A handler's answer. */
export type McpElicitResult = { readonly action: "accept"; readonly content: Readonly<Record<string, McpFormValue>> } | { readonly action: "decline" } | { readonly action: "cancel" };

/** Answers elicitation requests (live: it does not survive a crash of the host). */
export type McpElicitHandler = (request: McpElicitation) => Promise<McpElicitResult> | McpElicitResult;

/** The default handler: declines everything. */
export const declineElicitation: McpElicitHandler = () => ({ action: "decline" });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const PRIMITIVE = new Set(["string", "number", "integer", "boolean"]);

/** Why a requested schema is not the flat form elicitation allows, or undefined when it is. */
export function requestedSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema) || schema["type"] !== "object") return "the requested schema is not an object schema";
  const props = schema["properties"];
  if (props !== undefined && !isObject(props)) return "its properties are not an object";
  for (const [name, p] of Object.entries(props ?? {})) {
    if (!isObject(p)) return `property ${JSON.stringify(name)} is not a schema`;
    const t = p["type"];
    if (typeof t === "string" && PRIMITIVE.has(t)) continue;
    if (t === "array" && isObject(p["items"]) && (Array.isArray(p["items"]["enum"]) || Array.isArray(p["items"]["anyOf"]))) continue;
    return `property ${JSON.stringify(name)} is not a string, number, integer, boolean or multi-select enum`;
  }
  const req = schema["required"];
  if (req !== undefined && (!Array.isArray(req) || req.some((r) => typeof r !== "string"))) return "its required list is not a list of names";
  try {
    compileSchema(schema as JsonValue);
  } catch (e) {
    return `it does not compile (${e instanceof Error ? e.message : "unknown"})`;
  }
  return undefined;
}

/**
 * What a handler accepted, checked: the schema's defaults for what it left
 * out, then the schema. Undefined when it does not match (the answer is then
 * a decline).
 */
export function checkedContent(schema: JsonObject, content: unknown): Record<string, JsonValue> | undefined {
  if (!isObject(content)) return undefined;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(content)) {
    const ok = typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || (Array.isArray(v) && v.every((x) => typeof x === "string"));
    if (!ok) return undefined;
    out[k] = v as JsonValue;
  }
  const props = isObject(schema["properties"]) ? schema["properties"] : {};
  for (const [name, p] of Object.entries(props)) {
    if (!Object.hasOwn(out, name) && isObject(p) && Object.hasOwn(p, "default")) out[name] = p["default"] as JsonValue;
  }
  try {
    return compileSchema(schema as JsonValue).validate(out).valid ? out : undefined;
  } catch {
    return undefined;
  }
}
