/**
 * URIs and IRIs: `uri` and `uri-reference` (RFC 3986: URI, URI-reference),
 * `iri` and `iri-reference` (RFC 3987: IRI, IRI-reference, which allow the
 * `ucschar` range everywhere and `iprivate` in the query), and
 * `uri-template` (RFC 6570, every level). Each follows its ABNF rule for
 * rule; nothing is resolved, normalised or fetched.
 */
import { isIpv6Text } from "./ip.js";

const UNRESERVED = "A-Za-z0-9\\-._~";
const SUB_DELIMS = "!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const UCSCHAR =
  "\\u{A0}-\\u{D7FF}\\u{F900}-\\u{FDCF}\\u{FDF0}-\\u{FFEF}\\u{10000}-\\u{1FFFD}\\u{20000}-\\u{2FFFD}\\u{30000}-\\u{3FFFD}" +
  "\\u{40000}-\\u{4FFFD}\\u{50000}-\\u{5FFFD}\\u{60000}-\\u{6FFFD}\\u{70000}-\\u{7FFFD}\\u{80000}-\\u{8FFFD}\\u{90000}-\\u{9FFFD}" +
  "\\u{A0000}-\\u{AFFFD}\\u{B0000}-\\u{BFFFD}\\u{C0000}-\\u{CFFFD}\\u{D0000}-\\u{DFFFD}\\u{E1000}-\\u{EFFFD}";
const IPRIVATE = "\\u{E000}-\\u{F8FF}\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}";

/** `^(?:[chars]|%XX)*$` (or `+`), with the u flag. */
const run = (chars: string, min: "*" | "+" = "*"): RegExp => new RegExp(`^(?:[${chars}]|${PCT})${min}$`, "u");

interface Grammar {
  readonly segment: RegExp;
  /** The first segment of a relative path: no ":" (path-noscheme). */
  readonly firstRelative: RegExp;
  readonly query: RegExp;
  readonly fragment: RegExp;
  readonly userinfo: RegExp;
  readonly regName: RegExp;
}

function grammar(iri: boolean): Grammar {
  const u = iri ? UNRESERVED + UCSCHAR : UNRESERVED;
  return {
    segment: run(`${u}${SUB_DELIMS}:@`),
    firstRelative: run(`${u}${SUB_DELIMS}@`),
    query: run(`${u}${SUB_DELIMS}:@/?${iri ? IPRIVATE : ""}`),
    fragment: run(`${u}${SUB_DELIMS}:@/?`),
    userinfo: run(`${u}${SUB_DELIMS}:`),
    regName: run(`${u}${SUB_DELIMS}`),
  };
}

const URI = grammar(false);
const IRI = grammar(true);
const SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*$/;
// RFC 3986 Appendix B, splitting a reference into its five parts.
const PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/su;
// "v" is an ABNF string: case-insensitive.
const IP_FUTURE = new RegExp(`^[vV][0-9A-Fa-f]+\\.[${UNRESERVED}${SUB_DELIMS}:]+$`);
const PORT = /^[0-9]*$/;

function isAuthority(authority: string, g: Grammar): boolean {
  const at = authority.indexOf("@");
  if (at !== -1 && !g.userinfo.test(authority.slice(0, at))) return false;
  const hostPort = at === -1 ? authority : authority.slice(at + 1);
  let port = "";
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close === -1) return false;
    const literal = hostPort.slice(1, close);
    if (!isIpv6Text(literal, 1) && !IP_FUTURE.test(literal)) return false;
    const rest = hostPort.slice(close + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return false;
      port = rest.slice(1);
    }
  } else {
    const colon = hostPort.indexOf(":");
    if (!g.regName.test(colon === -1 ? hostPort : hostPort.slice(0, colon))) return false;
    if (colon !== -1) port = hostPort.slice(colon + 1);
  }
  return PORT.test(port);
}

function isReference(s: string, g: Grammar, absolute: boolean): boolean {
  const m = PARTS.exec(s);
  if (m === null) return false;
  const [, scheme, authority, path, query, fragment] = m;
  if (scheme !== undefined && !SCHEME.test(scheme)) return false;
  if (absolute && scheme === undefined) return false;
  if (authority !== undefined && !isAuthority(authority, g)) return false;
  const segments = path!.split("/");
  for (let k = 0; k < segments.length; k++) {
    // Without a scheme or an authority, a relative path's first segment has no ":" (path-noscheme).
    const rule = k === 0 && scheme === undefined && authority === undefined ? g.firstRelative : g.segment;
    if (!rule.test(segments[k]!)) return false;
  }
  if (query !== undefined && !g.query.test(query)) return false;
  return fragment === undefined || g.fragment.test(fragment);
}

/** RFC 3986 URI: a scheme, then the rest; `http://example.com/a?b#c`, `urn:isbn:0451450523`. */
export const isUri = (s: string): boolean => isReference(s, URI, true);
/** RFC 3986 URI-reference: a URI or a relative reference (`../a`, `#frag`, ""). */
export const isUriReference = (s: string): boolean => isReference(s, URI, false);
/** RFC 3987 IRI: a URI that may also hold non-ASCII characters (`http://ƒøø.ßår/`). */
export const isIri = (s: string): boolean => isReference(s, IRI, true);
/** RFC 3987 IRI-reference. */
export const isIriReference = (s: string): boolean => isReference(s, IRI, false);

// RFC 6570, section 2: literals, and expressions of every level. Literals as
// corrected by verified erratum 6937 (%x26-3B, which lets "'" in, as the
// RFC's own example '{var}' needs).
const LITERAL = `[!#$&-;=?-\\[\\]_a-z~${UCSCHAR}${IPRIVATE}]|${PCT}`;
const VARCHAR = `(?:[A-Za-z0-9_]|${PCT})`;
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9][0-9]{0,3}|\\*)?`;
const EXPRESSION = `\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\}`;
const URI_TEMPLATE = new RegExp(`^(?:${LITERAL}|${EXPRESSION})*$`, "u");

/** RFC 6570 URI Template: `/users/{id}{?fields*}`. */
export function isUriTemplate(s: string): boolean {
  return URI_TEMPLATE.test(s);
}
