/**
 * `hostname`: RFC 1123, section 2.1 (labels of letters, digits and inner
 * hyphens, at most 63 characters, at most 253 in all), including labels
 * produced by the Punycode algorithm of RFC 5891, section 4.4: an "xn--"
 * label must be a valid A-label, and a name holding a right-to-left label
 * must satisfy the Bidi rule of RFC 5893 in every label. Host names are
 * case-insensitive (RFC 4343), so an A-label is read in lower case, as the
 * IDNA2008 authors advise for labels that look like A-labels.
 */
import { decodeALabel, isBidiDomain, satisfiesBidiRule } from "./idna.js";

const LDH_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** RFC 1123 host name, with IDNA2008 A-labels checked: `www.example.com`, `xn--9n2bp8q.xn--9t4b11yi5a`. */
export function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 253) return false;
  const labels: number[][] = [];
  for (const label of s.split(".")) {
    if (!LDH_LABEL.test(label)) return false;
    if (label.length >= 4 && label.slice(0, 4).toLowerCase() === "xn--") {
      const u = decodeALabel(label);
      if (u === undefined) return false;
      labels.push(u);
    } else {
      labels.push(Array.from(label, (c) => c.charCodeAt(0)));
    }
  }
  return !isBidiDomain(labels) || labels.every(satisfiesBidiRule);
}
