/**
 * IP addresses: `ipv4` (the dotted-quad of RFC 2673, section 3.2: four
 * decimal octets, no leading zeros) and `ipv6` (the text forms of RFC 4291,
 * section 2.2, which RFC 3986's IPv6address spells out; no zone index).
 */

const DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const IPV4 = new RegExp(`^${DEC_OCTET}(?:\\.${DEC_OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** RFC 2673 dotted-quad: `192.168.0.1`; `01.2.3.4` and `256.0.0.1` are not. */
export function isIpv4(s: string): boolean {
  return IPV4.test(s);
}

/**
 * Whether the text is an IPv6 address: groups of 1 to 4 hexadecimal digits,
 * an IPv4 address in the place of the last two, and at most one "::"
 * standing for `minElided` or more groups of zeros (1 in RFC 4291; 2 in
 * RFC 5321's address literals).
 */
export function isIpv6Text(s: string, minElided: 1 | 2): boolean {
  const halves = s.split("::");
  if (halves.length > 2) return false;
  const split = (h: string): string[] => (h === "" ? [] : h.split(":"));
  const head = split(halves[0]!);
  const tail = halves.length === 2 ? split(halves[1]!) : undefined;
  const groups = tail === undefined ? head : [...head, ...tail];
  // An IPv4 address can only end the text ("1.2.3.4::" is not an address).
  const last = tail === undefined || tail.length > 0 ? groups.length - 1 : -1;
  let count = 0;
  for (let k = 0; k < groups.length; k++) {
    const g = groups[k]!;
    if (k === last && g.includes(".")) {
      if (!IPV4.test(g)) return false;
      count += 2;
    } else if (HEX_GROUP.test(g)) count += 1;
    else return false;
  }
  return tail === undefined ? count === 8 : count <= 8 - minElided;
}

/** RFC 4291 text form: `::1`, `2001:db8::7`, `::ffff:192.0.2.1`. */
export function isIpv6(s: string): boolean {
  return isIpv6Text(s, 1);
}
