/**
 * Random ECMAScript patterns (u mode) from a grammar, and random inputs,
 * for the differential tests of the linear-time matcher against RegExp.
 * The grammar covers what the matcher takes: literals (ASCII, non-ASCII,
 * astral, lone surrogates), `.`, escapes (\d \D \w \W \s \S, \t \n, \x, \u,
 * \u{...}, surrogate pairs as two \u escapes, \p{...}, \P{...}, \c, \0,
 * identity escapes), classes (ranges, negated, empty, escapes inside),
 * groups (plain, capturing, named), alternation, quantifiers (greedy and
 * lazy, counted), and the assertions ^ $ \b \B.
 */
export type Random = () => number;

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const LITERALS = ["a", "b", "c", "A", "k", "s", "-", " ", "_", "0", "7", "é", "É", "ß", "σ", "Σ", "😀", "😂", "\uD83D", "\uDE00", ",", "/", "\u017F", "\u212A", "İ"];
const ESCAPES = [
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  "\\t",
  "\\n",
  "\\.",
  "\\*",
  "\\\\",
  "\\/",
  "\\(",
  "\\[",
  "\\{",
  "\\|",
  "\\^",
  "\\$",
  "\\x41",
  "\\x61",
  "\\xE9",
  "\\u0062",
  "\\u00C9",
  "\\u{1F600}",
  "\\u{61}",
  "\\uD83D\\uDE00",
  "\\uD83D",
  "\\uDE00",
  "\\u{D83D}",
  "\\p{L}",
  "\\P{L}",
  "\\p{Lu}",
  "\\p{Ll}",
  "\\p{N}",
  "\\p{Script=Greek}",
  "\\p{Emoji_Presentation}",
  "\\P{ASCII}",
  "\\p{White_Space}",
  "\\cA",
  "\\cj",
  "\\0",
  "\\f",
  "\\v",
  "\\r",
];
const CLASSES = [
  "[abc]",
  "[^abc]",
  "[a-c]",
  "[^a-c]",
  "[a-zA-Z0-9_]",
  "[\\d\\s]",
  "[^\\w]",
  "[\\p{L}0-9]",
  "[😀-😂]",
  "[\\uD83D\\uDE00-\\uD83D\\uDE02]",
  "[]",
  "[^]",
  "[\\-a]",
  "[a\\-]",
  "[-a]",
  "[.]",
  "[\\b]",
  "[é-ü]",
  "[\\u{1F600}x]",
  "[\\P{L}]",
  "[^\\s\\d]",
  "[k]",
  "[s-t]",
  "[\\uD83D]",
  "[ſ]",
  "[K]",
  "[\\]]",
  "[^/]",
];

/** A random pattern, `depth` levels of structure at most; `names` numbers its named groups. */
export function randomPattern(r: Random, depth = 3, names = { n: 0 }): string {
  const alts = r() < 0.2 ? int(r, 2, 3) : 1;
  const out: string[] = [];
  for (let a = 0; a < alts; a++) {
    const terms = int(r, r() < 0.1 ? 0 : 1, 4);
    let seq = "";
    for (let t = 0; t < terms; t++) seq += term(r, depth, names);
    out.push(seq);
  }
  return out.join("|");
}

function term(r: Random, depth: number, names: { n: number }): string {
  const roll = r();
  if (roll < 0.1) return pick(r, ["^", "$", "\\b", "\\B"]);
  let atom: string;
  if (roll < 0.25 && depth > 0) {
    const inner = randomPattern(r, depth - 1, names);
    const kind = r();
    atom = kind < 0.5 ? `(?:${inner})` : kind < 0.8 ? `(${inner})` : `(?<g${names.n++}>${inner})`;
  } else if (roll < 0.5) atom = pick(r, LITERALS);
  else if (roll < 0.7) atom = pick(r, ESCAPES);
  else if (roll < 0.85) atom = pick(r, CLASSES);
  else atom = ".";
  const q = r();
  if (q < 0.55) return atom;
  const lazy = r() < 0.3 ? "?" : "";
  if (q < 0.7) return `${atom}*${lazy}`;
  if (q < 0.8) return `${atom}+${lazy}`;
  if (q < 0.88) return `${atom}?${lazy}`;
  const m = int(r, 0, 3);
  const kind = r();
  return kind < 0.33 ? `${atom}{${m}}${lazy}` : kind < 0.66 ? `${atom}{${m},}${lazy}` : `${atom}{${m},${m + int(r, 0, 3)}}${lazy}`;
}

const INPUT_CHARS = [
  "a",
  "b",
  "c",
  "A",
  "B",
  "k",
  "K",
  "s",
  "S",
  "-",
  " ",
  "_",
  "0",
  "7",
  ".",
  "/",
  "\n",
  "\t",
  "\r",
  "\u2028",
  "\u00A0",
  "\uFEFF",
  "é",
  "É",
  "ü",
  "ß",
  "σ",
  "Σ",
  "ς",
  "α",
  "😀",
  "😁",
  "😂",
  "\uD83D",
  "\uDE00",
  "\u017F",
  "\u212A",
  "İ",
  "ı",
  "\u0001",
  "\b",
  "ÿ",
  "中",
];

/** A random input: up to `max` characters from an alphabet that meets every atom above (lone surrogates too). */
export function randomInput(r: Random, max = 12): string {
  let s = "";
  const n = int(r, 0, max);
  for (let k = 0; k < n; k++) s += pick(r, INPUT_CHARS);
  return s;
}
