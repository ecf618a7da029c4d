/**
 * JSON-RPC 2.0 as MCP uses it: one message per HTTP body, SSE event or
 * stdio line; no batches. Every message from the other side is read through
 * the strict JSON boundary (no repeated keys, no lone surrogates, depth at
 * most 256) and checked for its shape before anything acts on it.
 */
import { tryParseJson, type JsonValue } from "../json/index.js";
import { decodeUtf8Fatal } from "../web.js";
import { readToolsList } from "./listing.js";

/** A request or response id: a string or a number, never null. */
export type JsonRpcId = string | number;

/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

export interface JsonRpcRequest {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: JsonObject;
}
export interface JsonRpcNotification {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params?: JsonObject;
}
export interface JsonRpcResult {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly result: JsonObject;
}
export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}
export interface JsonRpcErrorResponse {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
}
/** Any JSON-RPC 2.0 message: a request, a notification, a result or an error response. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResult | JsonRpcErrorResponse;

/** JSON-RPC's own error codes (and MCP's use of them). */
export const RPC = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
});

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is JsonRpcId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

export const isRequest = (m: JsonRpcMessage): m is JsonRpcRequest => "method" in m && "id" in m;
export const isNotification = (m: JsonRpcMessage): m is JsonRpcNotification => "method" in m && !("id" in m);
export const isResult = (m: JsonRpcMessage): m is JsonRpcResult => "result" in m;
export const isErrorResponse = (m: JsonRpcMessage): m is JsonRpcErrorResponse => "error" in m;

/**
 * A JSON value as a JSON-RPC message, or why it is not one (a batch, a
 * missing `jsonrpc: "2.0"`, a request without a method, a response with both
 * or neither of result and error, ...).
 */
export function toMessage(value: JsonValue): JsonRpcMessage | string {
  if (Array.isArray(value)) return "a batch (JSON-RPC batches are not part of MCP since 2025-06-18)";
  if (!isObject(value)) return "not a JSON object";
  if (value["jsonrpc"] !== "2.0") return 'no "jsonrpc": "2.0"';
  const hasId = Object.hasOwn(value, "id");
  if (Object.hasOwn(value, "method")) {
    if (typeof value["method"] !== "string" || value["method"] === "") return "a method that is not a non-empty string";
    if (Object.hasOwn(value, "params") && !isObject(value["params"])) return "params that are not an object";
    if (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) return "a request with a result or an error";
    if (hasId && !isId(value["id"])) return "an id that is not a string or a number";
    return value as unknown as JsonRpcMessage;
  }
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult === hasError) return "neither a request, a notification, a result nor an error";
  if (hasResult) {
    if (!isId(value["id"])) return "a result whose id is not a string or a number";
    if (!isObject(value["result"])) return "a result that is not an object";
    return value as unknown as JsonRpcMessage;
  }
  const id = value["id"];
  if (!(id === null || isId(id))) return "an error whose id is not a string, a number or null";
  const e = value["error"];
  if (!isObject(e) || typeof e["code"] !== "number" || !Number.isInteger(e["code"]) || typeof e["message"] !== "string") return "an error without an integer code and a message";
  return value as unknown as JsonRpcMessage;
}

/**
 * Text or bytes from the other side as a JSON-RPC message, through the
 * strict JSON boundary; or why not. A tools/list answer the boundary refuses
 * whole is read again tool by tool (`readToolsList`): an entry it
 * refuses is left out of the listing alone, with its reason.
 */
export function parseMessage(input: string | Uint8Array): JsonRpcMessage | string {
  const r = tryParseJson(input);
  if (r.ok) return toMessage(r.value);
  const text = r.error.code === "JSON_INVALID_UTF8" ? "" : typeof input === "string" ? input : decodeUtf8Fatal(input);
  const listing = text.includes('"tools"') ? readToolsList(text) : undefined;
  return listing === undefined ? `not valid JSON: ${r.error.message}` : toMessage(listing);
}

/** An error response. */
export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: JsonValue): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A result response. */
export function resultResponse(id: JsonRpcId, result: JsonObject): JsonRpcResult {
  return { jsonrpc: "2.0", id, result };
}
