/**
 * The `format` checkers: synchronous, exact, without eval, in a module of
 * their own (so that a build can load them apart from the core). Every
 * format the JSON Schema drafts define is either checked here, exactly as
 * its RFC says, or named in {@link UNCHECKED_FORMATS}: a format that cannot
 * be checked exactly is never approximated.
 *
 * @example
 * ```ts
 * FORMAT_CHECKERS["date-time"]!("2024-02-29T12:00:00Z")   // true
 * FORMAT_CHECKERS["email"]!("not-an-email")               // false
 * ```
 *
 * @module
 */
import { isDate, isDateTime, isDuration, isTime } from "./dates.js";
import { isEmail } from "./email.js";
import { isHostname } from "./hostname.js";
import { isIpv4, isIpv6 } from "./ip.js";
import { isJsonPointer, isRegex, isRelativeJsonPointer, isUuid } from "./simple.js";
import { isIri, isIriReference, isUri, isUriReference, isUriTemplate } from "./uri.js";

/** Checks one string against a format. */
export type FormatChecker = (value: string) => boolean;

/** The checker of each format checked exactly, by name. */
export const FORMAT_CHECKERS: Readonly<Record<string, FormatChecker>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, FormatChecker>, {
    "date-time": isDateTime,
    date: isDate,
    time: isTime,
    duration: isDuration,
    email: isEmail,
    hostname: isHostname,
    ipv4: isIpv4,
    ipv6: isIpv6,
    uri: isUri,
    "uri-reference": isUriReference,
    iri: isIri,
    "iri-reference": isIriReference,
    uuid: isUuid,
    "uri-template": isUriTemplate,
    "json-pointer": isJsonPointer,
    "relative-json-pointer": isRelativeJsonPointer,
    regex: isRegex,
  }),
);

/**
 * Standard formats that are not checked, because an exact check needs
 * tables the core does not carry: `idn-hostname` (IDNA2008 over Unicode
 * labels, with the mappings of the lookup protocol) and `idn-email` (whose
 * domain is an idn-hostname). Asserting one of them is refused, never
 * approximated.
 */
export const UNCHECKED_FORMATS: readonly string[] = ["idn-email", "idn-hostname"];

/**
 * What asserting a format means: "checked" (a checker of this module),
 * "unchecked" (a standard format it cannot check exactly: refused where
 * formats assert), or "annotation" (a format no draft defines, such as
 * zod's `cuid` or `base64`: never checked, as the drafts say).
 */
export function formatSupport(name: string): "checked" | "unchecked" | "annotation" {
  if (FORMAT_CHECKERS[name] !== undefined) return "checked";
  return UNCHECKED_FORMATS.includes(name) ? "unchecked" : "annotation";
}
