/**
 * What a bash command names, for policy, before anything runs: its simple
 * commands (so that a rule or a grant about `rm **` sees the `rm` in
 * `ls && rm -rf notes`) and the paths it names literally (redirection
 * targets, the operands of the file commands). A small lexer of bash's
 * words, quotes, operators, redirections, here-documents and substitutions;
 * not the interpreter's parser (which loads lazily), and not the boundary:
 * inside the interpreter every file access is put to the policy again, so
 * what this cannot tell (a path in a variable, a glob) is still checked.
 */

/** What a command does to a path it names. */
export type PathOperation = "read" | "write" | "delete";

/** A path a command names literally, and what the command does to it. */
export interface NamedPath {
  /** As written, after quote removal ("notes/a.md", "/etc/passwd", "~/x"). */
  readonly raw: string;
  readonly operation: PathOperation;
  /** Whether it is relative to a working directory the analysis no longer knows (after a cd). */
  readonly afterCd: boolean;
}

/** What a static look at a command finds, for policy and for the operator: its simple commands and the paths it names. It does not run anything. */
export interface CommandAnalysis {
  /** Each simple command's text as written (redirections included), in order, without repeats. */
  readonly commands: string[];
  /** The paths named literally. */
  readonly paths: NamedPath[];
}

interface Word {
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
interface Redir {
  readonly kind: "redir";
  readonly start: number;
  readonly end: number;
  readonly op: string;
  /** An explicit descriptor ("2" in 2>), if any. */
  readonly fd: string | undefined;
}
type Token = Word | Op | Redir;

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
function lex(s: string, subs: string[]): Token[] {
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
    if (c === "&" && (s[k + 1] === ">" )) {
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
        k = skipExpansion(s, k, subs) ;
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

const RESERVED = new Set(["if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!", "esac", "[[", "]]"]);
/** Commands that run the command that follows them (after their options). */
const WRAPPERS = new Set(["time", "timeout", "env", "nice", "nohup", "command", "builtin", "exec", "xargs"]);
/** Commands whose operands are files they read. */
const READS = new Set(["cat", "tac", "wc", "nl", "rev", "md5sum", "sha1sum", "sha256sum", "file", "stat", "ls", "du", "diff", "comm", "head", "tail", "tree", "strings", "od", "base64", "source", "."]);
/** Commands whose operands are files they write (create or change). */
const WRITES = new Set(["touch", "mkdir", "tee"]);
/** Commands whose operands are files they delete. */
const DELETES = new Set(["rm", "rmdir"]);
/** Options that take the next word as their value, by command (a value is not a path). */
const VALUED: Readonly<Record<string, readonly string[]>> = {
  head: ["-n", "-c"],
  tail: ["-n", "-c"],
  du: ["-d"],
  od: ["-t", "-N", "-j", "-A", "-w"],
  base64: ["-w"],
  tree: ["-L", "-I", "-P"],
  ls: ["-I", "-w"],
  diff: ["-U", "-C"],
  mkdir: ["-m"],
  touch: ["-d", "-t", "-r"],
  sed: ["-e", "-f", "--expression", "--file"],
};

export const MAX_COMMANDS = 100;
const MAX_PATHS = 200;
const MAX_DEPTH = 8;

/**
 * The simple commands and the literal paths of a bash command. Never
 * throws; linear in the text (substitutions are read once more each, to a
 * depth of 8).
 *
 * @example
 * ```ts
 * analyzeCommand("ls notes && rm -rf old > log.txt")
 * // { commands: ["ls notes", "rm -rf old > log.txt"], paths: [read notes, delete old, write log.txt] }
 * ```
 */
export function analyzeCommand(text: string): CommandAnalysis {
  const commands: string[] = [];
  const paths: NamedPath[] = [];
  const seen = new Set<string>();
  const walk = (s: string, depth: number, cdBefore: boolean): boolean => {
    const subs: string[] = [];
    const tokens = lex(s, subs);
    let afterCd = cdBefore;
    let caseDepth = 0;
    let pattern = false;
    const isOp = (t: Token | undefined, op: string): boolean => t?.kind === "op" && t.op === op;
    const isWord = (t: Token | undefined, value: string): boolean => t?.kind === "word" && t.value === value;
    let k = 0;
    while (k < tokens.length) {
      if (pattern) {
        // A case pattern, up to its ")": not a command.
        if (isOp(tokens[k], "\n")) {
          k++;
          continue;
        }
        if (isWord(tokens[k], "esac")) {
          caseDepth--;
          pattern = false;
          k++;
          continue;
        }
        while (k < tokens.length && !isOp(tokens[k], ")")) k++;
        k++;
        pattern = false;
        continue;
      }
      if (isWord(tokens[k], "case")) {
        // case WORD in: the header, then a pattern.
        k++;
        while (k < tokens.length && !isWord(tokens[k], "in")) k++;
        k++;
        caseDepth++;
        pattern = true;
        continue;
      }
      if (caseDepth > 0 && (isOp(tokens[k], ";;") || isOp(tokens[k], ";&") || isOp(tokens[k], ";;&"))) {
        pattern = true;
        k++;
        continue;
      }
      if (caseDepth > 0 && isWord(tokens[k], "esac")) {
        caseDepth--;
        k++;
        continue;
      }
      // (( arithmetic )): not a command.
      if (isOp(tokens[k], "(") && isOp(tokens[k + 1], "(")) {
        let open = 0;
        for (; k < tokens.length; k++) {
          if (isOp(tokens[k], "(")) open++;
          else if (isOp(tokens[k], ")") && --open === 0) break;
        }
        k++;
        continue;
      }
      // One simple command: from here to the next operator.
      let end = k;
      while (end < tokens.length && tokens[end]!.kind !== "op") end++;
      const segment = tokens.slice(k, end);
      k = end + 1;
      if (caseDepth > 0 && (isOp(tokens[end], ";;") || isOp(tokens[end], ";&") || isOp(tokens[end], ";;&"))) pattern = true;
      if (segment.length === 0) continue;
      // name() { ...: a function's header.
      if (segment.length <= 2 && isOp(tokens[end], "(") && isOp(tokens[end + 1], ")")) {
        k = end + 2;
        continue;
      }
      afterCd = simple(s, segment, depth, afterCd) || afterCd;
    }
    for (const sub of subs) if (depth < MAX_DEPTH) walk(sub, depth + 1, afterCd);
    return afterCd;
  };
  /** Records one simple command; true when it changes the working directory. */
  const simple = (s: string, segment: Token[], depth: number, afterCd: boolean): boolean => {
    let words = segment.filter((t): t is Word => t.kind === "word");
    const redirs: { redir: Redir; target: Word | undefined }[] = [];
    const targets = new Set<Word>();
    segment.forEach((t, i) => {
      if (t.kind !== "redir") return;
      const target = segment[i + 1]?.kind === "word" ? (segment[i + 1] as Word) : undefined;
      if (target !== undefined) targets.add(target);
      redirs.push({ redir: t, target });
    });
    words = words.filter((w) => !targets.has(w));
    for (const { redir, target } of redirs) {
      const v = target?.value;
      if (v === undefined || redir.op === "<<" || redir.op === "<<-" || redir.op === "<<<") continue;
      if ((redir.op === ">&" || redir.op === "<&") && /^(\d+-?|-)$/.test(v)) continue;
      const op: PathOperation = redir.op.startsWith("<") && redir.op !== "<>" ? "read" : "write";
      addPath(v, op, afterCd);
    }
    // Leading reserved words, assignments and `for x in ...`/`case x in` headers.
    let i = 0;
    while (i < words.length) {
      const v = words[i]!.value;
      if (v !== undefined && RESERVED.has(v)) i++;
      else if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(s.slice(words[i]!.start, words[i]!.end))) i++;
      else break;
    }
    if (i < words.length && (words[i]!.value === "for" || words[i]!.value === "select" || words[i]!.value === "case" || words[i]!.value === "function")) return false;
    if (i >= words.length) return false;
    const text = s.slice(words[i]!.start, segment[segment.length - 1]!.end).trim();
    addCommand(text);
    const argv = words.slice(i);
    const name = argv[0]!.value;
    if (name === undefined) return false;
    const base = name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : name;
    const operands = (from: number): Word[] => {
      const out: Word[] = [];
      let options = true;
      const valued = VALUED[base] ?? [];
      for (let j = from; j < argv.length; j++) {
        const w = argv[j]!;
        if (options && w.value === "--") {
          options = false;
          continue;
        }
        if (options && w.value !== undefined && w.value.startsWith("-") && w.value !== "-") {
          if (valued.includes(w.value)) j++;
          continue;
        }
        out.push(w);
      }
      return out;
    };
    if (base === "cd" || base === "pushd" || base === "popd") return true;
    if ((base === "bash" || base === "sh") && argv[1]?.value === "-c" && argv[2]?.value !== undefined && depth < MAX_DEPTH) {
      walk(argv[2].value, depth + 1, afterCd);
      return false;
    }
    if (base === "eval" && depth < MAX_DEPTH) {
      if (argv.slice(1).every((w) => w.value !== undefined)) walk(argv.slice(1).map((w) => w.value).join(" "), depth + 1, afterCd);
      return false;
    }
    if (WRAPPERS.has(base)) {
      // The wrapped command, after the wrapper's options (and timeout's duration, env's assignments).
      let j = 1;
      while (j < argv.length) {
        const v = argv[j]!.value;
        if (v === undefined) break;
        if (v.startsWith("-") || (base === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) || (base === "timeout" && /^\d+(\.\d+)?[smhd]?$/.test(v)) || (base === "nice" && /^-?\d+$/.test(v))) j++;
        else break;
      }
      if (j < argv.length) {
        const inner = s.slice(argv[j]!.start, segment[segment.length - 1]!.end);
        if (depth < MAX_DEPTH) walk(inner, depth + 1, afterCd);
      }
      return false;
    }
    const literal = (ws: Word[]): string[] => ws.map((w) => w.value).filter((v): v is string => v !== undefined);
    if (READS.has(base)) for (const p of literal(operands(1))) addPath(p, "read", afterCd);
    else if (WRITES.has(base)) for (const p of literal(operands(1))) addPath(p, "write", afterCd);
    else if (DELETES.has(base)) for (const p of literal(operands(1))) addPath(p, "delete", afterCd);
    else if (base === "sed" && argv.some((w) => w.value !== undefined && (/^-[a-zA-Z]*i/.test(w.value) || w.value.startsWith("--in-place")))) {
      // sed -i writes its files: the operands after the script (all of them when -e or -f gives it).
      const scripted = argv.some((w) => w.value !== undefined && ["-e", "-f", "--expression", "--file"].includes(w.value));
      for (const p of literal(operands(1).slice(scripted ? 0 : 1))) addPath(p, "write", afterCd);
    } else if (base === "cp" || base === "mv") {
      const ops = operands(1);
      if (ops.length >= 2) {
        for (const w of ops.slice(0, -1)) if (w.value !== undefined) addPath(w.value, base === "mv" ? "delete" : "read", afterCd);
        const dest = ops[ops.length - 1]!.value;
        if (dest !== undefined) addPath(dest, "write", afterCd);
      }
    }
    return false;
  };
  const addCommand = (text: string): void => {
    if (text === "" || seen.has(text)) return;
    seen.add(text);
    commands.push(text);
  };
  const pathSeen = new Set<string>();
  const addPath = (raw: string, operation: PathOperation, afterCd: boolean): void => {
    const key = `${raw}\u0000${operation}\u0000${afterCd}`;
    if (raw === "" || pathSeen.has(key) || paths.length >= MAX_PATHS) return;
    pathSeen.add(key);
    paths.push({ raw, operation, afterCd });
  };
  walk(text, 0, false);
  return { commands, paths };
}
