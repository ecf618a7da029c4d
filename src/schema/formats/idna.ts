/**
 * IDNA2008 labels: whether an A-label ("xn--...") is the Punycode of a valid
 * U-label (RFC 5891, section 5.4: NFC, hyphens, no leading mark, every code
 * point PVALID or allowed by its contextual rule of RFC 5892, Appendix A),
 * and the Bidi rule (RFC 5893) over a domain name's labels. The Unicode
 * properties come from idna-data.ts, one Unicode version for all of them,
 * so the verdicts do not depend on the platform's own Unicode tables.
 */
import { BIDI, JOINING, MARK, PVALID, SCRIPT, VIRAMA } from "./idna-data.js";
import { punycodeDecode, punycodeEncode } from "./punycode.js";

const TERMINAL = "ghijklmnopqrstuvwxyz0123456789-_";
const MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";

/** Sorted runs: starts, ends (exclusive) and values. */
interface Runs {
  readonly starts: number[];
  readonly ends: number[];
  readonly values: string[];
}

function decodeRuns(encoded: string, valued: boolean): Runs {
  const runs: Runs = { starts: [], ends: [], values: [] };
  let pos = 0;
  const varint = (): number => {
    let n = 0;
    for (let shift = 1; ; shift *= 32) {
      const c = encoded[pos++]!;
      const more = MORE.indexOf(c);
      if (more === -1) return n + TERMINAL.indexOf(c) * shift;
      n += more * shift;
    }
  };
  let end = 0;
  while (pos < encoded.length) {
    const start = end + varint();
    end = start + varint();
    runs.starts.push(start);
    runs.ends.push(end);
    runs.values.push(valued ? encoded[pos++]! : "");
  }
  return runs;
}

function lookup(runs: Runs, cp: number): string | undefined {
  let lo = 0;
  let hi = runs.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < runs.starts[mid]!) hi = mid - 1;
    else if (cp >= runs.ends[mid]!) lo = mid + 1;
    else return runs.values[mid];
  }
  return undefined;
}

// Decoded on first use: a schema without a hostname format never pays for it.
let tables: { pvalid: Runs; bidi: Runs; joining: Runs; mark: Runs; script: Runs; virama: ReadonlySet<number> } | undefined;
function data(): NonNullable<typeof tables> {
  return (tables ??= {
    pvalid: decodeRuns(PVALID, false),
    bidi: decodeRuns(BIDI, true),
    joining: decodeRuns(JOINING, true),
    mark: decodeRuns(MARK, true),
    script: decodeRuns(SCRIPT, true),
    virama: new Set(VIRAMA),
  });
}

const BIDI_NAMES: Record<string, string> = { a: "L", b: "R", c: "AL", d: "AN", e: "EN", f: "ES", g: "CS", h: "ET", i: "ON", j: "BN", k: "NSM" };
const bidiClass = (cp: number): string => BIDI_NAMES[lookup(data().bidi, cp) ?? "a"]!;
const joiningType = (cp: number): string => lookup(data().joining, cp) ?? "U";
const scriptOf = (cp: number): string | undefined => lookup(data().script, cp);

const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const isArabicIndic = (cp: number): boolean => cp >= 0x660 && cp <= 0x669;
const isExtendedArabicIndic = (cp: number): boolean => cp >= 0x6f0 && cp <= 0x6f9;

/** RFC 5892 Appendix A: whether a CONTEXTJ or CONTEXTO code point is allowed where it stands; undefined for any other code point. */
function contextAllows(label: readonly number[], k: number): boolean | undefined {
  const cp = label[k]!;
  const before = label[k - 1];
  const after = label[k + 1];
  switch (cp) {
    case ZWNJ: {
      if (before !== undefined && data().virama.has(before)) return true;
      // (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
      let j = k - 1;
      while (j >= 0 && joiningType(label[j]!) === "T") j--;
      if (j < 0 || !["L", "D"].includes(joiningType(label[j]!))) return false;
      j = k + 1;
      while (j < label.length && joiningType(label[j]!) === "T") j++;
      return j < label.length && ["R", "D"].includes(joiningType(label[j]!));
    }
    case ZWJ:
      return before !== undefined && data().virama.has(before);
    case 0xb7: // MIDDLE DOT: between two "l"s
      return before === 0x6c && after === 0x6c;
    case 0x375: // GREEK LOWER NUMERAL SIGN (KERAIA): followed by Greek
      return after !== undefined && scriptOf(after) === "G";
    case 0x5f3: // HEBREW PUNCTUATION GERESH and GERSHAYIM: preceded by Hebrew
    case 0x5f4:
      return before !== undefined && scriptOf(before) === "H";
    case 0x30fb: // KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han in the label
      return label.some((c) => c !== 0x30fb && ["I", "K", "N"].includes(scriptOf(c) ?? ""));
    default:
      if (isArabicIndic(cp)) return !label.some(isExtendedArabicIndic);
      if (isExtendedArabicIndic(cp)) return !label.some(isArabicIndic);
      return undefined;
  }
}

/** Whether code points form a valid U-label (RFC 5891, section 5.4, the Bidi rule aside). */
function isULabel(label: readonly number[]): boolean {
  if (label.length === 0) return false;
  if (label[0] === 0x2d || label[label.length - 1] === 0x2d) return false;
  if (label[2] === 0x2d && label[3] === 0x2d) return false;
  if (lookup(data().mark, label[0]!) !== undefined) return false;
  const text = String.fromCodePoint(...label);
  if (text.normalize("NFC") !== text) return false;
  for (let k = 0; k < label.length; k++) {
    if (lookup(data().pvalid, label[k]!) !== undefined) continue;
    if (contextAllows(label, k) !== true) return false;
  }
  return true;
}

/**
 * The code points of the U-label an A-label ("xn--" and Punycode) stands
 * for, or undefined when it is not a valid A-label: invalid Punycode, not
 * its canonical encoding, all ASCII, or not a valid U-label.
 */
export function decodeALabel(label: string): number[] | undefined {
  const payload = label.slice(4).toLowerCase();
  const decoded = punycodeDecode(payload);
  if (decoded === undefined || decoded.every((c) => c < 0x80)) return undefined;
  if (punycodeEncode(decoded) !== payload) return undefined;
  return isULabel(decoded) ? decoded : undefined;
}

/** Whether any label holds a right-to-left character (R, AL or AN): a "Bidi domain name". */
export function isBidiDomain(labels: readonly (readonly number[])[]): boolean {
  return labels.some((l) => l.some((c) => ["R", "AL", "AN"].includes(bidiClass(c))));
}

/** The Bidi rule of RFC 5893, section 2, for one label of a Bidi domain name. */
export function satisfiesBidiRule(label: readonly number[]): boolean {
  const classes = label.map(bidiClass);
  const first = classes[0];
  let end = classes.length - 1;
  while (end >= 0 && classes[end] === "NSM") end--;
  const last = classes[end];
  if (first === "R" || first === "AL") {
    const allowed = ["R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"];
    if (!classes.every((c) => allowed.includes(c))) return false;
    if (!["R", "AL", "EN", "AN"].includes(last ?? "")) return false;
    return !(classes.includes("EN") && classes.includes("AN"));
  }
  if (first === "L") {
    const allowed = ["L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"];
    return classes.every((c) => allowed.includes(c)) && (last === "L" || last === "EN");
  }
  return false;
}
