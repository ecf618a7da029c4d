/**
 * Reference implementations of what src/json promises, written for clarity
 * rather than speed, from the rules docs/json.md and the code's comments state:
 * a strict JSON scanner that names the first refusal in document order (its
 * code, its reason and where), the Unicode standard's table of well-formed
 * UTF-8, and canonical JSON (RFC 8785) built from JSON.stringify with keys
 * sorted by UTF-16 code units. The tests hold the fast implementations to
 * them on generated inputs: any difference in verdict, message or position
 * fails (issue 21: mutation testing found the fast paths' details untested).
 */

export interface RefFailure {
  readonly code: string;
  readonly reason: string;
  readonly at: number;
}

class Stop {
  constructor(readonly failure: RefFailure) {}
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string): boolean => /^[0-9A-Fa-f]$/.test(c);
const isLow = (u: number): boolean => u >= 0xdc00 && u <= 0xdfff;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** One character of `s` as a message shows it: quoted when printable ASCII, else U+XXXX of its code point. */
export function showChar(s: string, at: number): string {
  if (at >= s.length) return "end of input";
  const cp = s.codePointAt(at)!;
  return cp >= 0x21 && cp <= 0x7e ? JSON.stringify(String.fromCodePoint(cp)) : `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The first refusal of `s` as one strict JSON text nested at most `maxDepth` deep, or null. */
export function referenceScan(s: string, maxDepth: number): RefFailure | null {
  const n = s.length;
  let i = 0;
  const stop = (code: string, reason: string, at: number): never => {
    throw new Stop({ code, reason, at });
  };
  const syntax = (reason: string, at: number): never => stop("JSON_SYNTAX", reason, at);
  const ws = (): void => {
    while (i < n && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  };
  const unexpected = (at: number): never => {
    if (at >= n) return syntax("unexpected end of input", at);
    const c = s[at]!;
    if (c === "/") return syntax("comments are not allowed in JSON", at);
    if (c === "\ufeff" && at === 0) return syntax("a byte order mark is not allowed", at);
    if (c === "t" || c === "f" || c === "n") return syntax("invalid literal: expected true, false or null", at);
    return syntax(`unexpected character ${showChar(s, at)}`, at);
  };
  const expectedAfter = (at: number, close: string): never => {
    if (at >= n || s[at] === "/") return unexpected(at);
    return syntax(`expected "," or "${close}", found ${showChar(s, at)}`, at);
  };

  /** The string at i (its opening quote), decoded; i moves past it. */
  const string = (): string => {
    const i0 = i;
    i++;
    let out = "";
    for (;;) {
      if (i >= n) return syntax("unterminated string", i0);
      const u = s.charCodeAt(i);
      if (u === 0x22) {
        i++;
        return out;
      }
      if (u < 0x20) return syntax(`unescaped control character ${showChar(s, i)} in a string`, i);
      if (u >= 0xd800 && u <= 0xdfff) {
        if (u <= 0xdbff && i + 1 < n && isLow(s.charCodeAt(i + 1))) {
          out += s.slice(i, i + 2);
          i += 2;
          continue;
        }
        return stop("JSON_LONE_SURROGATE", `unpaired surrogate ${showChar(s, i)} in a string`, i);
      }
      if (u !== 0x5c) {
        out += s[i];
        i++;
        continue;
      }
      if (i + 1 >= n) return syntax("unterminated string", i0);
      const e = s[i + 1]!;
      if (e in ESCAPES) {
        out += ESCAPES[e];
        i += 2;
        continue;
      }
      if (e !== "u") return syntax(`invalid escape: a backslash followed by ${showChar(s, i + 1)} in a string`, i);
      const h = s.slice(i + 2, i + 6);
      if (h.length < 4 || ![...h].every(isHex)) return syntax("invalid unicode escape in a string", i);
      const unit = parseInt(h, 16);
      if (unit < 0xd800 || unit > 0xdfff) {
        out += String.fromCharCode(unit);
        i += 6;
        continue;
      }
      const h2 = s.slice(i + 8, i + 12);
      if (unit <= 0xdbff && s.slice(i + 6, i + 8) === "\\u" && h2.length === 4 && [...h2].every(isHex) && isLow(parseInt(h2, 16))) {
        out += String.fromCharCode(unit, parseInt(h2, 16));
        i += 12;
        continue;
      }
      return stop("JSON_LONE_SURROGATE", `unpaired surrogate "\\u${h}" in a string`, i);
    }
  };

  const number = (): void => {
    const start = i;
    if (s[i] === "-") i++;
    if (s[i] === "0") {
      i++;
      if (isDigit(s[i])) syntax("leading zeros are not allowed in numbers", start);
    } else if (isDigit(s[i])) {
      while (isDigit(s[i])) i++;
    } else syntax("invalid number", start);
    if (s[i] === ".") {
      i++;
      if (!isDigit(s[i])) syntax("invalid number: a digit must follow the decimal point", start);
      while (isDigit(s[i])) i++;
    }
    if (s[i] === "e" || s[i] === "E") {
      i++;
      if (s[i] === "+" || s[i] === "-") i++;
      if (!isDigit(s[i])) syntax("invalid number: a digit must follow the exponent", start);
      while (isDigit(s[i])) i++;
    }
    const text = s.slice(start, i);
    if (!Number.isFinite(Number(text))) stop("JSON_NUMBER_OUT_OF_RANGE", `number ${text.length > 24 ? `${text.slice(0, 24)}…` : text} is too large to represent`, start);
  };

  const value = (depth: number): void => {
    const c = s[i];
    if (c === '"') {
      string();
      return;
    }
    if (c === "[" || c === "{") {
      if (depth + 1 > maxDepth) stop("JSON_TOO_DEEP", `nesting deeper than ${maxDepth} levels`, i);
      i++;
      ws();
      if (c === "[") {
        if (s[i] === "]") {
          i++;
          return;
        }
        for (;;) {
          value(depth + 1);
          ws();
          if (s[i] === ",") {
            i++;
            ws();
            if (s[i] === "]") syntax("trailing comma", i);
            continue;
          }
          if (s[i] === "]") {
            i++;
            return;
          }
          expectedAfter(i, "]");
        }
      }
      if (s[i] === "}") {
        i++;
        return;
      }
      const keys = new Set<string>();
      let afterComma = false;
      for (;;) {
        if (s[i] !== '"') {
          if (i >= n || s[i] === "/") unexpected(i);
          if (afterComma && s[i] === "}") syntax("trailing comma", i);
          syntax(`expected a string key, found ${showChar(s, i)}`, i);
        }
        const k0 = i;
        const key = string();
        if (keys.has(key)) stop("JSON_DUPLICATE_KEY", `duplicate key ${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)}`, k0);
        keys.add(key);
        ws();
        if (s[i] !== ":") {
          if (i >= n || s[i] === "/") unexpected(i);
          syntax(`expected ":" after a key, found ${showChar(s, i)}`, i);
        }
        i++;
        ws();
        value(depth + 1);
        ws();
        if (s[i] === ",") {
          i++;
          ws();
          afterComma = true;
          continue;
        }
        if (s[i] === "}") {
          i++;
          return;
        }
        expectedAfter(i, "}");
      }
    }
    if (c === "-" || isDigit(c)) {
      number();
      return;
    }
    for (const literal of ["true", "false", "null"]) {
      if (s.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    unexpected(i);
  };

  try {
    ws();
    value(0);
    ws();
    if (i < n) {
      if (s[i] === "/") unexpected(i);
      syntax(`unexpected ${showChar(s, i)} after the JSON value`, i);
    }
    return null;
  } catch (e) {
    if (e instanceof Stop) return e.failure;
    throw e;
  }
}

/** Line and column (in characters, a surrogate pair being one) of code unit `at`. */
export function referencePosition(text: string, at: number): { line: number; column: number } {
  const before = text.slice(0, at);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: [...before.slice(lineStart)].length + 1 };
}

/** Unicode's table of well-formed UTF-8 byte sequences (The Unicode Standard, table 3-7): lead byte ranges and the range of each byte after it. */
const WELL_FORMED: [lead: [number, number], ...rest: [number, number][]][] = [
  [
    [0xc2, 0xdf],
    [0x80, 0xbf],
  ],
  [
    [0xe0, 0xe0],
    [0xa0, 0xbf],
    [0x80, 0xbf],
  ],
  [
    [0xe1, 0xec],
    [0x80, 0xbf],
    [0x80, 0xbf],
  ],
  [
    [0xed, 0xed],
    [0x80, 0x9f],
    [0x80, 0xbf],
  ],
  [
    [0xee, 0xef],
    [0x80, 0xbf],
    [0x80, 0xbf],
  ],
  [
    [0xf0, 0xf0],
    [0x90, 0xbf],
    [0x80, 0xbf],
    [0x80, 0xbf],
  ],
  [
    [0xf1, 0xf3],
    [0x80, 0xbf],
    [0x80, 0xbf],
    [0x80, 0xbf],
  ],
  [
    [0xf4, 0xf4],
    [0x80, 0x8f],
    [0x80, 0xbf],
    [0x80, 0xbf],
  ],
];
const hexByte = (b: number): string => `0x${b.toString(16).toUpperCase().padStart(2, "0")}`;

/** The first ill-formed sequence of `bytes`, by the table: its offset and reason, or null. */
export function referenceInvalidUtf8(bytes: Uint8Array): { offset: number; reason: string } | null {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const row = WELL_FORMED.find(([[lo, hi]]) => b >= lo && b <= hi);
    if (row === undefined) return { offset: i, reason: `invalid UTF-8 byte ${hexByte(b)}` };
    const [, ...rest] = row;
    for (let k = 1; k <= rest.length; k++) {
      if (i + k >= bytes.length) return { offset: i, reason: `truncated UTF-8 sequence ${[...bytes.subarray(i)].map(hexByte).join(" ")} at end of input` };
      const [lo, hi] = rest[k - 1]!;
      const c = bytes[i + k]!;
      if (c < lo || c > hi) return { offset: i, reason: `invalid UTF-8 sequence ${[...bytes.subarray(i, i + k + 1)].map(hexByte).join(" ")}` };
    }
    i += rest.length + 1;
  }
  return null;
}

/** Canonical JSON (RFC 8785) of plain JSON: JSON.stringify's scalars, keys sorted by UTF-16 code units, no whitespace. */
export function referenceCanonical(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(referenceCanonical).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${referenceCanonical(o[k])}`)
    .join(",")}}`;
}

// ---- generators ------------------------------------------------------------------------

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const hex4 = (r: () => number, unit: number): string => {
  const h = unit.toString(16).padStart(4, "0");
  return [...h].map((c) => (r() < 0.5 ? c.toUpperCase() : c)).join("");
};

/** A JSON string literal, as a person or another serialiser might write it: every escape form, both hex cases, raw and escaped non-ASCII. */
function stringText(r: () => number, long = false): string {
  let s = '"';
  for (let n = long ? 60 + Math.floor(r() * 20) : Math.floor(r() * 6); n > 0; n--) {
    switch (Math.floor(r() * 10)) {
      case 0:
        s += pick(r, ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]);
        break;
      case 1:
        s += `\\u${hex4(r, pick(r, [0x0, 0x1f, 0x22, 0x2f, 0x30, 0x39, 0x41, 0x46, 0x61, 0x66, 0x7f, 0xe9, 0x20ac, 0xd7ff, 0xe000, 0xfeff, 0xffff]))}`;
        break;
      case 2:
        s += `\\u${hex4(r, 0xd800 + Math.floor(r() * 0x400))}\\u${hex4(r, 0xdc00 + Math.floor(r() * 0x400))}`;
        break;
      case 3:
        // Raw characters of every UTF-8 width, and the surrogate pairs at the edges of their ranges (U+10000, U+103FF, U+10FFFF).
        s += pick(r, ["é", "€", "😀", "\u2028", "\u007f", "\ufeff", "ᐁ", "\u{10000}", "\u{103FF}", "\u{10FFFF}", "\u{40000}", "\u{FFFFF}"]);
        break;
      case 4:
        // Now and then an escape JSON.parse takes and the boundary refuses (an unpaired or misordered surrogate).
        if (r() < 0.2) s += pick(r, ["\\uDFFF", "\\udc00\\udc00", "\\ud800\\ue000", "\\ud800\\ndc00", "\\uDBFF"]);
        else s += pick(r, ["a", "b"]);
        break;
      default:
        s += pick(r, ["a", "b", "k", "0", "9", " ", "!", "~", ":", ",", "[", "{"]);
    }
  }
  return `${s}"`;
}

function numberText(r: () => number): string {
  switch (Math.floor(r() * 8)) {
    case 0:
      return "9".repeat(300 + Math.floor(r() * 20)); // around the 308 digits a double holds
    case 1:
      return `${pick(r, ["", "-"])}1${pick(r, ["e", "E"])}${pick(r, ["", "+", "-"])}${pick(r, ["308", "309", "400", "5"])}`;
    case 2:
      return `-${"1234567890".repeat(3)}.5e${pick(r, ["300", "310"])}`;
    default: {
      const int = pick(r, ["0", String(1 + Math.floor(r() * 9)), String(Math.floor(r() * 1e9))]);
      const frac = r() < 0.4 ? `.${Math.floor(r() * 1e6)}` : "";
      const exp = r() < 0.3 ? `${pick(r, ["e", "E"])}${pick(r, ["", "+", "-"])}${Math.floor(r() * 30)}` : "";
      return `${r() < 0.3 ? "-" : ""}${int}${frac}${exp}`;
    }
  }
}

const space = (r: () => number): string => (r() < 0.7 ? "" : pick(r, [" ", "\n", "\r\n", "\t", "  "]));

/** A JSON text (mostly valid) with every construct the scanner treats specially: long keys, big objects, repeated keys (also repeated after unescaping), depth. */
export function jsonText(r: () => number, depth = 0): string {
  const k = Math.floor(r() * (depth > 5 ? 4 : 7));
  switch (k) {
    case 0:
      return pick(r, ["true", "false", "null"]);
    case 1:
      return numberText(r);
    case 2:
      return stringText(r, r() < 0.05);
    case 3:
    case 4:
      return `[${space(r)}${Array.from({ length: Math.floor(r() * 4) }, () => jsonText(r, depth + 1)).join(`${space(r)},${space(r)}`)}${space(r)}]`;
    default: {
      const size = r() < 0.15 ? 13 + Math.floor(r() * 8) : Math.floor(r() * 4);
      const members: string[] = [];
      for (let m = 0; m < size; m++) {
        let key = r() < 0.05 ? stringText(r, true) : `"k${m}"`;
        if (m > 0 && r() < 0.03) key = `"k${Math.floor(r() * m)}"`; // repeated
        if (m > 0 && r() < 0.03) key = `"\\u006b${Math.floor(r() * m)}"`; // repeated once unescaped
        members.push(`${key}${space(r)}:${space(r)}${jsonText(r, depth + 1)}`);
      }
      return `{${space(r)}${members.join(`${space(r)},${space(r)}`)}${space(r)}}`;
    }
  }
}

const CORRUPTIONS = [
  "",
  ",",
  "]",
  "}",
  "[",
  "{",
  '"',
  "\\",
  "\\u",
  "\\u12",
  "\\u00/0",
  "\\u 123",
  "\\u-1ab",
  "\\ud800",
  "\\udc00",
  "\\uD83D\\u0041",
  "0",
  "00",
  "09",
  "-",
  "e",
  "E",
  ".",
  "+",
  "/",
  "//",
  " ",
  "\n",
  "\u0000",
  "\u001f",
  "\u007f",
  "\ud800",
  "\udc00",
  "\udfff",
  "\udc00\udc00",
  "\ud800\ue000",
  "\ufeff",
  "true",
  "nul",
  "tru",
  "fals",
  ":",
  '"a":1,',
  "!",
  "~",
  "x",
  "€",
  "😀",
  "1e999",
];

/** A text nested `levels` deep, arrays and objects mixed, around a small value. */
export function deepText(r: () => number, levels: number): string {
  let open = "";
  let close = "";
  for (let k = 0; k < levels; k++) {
    if (r() < 0.5) {
      open += r() < 0.3 ? "[1, " : "[";
      close = `]${close}`;
    } else {
      open += r() < 0.3 ? '{"a": 1, "k": ' : '{"k":';
      close = `}${close}`;
    }
  }
  return open + jsonText(r, 6) + close;
}

/** A text from {@link jsonText} (or now and then {@link deepText}), usually with one piece inserted, removed or replaced somewhere. */
export function corrupted(r: () => number): string {
  const base = r() < 0.05 ? deepText(r, 50 + Math.floor(r() * 220)) : jsonText(r);
  if (r() < 0.2) return base;
  const at = Math.floor(r() * (base.length + 1));
  // Cut short: the text ends wherever a value, a key or a colon was due.
  if (r() < 0.15) return base.slice(0, at);
  const cut = Math.floor(r() * 3);
  return base.slice(0, at) + pick(r, CORRUPTIONS) + base.slice(at + cut);
}

/** A plain JSON value for the canonical writers: long and short strings (astral, control, quote, backslash), numbers of every form, many keys, repeated key names. */
export function plainValue(r: () => number, depth = 0): unknown {
  switch (Math.floor(r() * (depth > 4 ? 4 : 7))) {
    case 0:
      return pick(r, [null, true, false]);
    case 1:
      return pick(r, [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, -1.7976931348623157e308, 123456789.125, Math.floor(r() * 1e9) / 1000]);
    case 2: {
      const alphabet = [
        "a",
        "Z",
        "é",
        "ß",
        "€",
        "😀",
        '"',
        "\\",
        "\n",
        "\b",
        "\f",
        "\r",
        "\t",
        "\u0001",
        "\u001f",
        "\u007f",
        "\u0080",
        "\u07ff",
        "\u0800",
        "\ud7ff",
        "\ue000",
        "\uffff",
        "\u{10000}",
        "\u{103FF}",
        "\u{10FFFF}",
        "\u2028",
        "/",
        " ",
        "!",
      ];
      let s = "";
      for (let n = r() < 0.1 ? 65 + Math.floor(r() * 200) : Math.floor(r() * 10); n > 0; n--) s += pick(r, alphabet);
      return s;
    }
    case 3:
    case 4:
      return Array.from({ length: Math.floor(r() * 5) }, () => plainValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const size = r() < 0.2 ? 17 + Math.floor(r() * 10) : Math.floor(r() * 5);
      for (let m = 0; m < size; m++)
        o[pick(r, ["a", "b", "B", "aa", "é", "😀", "\u007f", "k10", "k9", "", "key with space"]) + (r() < 0.5 ? String(Math.floor(r() * 30)) : "")] = plainValue(r, depth + 1);
      return o;
    }
  }
}
