/**
 * isoagent/json: strict JSON at the boundary, a parser that refuses what
 * cannot be stored or hashed faithfully (repeated keys, lone surrogates,
 * numbers out of range, nesting past a limit), canonical JSON (RFC 8785)
 * and SHA-256 over it. For code that takes JSON from outside (a model, an
 * HTTP client, a stored bundle) and must read it as isoagent does, or hash
 * it as the journal does. An application needs only `JsonValue`, which the
 * root exports.
 *
 * @module
 */
export { JsonBoundaryError, type JsonErrorCode, type JsonPosition } from "./errors.js";
export { MAX_JSON_DEPTH, parseJson, tryParseJson, type JsonParseResult, type JsonValue, type ParseJsonOptions } from "./parse.js";
export { canonicalJson, cloneJson, hashJson, hashJsonSync, JsonValueError, sha256Hex, type JsonValueErrorCode } from "./canonical.js";
export { isWellFormed } from "./well-formed.js";
export { sha256HexSync } from "./sha256.js";
