/**
 * What a bash command names, for policy, before anything runs: its simple
 * commands (so that a rule or a grant about `rm **` sees the `rm` in
 * `ls && rm -rf notes`) and the paths it names literally (redirection
 * targets, the operands of the file commands). A small lexer of bash's
 * words, quotes, operators, redirections, here-documents and substitutions;
 * not the interpreter's parser (which loads lazily), and not the boundary:
 * inside the interpreter every file access is put to the policy again, so
 * what this cannot tell (a path in a variable, a glob) is still checked.
 *
 * The lexer is lex.ts, what one simple command names simple-command.ts;
 * here, the walk over a command's statements (lists, pipelines, case,
 * arithmetic, function headers, substitutions) and what it records.
 */
import { lex, type Token } from "./lex.js";
import { simpleCommand, type Found, type PathOperation } from "./simple-command.js";

export type { PathOperation } from "./simple-command.js";

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
    const found: Found = {
      command: addCommand,
      path: addPath,
      nested: (inner, cd) => {
        if (depth < MAX_DEPTH) walk(inner, depth + 1, cd);
      },
    };
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
      afterCd = simpleCommand(s, segment, afterCd, found) || afterCd;
    }
    for (const sub of subs) found.nested(sub, afterCd);
    return afterCd;
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
