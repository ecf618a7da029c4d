/**
 * Strings that match a regular expression, for the fuzzer: a sampler for the
 * part of the syntax tool schemas use (literals, escapes, classes, groups,
 * alternation, quantifiers, anchors). Anything else (lookaround,
 * backreferences, Unicode properties) throws, and the fuzzer falls back.
 */
import { IsoagentError } from "../errors.js";
type Node = { t: "lit"; c: string } | { t: "set"; chars: string[] } | { t: "seq"; items: Node[] } | { t: "alt"; options: Node[] } | { t: "rep"; node: Node; min: number; max: number };

const DIGITS = "0123456789";
const WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
const SPACE = " \t";
const PRINTABLE = Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)).join("");

/** A pattern the sampler cannot make strings for. Code `REGEX_SAMPLE_UNSUPPORTED`. */
class Unsupported extends IsoagentError {
  constructor(message: string) {
    super("REGEX_SAMPLE_UNSUPPORTED", message);
  }
}

function classEscape(c: string): string[] | undefined {
  switch (c) {
    case "d":
      return [...DIGITS];
    case "w":
      return [...WORD];
    case "s":
      return [...SPACE];
    case "D":
      return [...PRINTABLE].filter((x) => !DIGITS.includes(x));
    case "W":
      return [...PRINTABLE].filter((x) => !WORD.includes(x));
    case "S":
      return [...PRINTABLE].filter((x) => !SPACE.includes(x));
    case "n":
      return ["\n"];
    case "t":
      return ["\t"];
    case "r":
      return ["\r"];
    default:
      return undefined;
  }
}

function parse(src: string): Node {
  let i = 0;
  const peek = (): string | undefined => src[i];
  const alt = (): Node => {
    const options = [seq()];
    while (peek() === "|") {
      i++;
      options.push(seq());
    }
    return options.length === 1 ? options[0]! : { t: "alt", options };
  };
  const seq = (): Node => {
    const items: Node[] = [];
    while (i < src.length && peek() !== "|" && peek() !== ")") items.push(quantified(atom()));
    return { t: "seq", items };
  };
  const number = (): number => {
    const m = /^\d+/.exec(src.slice(i));
    if (!m) throw new Unsupported("quantifier");
    i += m[0].length;
    return Number(m[0]);
  };
  const quantified = (node: Node): Node => {
    const c = peek();
    let min: number;
    let max: number;
    if (c === "*") ((min = 0), (max = 3), i++);
    else if (c === "+") ((min = 1), (max = 4), i++);
    else if (c === "?") ((min = 0), (max = 1), i++);
    else if (c === "{" && /^\{\d+(,\d*)?\}/.test(src.slice(i))) {
      i++;
      min = number();
      max = min;
      if (peek() === ",") {
        i++;
        max = peek() === "}" ? min + 3 : number();
      }
      i++; // }
    } else return node;
    if (peek() === "?") i++; // lazy: same strings
    return { t: "rep", node, min, max };
  };
  const setChars = (): string[] => {
    i++; // [
    let negate = false;
    if (peek() === "^") {
      negate = true;
      i++;
    }
    const chars: string[] = [];
    let first = true;
    while (i < src.length && (peek() !== "]" || first)) {
      first = false;
      let c = src[i++]!;
      if (c === "\\") {
        const e = src[i++]!;
        const cls = classEscape(e);
        if (cls !== undefined) {
          chars.push(...cls);
          continue;
        }
        if (e === "u") {
          c = String.fromCharCode(parseInt(src.slice(i, i + 4), 16));
          i += 4;
        } else c = e;
      }
      if (peek() === "-" && src[i + 1] !== "]" && src[i + 1] !== undefined) {
        i++;
        let end = src[i++]!;
        if (end === "\\") {
          const e = src[i++]!;
          if (e === "u") {
            end = String.fromCharCode(parseInt(src.slice(i, i + 4), 16));
            i += 4;
          } else end = e;
        }
        for (let k = c.charCodeAt(0); k <= end.charCodeAt(0) && k - c.charCodeAt(0) < 2000; k++) {
          if (k < 0xd800 || k > 0xdfff) chars.push(String.fromCharCode(k));
        }
      } else chars.push(c);
    }
    i++; // ]
    if (!negate) return chars;
    return [...PRINTABLE].filter((x) => !chars.includes(x));
  };
  const atom = (): Node => {
    const c = src[i]!;
    if (c === "(") {
      i++;
      if (src.startsWith("?:", i)) i += 2;
      else if (src[i] === "?") throw new Unsupported("lookaround or named group");
      const inner = alt();
      if (peek() !== ")") throw new Unsupported("unclosed group");
      i++;
      return inner;
    }
    if (c === "[") return { t: "set", chars: setChars() };
    if (c === ".") {
      i++;
      return { t: "set", chars: [...PRINTABLE] };
    }
    if (c === "^" || c === "$") {
      i++;
      return { t: "seq", items: [] };
    }
    if (c === "\\") {
      const e = src[i + 1]!;
      i += 2;
      const cls = classEscape(e);
      if (cls !== undefined) return { t: "set", chars: cls };
      if (/[1-9kpPbB]/.test(e)) throw new Unsupported(`\\${e}`);
      if (e === "u") {
        const ch = String.fromCharCode(parseInt(src.slice(i, i + 4), 16));
        i += 4;
        return { t: "lit", c: ch };
      }
      return { t: "lit", c: e };
    }
    i++;
    return { t: "lit", c };
  };
  const node = alt();
  if (i !== src.length) throw new Unsupported("trailing syntax");
  return node;
}

function sample(node: Node, rand: () => number): string {
  switch (node.t) {
    case "lit":
      return node.c;
    case "set":
      if (node.chars.length === 0) throw new Unsupported("empty class");
      return node.chars[Math.floor(rand() * node.chars.length)]!;
    case "seq":
      return node.items.map((n) => sample(n, rand)).join("");
    case "alt":
      return sample(node.options[Math.floor(rand() * node.options.length)]!, rand);
    case "rep": {
      const n = node.min + Math.floor(rand() * (node.max - node.min + 1));
      let out = "";
      for (let k = 0; k < n; k++) out += sample(node.node, rand);
      return out;
    }
  }
}

/** A string matching `pattern` (tried a few times), or undefined when the sampler cannot. */
export function sampleMatching(pattern: string, rand: () => number): string | undefined {
  let node: Node;
  let re: RegExp;
  try {
    node = parse(pattern);
    re = new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const s = sample(node, rand);
      if (re.test(s)) return s;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
