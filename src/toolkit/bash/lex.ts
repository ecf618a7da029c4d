/**
 * The lexer of the command analysis (words.ts): bash's words, quotes,
 * operators, redirections, here-documents and substitutions, as tokens
 * with their place in the text. A word's value is known only when it is
 * literal (after quote removal); a word that needs expansion ($, `, globs,
 * braces, ~user) has none, and the analysis leaves it to the filesystem's
 * own checks. Here-document bodies are data and left out; the texts of
 * command substitutions are collected, to be analyzed in turn.
 */

export interface Word {
  readonly kind: "word";
  readonly start: number;
  readonly end: number;
  /** The value after quote removal, or undefined when it needs expansion ($, `, globs, braces, ~user). */
  readonly value: string | undefined;
}
interface Op {
  readonly kind: "op";
  readonly start: number;
  readonly end: number;
  readonly op: string;
}
export interface Redir {
  readonly kind: "redir";
  readonly start: number;
  readonly end: number;
  readonly op: string;
  /** An explicit descriptor ("2" in 2>), if any. */
  readonly fd: string | undefined;
}
export type Token = Word | Op | Redir;

const OPS = ["&&", "||", ";;&", ";;", ";&", "|&", "&>>", "&>", ";", "|", "&", "(", ")", "\n"];
const REDIRS = ["<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">"];
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);

/** Skips a $( ... ) or ` ... ` or ${ ... } from `k` (at the opening), returning the index after it and the inner text of a command substitution. */
function skipExpansion(s: string, k: number, subs: string[]): number {
  if (s[k] === "`") {
    let j = k + 1;
    while (j < s.length && s[j] !== "`") j += s[j] === "\\" ? 2 : 1;
    subs.push(s.slice(k + 1, Math.min(j, s.length)));
    return Math.min(j + 1, s.length);
  }
  // s[k] === "$"
  const open = s[k + 1];
  if (open !== "(" && open !== "{") return k + 1;
  const arithmetic = open === "(" && s[k + 2] === "(";
  const close = open === "(" ? ")" : "}";
  let depth = 0;
  let j = k + 1;
  for (; j < s.length; j++) {
    const c = s[j]!;
    if (c === "\\") {
      j++;
      continue;
    }
    if (c === "'" && open === "(") {
      const e = s.indexOf("'", j + 1);
      j = e < 0 ? s.length : e;
      continue;
    }
    if (c === '"') {
      j = skipDouble(s, j, subs) - 1;
      continue;
    }
    if (c === "$" && (s[j + 1] === "(" || s[j + 1] === "{")) {
      j = skipExpansion(s, j, subs) - 1;
      continue;
    }
    if (c === open) depth++;
    else if (c === close) {
      depth--;
      if (depth === 0) break;
    }
  }
  if (open === "(" && !arithmetic) subs.push(s.slice(k + 2, Math.min(j, s.length)));
  return Math.min(j + 1, s.length);
}

/** Skips a double-quoted string from `k` (at the quote), returning the index after it; reports whether it expands anything. */
function skipDouble(s: string, k: number, subs: string[], expands?: { yes: boolean }): number {
  let j = k + 1;
  while (j < s.length && s[j] !== '"') {
    const c = s[j]!;
    if (c === "\\") j += 2;
    else if (c === "$" || c === "`") {
      if (expands !== undefined && (c === "`" || /[A-Za-z_{(0-9@*#?$!-]/.test(s[j + 1] ?? ""))) expands.yes = true;
      j = c === "`" ? skipExpansion(s, j, subs) : s[j + 1] === "(" || s[j + 1] === "{" ? skipExpansion(s, j, subs) : j + 1;
    } else j++;
  }
  return Math.min(j + 1, s.length);
}

/** The tokens of a command, here-document bodies left out; command substitutions' texts in `subs`. */
export function lex(s: string, subs: string[]): Token[] {
  const tokens: Token[] = [];
  const heredocs: { delim: string; strip: boolean }[] = [];
  let k = 0;
  const atWordStart = (): boolean => tokens.length === 0 || tokens[tokens.length - 1]!.end < k || tokens[tokens.length - 1]!.kind !== "word";
  while (k < s.length) {
    const c = s[k]!;
    if (c === " " || c === "\t" || (c === "\\" && s[k + 1] === "\n")) {
      k += c === "\\" ? 2 : 1;
      continue;
    }
    if (c === "#" && atWordStart()) {
      while (k < s.length && s[k] !== "\n") k++;
      continue;
    }
    if (c === "\n") {
      tokens.push({ kind: "op", start: k, end: k + 1, op: "\n" });
      k++;
      // Here-document bodies start on the next line: skipped, they are data.
      for (const h of heredocs.splice(0)) {
        for (;;) {
          if (k >= s.length) break;
          let e = s.indexOf("\n", k);
          if (e < 0) e = s.length;
          const line = h.strip ? s.slice(k, e).replace(/^\t+/, "") : s.slice(k, e);
          k = Math.min(e + 1, s.length);
          if (line === h.delim) break;
        }
      }
      continue;
    }
    // A redirection, with an optional descriptor ("2>", "{fd}>").
    const fdMatch = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?=[<>])/.exec(s.slice(k, k + 12));
    if (fdMatch !== null && (fdMatch[1] === undefined || atWordStart())) {
      const at = k + (fdMatch[1]?.length ?? 0);
      const op = REDIRS.find((r) => s.startsWith(r, at));
      if (op !== undefined && !(op === "<" && s[at + 1] === "(") && !(op === ">" && s[at + 1] === "(")) {
        tokens.push({ kind: "redir", start: k, end: at + op.length, op, fd: fdMatch[1] });
        k = at + op.length;
        if (op === "<<" || op === "<<-") {
          while (s[k] === " " || s[k] === "\t") k++;
          const start = k;
          let delim = "";
          while (k < s.length && !META.has(s[k]!)) {
            const d = s[k]!;
            if (d === "'" || d === '"') {
              const e = s.indexOf(d, k + 1);
              delim += s.slice(k + 1, e < 0 ? s.length : e);
              k = e < 0 ? s.length : e + 1;
            } else if (d === "\\") {
              delim += s[k + 1] ?? "";
              k += 2;
            } else {
              delim += d;
              k++;
            }
          }
          tokens.push({ kind: "word", start, end: k, value: delim });
          heredocs.push({ delim, strip: op === "<<-" });
        }
        continue;
      }
    }
    if (c === "&" && s[k + 1] === ">") {
      const op = s.startsWith("&>>", k) ? "&>>" : "&>";
      tokens.push({ kind: "redir", start: k, end: k + op.length, op, fd: undefined });
      k += op.length;
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, k));
    if (op !== undefined && !((c === "<" || c === ">") && s[k + 1] === "(")) {
      tokens.push({ kind: "op", start: k, end: k + op.length, op });
      k += op.length;
      continue;
    }
    // A word.
    const start = k;
    let value = "";
    let literal = true;
    while (k < s.length) {
      const d = s[k]!;
      if ((d === "<" || d === ">") && s[k + 1] === "(") {
        // Process substitution: a command's text.
        k = skipExpansion(s, k, subs);
        literal = false;
        continue;
      }
      if (META.has(d)) break;
      if (d === "\\") {
        value += s[k + 1] ?? "";
        k += 2;
      } else if (d === "'") {
        const e = s.indexOf("'", k + 1);
        value += s.slice(k + 1, e < 0 ? s.length : e);
        k = e < 0 ? s.length : e + 1;
      } else if (d === '"') {
        const expands = { yes: false };
        const e = skipDouble(s, k, subs, expands);
        if (expands.yes) literal = false;
        value += s.slice(k + 1, s[e - 1] === '"' ? e - 1 : e).replace(/\\([$`"\\\n])/g, "$1");
        k = e;
      } else if (d === "$" || d === "`") {
        if (d === "$" && !/[A-Za-z_{(0-9@*#?$!-]/.test(s[k + 1] ?? "") && s[k + 1] !== "'") {
          value += d;
          k++;
          continue;
        }
        literal = false;
        if (d === "`" || s[k + 1] === "(" || s[k + 1] === "{") k = skipExpansion(s, k, subs);
        else if (s[k + 1] === "'") {
          const e = s.indexOf("'", k + 2);
          k = e < 0 ? s.length : e + 1;
        } else {
          k++;
          while (k < s.length && /[A-Za-z0-9_@*#?$!-]/.test(s[k]!)) {
            k++;
            if (!/[A-Za-z0-9_]/.test(s[k - 1]!)) break;
          }
        }
      } else {
        if (d === "*" || d === "?" || d === "[") literal = false;
        if (d === "{" && /^\{[^}\s]*(,|\.\.)[^}\s]*\}/.test(s.slice(k))) literal = false;
        if (d === "~" && k === start) {
          // ~ and ~/x are the home folder; ~user is not known here.
          if (!(k + 1 >= s.length || META.has(s[k + 1]!) || s[k + 1] === "/")) literal = false;
        }
        value += d;
        k++;
      }
    }
    if (k === start) {
      // An unexpected character that is neither word nor operator: taken alone.
      k++;
      literal = false;
    }
    tokens.push({ kind: "word", start, end: k, value: literal ? value : undefined });
  }
  return tokens;
}
