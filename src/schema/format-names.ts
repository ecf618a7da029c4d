/**
 * Which formats are checked, by name only: the checkers themselves
 * (formats/) are part of full schema support, loaded apart from the core.
 * A test holds {@link CHECKED_FORMATS} to the checkers' names.
 */

/** The formats checked exactly (by the checkers of formats/). */
export const CHECKED_FORMATS: readonly string[] = [
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
];

/**
 * Standard formats that are not checked, because an exact check needs
 * tables the core does not carry: `idn-hostname` (IDNA2008 over Unicode
 * labels, with the mappings of the lookup protocol) and `idn-email` (whose
 * domain is an idn-hostname). Asserting one of them is refused, never
 * approximated.
 */
export const UNCHECKED_FORMATS: readonly string[] = ["idn-email", "idn-hostname"];

/**
 * What asserting a format means: "checked" (a checker of formats/),
 * "unchecked" (a standard format it cannot check exactly: refused where
 * formats assert), or "annotation" (a format no draft defines, such as
 * zod's `cuid` or `base64`: never checked, as the drafts say).
 */
export function formatSupport(name: string): "checked" | "unchecked" | "annotation" {
  if (CHECKED_FORMATS.includes(name)) return "checked";
  return UNCHECKED_FORMATS.includes(name) ? "unchecked" : "annotation";
}

/** How the compiler's working copy names a format that asserts. */
export const ASSERTED_PREFIX = "isoagent:";

/** The format's own name, as messages show it. */
export function formatName(name: string): string {
  return name.startsWith(ASSERTED_PREFIX) ? name.slice(ASSERTED_PREFIX.length) : name;
}
