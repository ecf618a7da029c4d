/**
 * The formats whose grammar is one line: `uuid` (RFC 4122, section 3),
 * `json-pointer` (RFC 6901, section 3), `relative-json-pointer`
 * (draft-handrews-relative-json-pointer-01, section 3) and `regex`
 * (ECMA-262, as the platform's `RegExp` parses it with the `u` flag, the
 * dialect `pattern` uses too).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/u;
const RELATIVE_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~[01])*)*)$/u;

/** A UUID in its string form: 8-4-4-4-12 hexadecimal digits, any version or variant. */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/** A JSON Pointer: "" or "/"-separated tokens with "~" escaped as "~0" or "~1". */
export function isJsonPointer(s: string): boolean {
  return JSON_POINTER.test(s);
}

/** A Relative JSON Pointer: a non-negative integer, then "#" or a JSON Pointer. */
export function isRelativeJsonPointer(s: string): boolean {
  return RELATIVE_JSON_POINTER.test(s);
}

/** An ECMA-262 regular expression the platform compiles (with the `u` flag). Compiling a RegExp generates no code. */
export function isRegex(s: string): boolean {
  try {
    new RegExp(s, "u");
    return true;
  } catch {
    return false;
  }
}
