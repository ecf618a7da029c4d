/**
 * `email`: the Mailbox rule of RFC 5321, section 4.1.2: a dot-string or a
 * quoted string, "@", and a domain or an address literal (IPv4, or IPv6
 * by section 4.1.3, where "::" stands for two or more groups). The
 * General-address-literal form is refused: its tag must be registered, and
 * no tag but "IPv6" is.
 */
import { isIpv6Text } from "./ip.js";

// atext: ALPHA / DIGIT / "!#$%&'*+-/=?^_`{|}~"
const DOT_STRING = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
// qtextSMTP = %d32-33 / %d35-91 / %d93-126; quoted-pairSMTP = "\" %d32-126
const QUOTED_STRING = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
// sub-domain = Let-dig [Ldh-str]
const DOMAIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
// Snum = 1*3DIGIT, a value from 0 to 255
const SNUM = /^[0-9]{1,3}$/;

function isIpv4Literal(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => SNUM.test(p) && Number(p) <= 255);
}

/** The "@" that ends the local part: after a quoted string, or the first one. */
function localPartEnd(s: string): number {
  if (!s.startsWith('"')) return s.indexOf("@");
  for (let k = 1; k < s.length; k++) {
    if (s[k] === "\\") k++;
    else if (s[k] === '"') return s[k + 1] === "@" ? k + 1 : -1;
  }
  return -1;
}

/** RFC 5321 Mailbox: `joe.bloggs@example.com`, `"joe bloggs"@example.com`, `joe@[IPv6:::1]`. */
export function isEmail(s: string): boolean {
  const at = localPartEnd(s);
  if (at <= 0) return false;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  if (!DOT_STRING.test(local) && !QUOTED_STRING.test(local)) return false;
  if (domain.startsWith("[") && domain.endsWith("]")) {
    const literal = domain.slice(1, -1);
    // "IPv6:" is an ABNF string, so case-insensitive.
    if (literal.slice(0, 5).toLowerCase() === "ipv6:") return isIpv6Text(literal.slice(5), 2);
    return isIpv4Literal(literal);
  }
  return DOMAIN.test(domain);
}
