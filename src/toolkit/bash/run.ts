/**
 * The part of bash that loads lazily (with just-bash, about 350 KB
 * minified and gzipped): one command run by the interpreter over the
 * workspace's filesystem, with its deadline, its cancellation signal, and
 * curl's network when the application allows one.
 */
import type { PermitAnswer, ResourceRef } from "../../tools/index.js";
import type { AbortSignalLike } from "../../web.js";
import type { Workspace } from "../workspace.js";
import { fsErrorInfo, WorkspaceFs, type Refusal } from "./fs.js";
import { loadJustBash, type JbCommand, type JbSecureFetch as SecureFetch, type JustBash } from "./just-bash.js";
import { shellFetch, type NetworkLog, type ShellNetwork } from "./network.js";

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  EISDIR: "Is a directory",
  ENOTDIR: "Not a directory",
  EFBIG: "File too large",
  ENOSPC: "No space left on device",
  EINVAL: "Invalid argument",
  ENOENT: "No such file or directory",
};

/** The most simple commands (and loop iterations) one command may run. */
export const MAX_COMMANDS_RUN = 1_000_000;

/** The most `yes` writes: pipes here are not streams, so an endless writer has to stop. */
export const YES_MAX_BYTES = 16 * 1024 * 1024;

export interface RunRequest {
  readonly command: string;
  readonly ws: Workspace;
  readonly root: string;
  /** The run's policy about what the command touches (ToolContext.permit, or the preview's). */
  readonly permit: (resources: readonly ResourceRef[]) => PermitAnswer;
  readonly signal: AbortSignalLike | undefined;
  /** How long the interpreter may run, in ms: it stops itself there (a loop that never yields cannot be stopped by a timer). */
  readonly deadlineMs: number;
  /** curl's network; none when undefined. */
  readonly network: ShellNetwork | undefined;
  /** The commands this shell has (without yes and curl, which are added here). */
  readonly commands: readonly string[];
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** False when the interpreter's deadline stopped the command. */
  readonly finished: boolean;
  readonly fs: WorkspaceFs;
  readonly net: NetworkLog;
  readonly refusals: readonly Refusal[];
  /** True when a failed write ended the script early (its output up to there is lost). */
  readonly halted: boolean;
  /** The commands the shell has, as this copy of just-bash registered them. */
  readonly available: readonly string[];
}

// In Node, just-bash blocks timers and other host globals inside a command
// (defense in depth); host code it calls (the workspace's storage, the
// policy, fetch) runs outside that context. Browsers and Workers have no
// such context: the box is absent from their build.
function trustedRunners(jb: JustBash): { trusted: <T>(fn: () => Promise<T>) => Promise<T>; trustedSync: <T>(fn: () => T) => T } {
  const box = jb.DefenseInDepthBox;
  return {
    trusted: (fn) => (box === undefined ? fn() : box.runTrustedAsync(fn)),
    trustedSync: (fn) => (box === undefined ? fn() : box.runTrusted(fn)),
  };
}

let yes: JbCommand | undefined;

/** Runs one command; never throws for what the command does (a failure of the interpreter itself does). */
export async function runCommand(req: RunRequest): Promise<RunResult> {
  const justBash = await loadJustBash();
  const { trusted, trustedSync } = trustedRunners(justBash);
  yes ??= justBash.defineCommand("yes", async (args) => {
    const line = `${args.length === 0 ? "y" : args.join(" ")}\n`;
    return { stdout: line.repeat(Math.max(1, Math.floor(YES_MAX_BYTES / line.length))), stderr: "", exitCode: 0 };
  });
  const files = await trusted(() => req.ws.list(""));
  const fs = new WorkspaceFs(req.ws, req.root, files, {
    permit: (key, operation) => trustedSync(() => req.permit([{ kind: "path", value: key, operation }]).permission === "allow"),
    trusted,
  });
  const net: NetworkLog = { hosts: [], refusals: [] };
  const registered = new Set(justBash.getCommandNames());
  const commands = req.commands.filter((c) => registered.has(c));
  let fetch: SecureFetch | undefined;
  if (req.network !== undefined) {
    fetch = shellFetch(req.network, (r) => trustedSync(() => req.permit(r)), trusted, req.signal, net);
  }
  const bash = new justBash.Bash({
    fs,
    cwd: req.root,
    env: { HOME: req.root, USER: "agent", LANG: "C.UTF-8" },
    commands,
    customCommands: [yes],
    ...(fetch === undefined ? {} : { fetch }),
    executionLimits: {
      maxExecutionTimeMs: Math.max(1, Math.floor(req.deadlineMs)),
      // The deadline bounds the work where time advances while code runs;
      // where it may not (a Worker in production advances its clock on I/O
      // only), these bound a runaway loop: about 30 s of CPU at most.
      maxCommandCount: MAX_COMMANDS_RUN,
      maxLoopIterations: MAX_COMMANDS_RUN,
      maxOutputSize: 64 * 1024 * 1024,
    },
  });
  const started = Date.now();
  let r: { stdout: string; stderr: string; exitCode: number };
  let halted = false;
  try {
    r = await bash.exec(req.command, { ...(req.signal === undefined ? {} : { signal: req.signal }), rawScript: true });
  } catch (e) {
    // just-bash lets a failed write of an output redirection escape the
    // whole script (its own filesystem never fails one); here it ends the
    // command as bash would end that one: with the error, exit 1.
    const info = fsErrorInfo(e);
    if (info === undefined) throw e;
    r = { stdout: "", stderr: `bash: ${info.path}: ${ERRNO_TEXT[info.code] ?? "Input/output error"}\n`, exitCode: 1 };
    halted = true;
  }
  const elapsed = Date.now() - started;
  // just-bash names the runtimes it leaves out of its browser build as
  // "not available in browser environments": here they are not in the
  // shell on any platform, so the shell says what bash says.
  // Its limit messages tell a host developer which option to raise; the model cannot.
  const stderr = r.stderr
    .replace(/^bash: ([^\n:]{1,100}): command not available in browser environments\.[^\n]*$/gm, "bash: $1: command not found")
    .replace(/, increase executionLimits\.[A-Za-z]+/g, " (the shell's limit)");
  const finished = !(r.exitCode === 124 && elapsed >= req.deadlineMs && /execution deadline/.test(stderr));
  return {
    stdout: r.stdout,
    stderr,
    exitCode: r.exitCode,
    finished,
    fs,
    net,
    halted,
    refusals: [...fs.refusals, ...net.refusals],
    available: [...commands, "yes", ...(fetch === undefined ? [] : ["curl"])].sort(),
  };
}
