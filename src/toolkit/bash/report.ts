/**
 * The bash tool's words about a command's outcome, for the model and the
 * operator's preview: each changed file in a line (created, deleted, lines
 * added and removed, or binary), the notices about what the shell or the
 * policy refused (naming a denied path only when the command itself names
 * it), and the commands the shell reported it does not have.
 */
import { lineDiff } from "../../tools/index.js";
import { count, decodeText, diffStats, looksBinary } from "../text.js";
import type { FileChange, Refusal } from "./fs.js";

/** A text cut to `max` characters, an ellipsis last when it was longer. */
export const shorten = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Whether a change's content, before or after, is binary. */
const binary = (c: FileChange): boolean => (c.change.bytes !== null && looksBinary(c.change.bytes)) || (c.before !== undefined && looksBinary(c.before));

/** A change's line diff, or undefined when there is none to show: binary content, or old content this call may not read. */
export function changeDiff(c: FileChange): string | undefined {
  if ((c.existed && c.before === undefined) || binary(c)) return undefined;
  const after = c.change.bytes;
  return lineDiff(c.change.path, c.before === undefined ? undefined : decodeText(c.before).text, after === null ? undefined : decodeText(after).text);
}

/** A changed file's line for the model and the preview: "created a.md (+3 -0)", "b.md (+1 -1)", "deleted c.md (+0 -2)", "img.png (binary, 1,024 bytes)". */
function describeChange(c: FileChange): string {
  const path = c.change.path;
  const after = c.change.bytes;
  const verb = !c.existed ? "created " : after === null ? "deleted " : "";
  if (binary(c)) return `${verb}${path} (binary, ${count(after?.length ?? c.before?.length ?? 0, "byte")})`;
  const diff = changeDiff(c);
  if (diff === undefined) return `${verb}${path}`;
  const { added, removed } = diffStats(diff);
  return `${verb}${path} (+${added} -${removed})`;
}

const LISTED_CHANGES = 50;

/** The first `max` items, each as `show` words it, joined with commas; then how many more there are. */
function listAtMost<T>(items: readonly T[], max: number, show: (item: T) => string): string {
  return `${items.slice(0, max).map(show).join(", ")}${items.length > max ? `, and ${items.length - max} more` : ""}`;
}

/** The changed files' lines, the first 50 of them, then how many more. */
export function listChanges(changes: readonly FileChange[]): string {
  return listAtMost(changes, LISTED_CHANGES, describeChange);
}

const REASON: Record<Refusal["why"], string> = {
  outside: "outside the workspace",
  device: "not a device this shell has",
  root: "the workspace root itself",
  policy: "denied by policy",
  links: "the workspace has no links",
  name: "not a valid file name",
  too_large: "larger than a workspace file may be",
  full: "the command staged too much",
  allowlist: "not on the allowlist",
};

/**
 * The notices about refusals. Workspace paths refused by policy are named
 * only when the command itself names them (so a notice never reveals a
 * denied file the model did not name); the others are counted.
 */
export function refusalNotes(refusals: readonly Refusal[], command: string, root: string, hidden: number): string[] {
  // Grouped by path: "write /etc/passwd (outside the workspace)", "secrets/a.env (read, write)".
  const shell = new Map<string, { ops: string[]; why: Refusal["why"] }>();
  const policy = new Map<string, string[]>();
  const unnamed = new Set<string>();
  for (const r of refusals) {
    const inside = r.path.startsWith(`${root}/`) ? r.path.slice(root.length + 1) : undefined;
    const shownPath = inside ?? r.path;
    if (r.why === "policy") {
      if (inside !== undefined && !command.includes(inside) && !command.includes(r.path)) {
        unnamed.add(r.path);
        continue;
      }
      const ops = policy.get(shownPath) ?? [];
      if (!ops.includes(r.operation)) ops.push(r.operation);
      policy.set(shownPath, ops);
    } else {
      const id = `${shownPath}\u0000${r.why}`;
      const entry = shell.get(id) ?? { ops: [], why: r.why };
      if (!entry.ops.includes(r.operation)) entry.ops.push(r.operation);
      shell.set(id, entry);
    }
  }
  const list = (xs: string[]): string => listAtMost(xs, 20, (x) => x);
  const notes: string[] = [];
  if (shell.size > 0) notes.push(`[Refused by the shell: ${list([...shell].map(([id, e]) => `${e.ops.join(", ")} ${id.slice(0, id.indexOf("\u0000"))} (${REASON[e.why]})`))}.]`);
  if (policy.size > 0 || unnamed.size > 0) {
    const parts = [...(policy.size > 0 ? [list([...policy].map(([p, ops]) => `${ops.join(", ")} ${p}`))] : []), ...(unnamed.size > 0 ? [count(unnamed.size, "other path")] : [])];
    notes.push(`[Refused by policy: ${parts.join("; ")}. Do not try to reach them another way.]`);
  }
  if (hidden > 0) notes.push(`[Policy hid ${count(hidden, "file")} from this command: listings and globs leave ${hidden === 1 ? "it" : "them"} out.]`);
  return notes;
}

/** The names of commands the shell reported it does not have. */
export function missingCommands(stderr: string): string[] {
  const out: string[] = [];
  for (const m of stderr.matchAll(/^bash: ([^\n:]{1,100}): command not found$/gm)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}
