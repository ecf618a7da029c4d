/**
 * What a bash command touches, as the run's policy sees it before it runs:
 * the command itself, each simple command in it, and each workspace path it
 * names literally (words.ts), with what it does to it. A write or delete
 * that can already be told to leave the workspace, reach a device, or
 * remove the root is refused here, with what to do instead; the
 * filesystem (fs.ts) checks every access again while the command runs.
 */
import { keyUnder } from "../../paths.js";
import { ToolError, type ResourceRef } from "../../tools/index.js";
import { normalizePath } from "./fs-gate.js";
import { shorten } from "./report.js";
import { analyzeCommand, MAX_COMMANDS, type PathOperation } from "./words.js";

/** Where a path the command names literally is, from the workspace root (the working directory until a cd). */
function placeOf(raw: string, root: string, afterCd: boolean): { key: string } | "outside" | "device" | "special" | undefined {
  let p = raw;
  if (p === "~" || p.startsWith("~/")) p = `${root}${p.slice(1)}`;
  if (["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin"].includes(p) || /^\/dev\/fd\/\d+$/.test(p)) return "special";
  if (!p.startsWith("/") && afterCd) return undefined;
  // As the shell's filesystem will resolve it (fs-gate.ts): `..` against the names before it.
  const abs = normalizePath(p.startsWith("/") ? p : `${root}/${p}`);
  const key = keyUnder(abs, root);
  if (key !== undefined) return { key };
  if (abs.startsWith("/dev/")) return "device";
  return "outside";
}

const VERB: Record<PathOperation, string> = { read: "reads", write: "writes", delete: "deletes" };

/** What a command touches, for policy: its text, its simple commands, the paths it names; refuses what can already be told to leave the workspace. */
export function commandResources(command: string, root: string): ResourceRef[] {
  const analysis = analyzeCommand(command);
  if (analysis.commands.length > MAX_COMMANDS) {
    throw new ToolError(`the command has more than ${MAX_COMMANDS} simple commands`, { next: "Split the work into several bash calls." });
  }
  const out: ResourceRef[] = [{ kind: "command", value: command, operation: "execute" }];
  for (const c of analysis.commands) if (c !== command) out.push({ kind: "command", value: c, operation: "execute" });
  const seen = new Set<string>();
  for (const p of analysis.paths) {
    const where = placeOf(p.raw, root, p.afterCd);
    if (where === undefined || where === "special") continue;
    if (p.operation !== "read") {
      if (where === "outside") {
        throw new ToolError(`the command ${VERB[p.operation]} outside the workspace: ${shorten(p.raw, 200)}`, {
          next: `Use paths inside the workspace: relative ones, or absolute ones under ${root}/.`,
          recovery: "If the task needs a file outside the workspace, stop and say so: this shell cannot reach it.",
        });
      }
      if (where === "device") {
        throw new ToolError(`the command ${VERB[p.operation]} a device: ${shorten(p.raw, 200)}; this shell has /dev/null only`, {
          next: "Write to a file in the workspace, or to /dev/null to discard output.",
        });
      }
      if (where.key === "" && p.operation === "delete") {
        throw new ToolError(`the command would remove the workspace root (${root})`, {
          next: "Remove the files or folders in it by name instead.",
          recovery: "If the task really is to empty the whole workspace, stop and ask the person you work for.",
        });
      }
    }
    if (typeof where !== "object" || where.key === "") continue;
    const id = `${where.key}\u0000${p.operation}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ kind: "path", value: where.key, operation: p.operation });
  }
  return out;
}
