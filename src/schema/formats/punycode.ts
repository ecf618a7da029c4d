/**
 * Punycode (RFC 3492), the ASCII form of an internationalised label: decode,
 * and encode to check that a label is the one canonical encoding of what it
 * decodes to. Code points in, code points out.
 */

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;
const MAX = 0x7fffffff;

function adapt(delta: number, points: number, first: boolean): number {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  while (delta > ((BASE - T_MIN) * T_MAX) >> 1) {
    delta = Math.floor(delta / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * delta) / (delta + SKEW));
}

function digitOf(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 22; // 0-9: 26-35
  if (c >= 0x41 && c <= 0x5a) return c - 0x41; // A-Z: 0-25
  if (c >= 0x61 && c <= 0x7a) return c - 0x61; // a-z: 0-25
  return -1;
}

const digitChar = (d: number): string => String.fromCharCode(d < 26 ? d + 0x61 : d + 22);

/** The code points a Punycode string decodes to, or undefined when it is not valid Punycode. */
export function punycodeDecode(input: string): number[] | undefined {
  const out: number[] = [];
  const delimiter = input.lastIndexOf("-");
  for (let k = 0; k < Math.max(delimiter, 0); k++) {
    const c = input.charCodeAt(k);
    if (c >= 0x80) return undefined;
    out.push(c);
  }
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let pos = delimiter > 0 ? delimiter + 1 : 0; pos < input.length;) {
    const oldi = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (pos >= input.length) return undefined;
      const digit = digitOf(input.charCodeAt(pos++));
      if (digit < 0 || digit > Math.floor((MAX - i) / w)) return undefined;
      i += digit * w;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      if (w > Math.floor(MAX / (BASE - t))) return undefined;
      w *= BASE - t;
    }
    bias = adapt(i - oldi, out.length + 1, oldi === 0);
    if (Math.floor(i / (out.length + 1)) > MAX - n) return undefined;
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return undefined;
    out.splice(i, 0, n);
    i++;
  }
  return out;
}

/** The Punycode encoding of code points (lower-case digits). */
export function punycodeEncode(input: readonly number[]): string {
  let out = "";
  for (const c of input) if (c < 0x80) out += String.fromCharCode(c);
  const basic = out.length;
  let handled = basic;
  if (basic > 0) out += "-";
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (handled < input.length) {
    let m = MAX;
    for (const c of input) if (c >= n && c < m) m = c;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of input) {
      if (c < n) delta++;
      if (c !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
        if (q < t) break;
        out += digitChar(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      out += digitChar(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return out;
}
