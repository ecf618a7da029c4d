/**
 * The `format` checkers: synchronous, exact, without eval, part of full
 * schema support (loaded apart from the core). Every format the JSON Schema
 * drafts define is either checked here, exactly as its RFC says, or named
 * in `UNCHECKED_FORMATS` (format-names.ts): a format that cannot be checked
 * exactly is never approximated.
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

export { formatSupport, UNCHECKED_FORMATS } from "../format-names.js";
