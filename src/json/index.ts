/**
 * Strict JSON at the boundary: a parser that refuses what cannot be stored or
 * hashed faithfully, canonical JSON (RFC 8785) and SHA-256 over it.
 *
 * @module
 */
export { JsonBoundaryError, type JsonErrorCode, type JsonPosition } from "./errors.js";
export { MAX_JSON_DEPTH, parseJson, tryParseJson, type JsonParseResult, type JsonValue, type ParseJsonOptions } from "./parse.js";
export { canonicalJson, cloneJson, hashJson, hashJsonSync, JsonValueError, sha256Hex, toHex, type JsonValueErrorCode } from "./canonical.js";
export { isWellFormed } from "./well-formed.js";
export { sha256HexSync } from "./sha256.js";
