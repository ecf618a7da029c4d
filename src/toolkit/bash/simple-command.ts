/**
 * What one simple command names (words.ts): its text, the paths of its
 * redirections, and the operands of the file commands it knows (what each
 * reads, writes or deletes), past its leading reserved words and
 * assignments and its options. A command that runs another (bash -c, eval,
 * the wrappers: time, env, xargs, ...) hands that one back to be analyzed
 * in turn.
 */
import type { Redir, Token, Word } from "./lex.js";

/** What a command does to a path it names. */
export type PathOperation = "read" | "write" | "delete";

/** Where one simple command's findings go. */
export interface Found {
  /** A simple command's text as written. */
  readonly command: (text: string) => void;
  /** A path named literally, and what the command does to it. */
  readonly path: (raw: string, operation: PathOperation, afterCd: boolean) => void;
  /** A command this one runs (bash -c's, eval's, a wrapper's), to analyze in turn, a level deeper. */
  readonly nested: (text: string, afterCd: boolean) => void;
}

const RESERVED = new Set(["if", "then", "elif", "else", "fi", "do", "done", "while", "until", "{", "}", "!", "esac", "[[", "]]"]);
/** Commands that run the command that follows them (after their options). */
const WRAPPERS = new Set(["time", "timeout", "env", "nice", "nohup", "command", "builtin", "exec", "xargs"]);
/** Commands whose operands are files they read. */
const READS = new Set([
  "cat",
  "tac",
  "wc",
  "nl",
  "rev",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "file",
  "stat",
  "ls",
  "du",
  "diff",
  "comm",
  "head",
  "tail",
  "tree",
  "strings",
  "od",
  "base64",
  "source",
  ".",
]);
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

/** Records one simple command of `s` (its tokens, `segment`); true when it changes the working directory. */
export function simpleCommand(s: string, segment: Token[], afterCd: boolean, found: Found): boolean {
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
    found.path(v, op, afterCd);
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
  found.command(text);
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
  if ((base === "bash" || base === "sh") && argv[1]?.value === "-c" && argv[2]?.value !== undefined) {
    found.nested(argv[2].value, afterCd);
    return false;
  }
  if (base === "eval") {
    if (argv.slice(1).every((w) => w.value !== undefined))
      found.nested(
        argv
          .slice(1)
          .map((w) => w.value)
          .join(" "),
        afterCd,
      );
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
      found.nested(inner, afterCd);
    }
    return false;
  }
  const literal = (ws: Word[]): string[] => ws.map((w) => w.value).filter((v): v is string => v !== undefined);
  if (READS.has(base)) for (const p of literal(operands(1))) found.path(p, "read", afterCd);
  else if (WRITES.has(base)) for (const p of literal(operands(1))) found.path(p, "write", afterCd);
  else if (DELETES.has(base)) for (const p of literal(operands(1))) found.path(p, "delete", afterCd);
  else if (base === "sed" && argv.some((w) => w.value !== undefined && (/^-[a-zA-Z]*i/.test(w.value) || w.value.startsWith("--in-place")))) {
    // sed -i writes its files: the operands after the script (all of them when -e or -f gives it).
    const scripted = argv.some((w) => w.value !== undefined && ["-e", "-f", "--expression", "--file"].includes(w.value));
    for (const p of literal(operands(1).slice(scripted ? 0 : 1))) found.path(p, "write", afterCd);
  } else if (base === "cp" || base === "mv") {
    const ops = operands(1);
    if (ops.length >= 2) {
      for (const w of ops.slice(0, -1)) if (w.value !== undefined) found.path(w.value, base === "mv" ? "delete" : "read", afterCd);
      const dest = ops[ops.length - 1]!.value;
      if (dest !== undefined) found.path(dest, "write", afterCd);
    }
  }
  return false;
}
