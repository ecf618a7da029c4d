/**
 * The part of bash that loads lazily (with just-bash, about 350 KB
 * minified and gzipped): one command run by the interpreter over the
 * workspace's filesystem, with its deadline, its cancellation, and
 * curl's network when the application allows one.
 */
import type { PermitAnswer, ResourceRef } from "../../tools/index.js";
import type { AbortSignalLike } from "../../web.js";
import type { Workspace } from "../workspace.js";
import { fsErrorInfo, WorkspaceFs, type Refusal } from "./fs.js";
import { loadJustBash, type JbBash, type JbCommand, type JbSecureFetch as SecureFetch, type JustBash } from "./just-bash.js";
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
  ECANCELED: "Operation canceled",
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
let registered: { of: readonly string[]; commands: string[] } | undefined;

/** The commands asked for that this copy of just-bash has (worked out once per list). */
function available(justBash: JustBash, asked: readonly string[]): string[] {
  if (registered?.of !== asked) {
    const names = new Set(justBash.getCommandNames());
    registered = { of: asked, commands: asked.filter((c) => names.has(c)) };
  }
  return registered.commands;
}

/** The commands a result lists as available, sorted (worked out once per list). */
const listing = new Map<string[], { without: string[]; with: string[] }>();
function listed(commands: string[], curl: boolean): string[] {
  let l = listing.get(commands);
  if (l === undefined) {
    l = { without: [...commands, "yes"].sort(), with: [...commands, "yes", "curl"].sort() };
    listing.set(commands, l);
  }
  return curl ? l.with : l.without;
}

/** A filesystem that forwards to the command's own: what a reused interpreter holds. */
class SwitchFs {
  current: WorkspaceFs | undefined;
  private get fs(): WorkspaceFs {
    if (this.current === undefined) throw new Error("EACCES: permission denied: no command is running");
    return this.current;
  }
  readFile(...a: Parameters<WorkspaceFs["readFile"]>) { return this.fs.readFile(...a); }
  readFileBuffer(...a: Parameters<WorkspaceFs["readFileBuffer"]>) { return this.fs.readFileBuffer(...a); }
  writeFile(...a: Parameters<WorkspaceFs["writeFile"]>) { return this.fs.writeFile(...a); }
  appendFile(...a: Parameters<WorkspaceFs["appendFile"]>) { return this.fs.appendFile(...a); }
  exists(...a: Parameters<WorkspaceFs["exists"]>) { return this.fs.exists(...a); }
  stat(...a: Parameters<WorkspaceFs["stat"]>) { return this.fs.stat(...a); }
  lstat(...a: Parameters<WorkspaceFs["lstat"]>) { return this.fs.lstat(...a); }
  mkdir(...a: Parameters<WorkspaceFs["mkdir"]>) { return this.fs.mkdir(...a); }
  readdir(...a: Parameters<WorkspaceFs["readdir"]>) { return this.fs.readdir(...a); }
  readdirWithFileTypes(...a: Parameters<WorkspaceFs["readdirWithFileTypes"]>) { return this.fs.readdirWithFileTypes(...a); }
  rm(...a: Parameters<WorkspaceFs["rm"]>) { return this.fs.rm(...a); }
  cp(...a: Parameters<WorkspaceFs["cp"]>) { return this.fs.cp(...a); }
  mv(...a: Parameters<WorkspaceFs["mv"]>) { return this.fs.mv(...a); }
  resolvePath(...a: Parameters<WorkspaceFs["resolvePath"]>) { return this.fs.resolvePath(...a); }
  getAllPaths() { return this.fs.getAllPaths(); }
  chmod(...a: Parameters<WorkspaceFs["chmod"]>) { return this.fs.chmod(...a); }
  symlink(...a: Parameters<WorkspaceFs["symlink"]>) { return this.fs.symlink(...a); }
  link(...a: Parameters<WorkspaceFs["link"]>) { return this.fs.link(...a); }
  readlink(...a: Parameters<WorkspaceFs["readlink"]>) { return this.fs.readlink(...a); }
  realpath(...a: Parameters<WorkspaceFs["realpath"]>) { return this.fs.realpath(...a); }
  utimes(...a: Parameters<WorkspaceFs["utimes"]>) { return this.fs.utimes(...a); }
}

interface Shell {
  readonly key: string;
  readonly bash: JbBash;
  readonly fs: SwitchFs;
  readonly fetch: { current: SecureFetch | undefined };
  reusable: boolean;
}

/**
 * Interpreters kept between commands, by their settings (root, deadline,
 * commands, network): one is taken by one command at a time and given back
 * with nothing of it left (its filesystem and fetch point nowhere, its
 * table of found commands emptied), or not given back when that cannot be
 * ensured. Building one costs more than a short command.
 */
const idle = new Map<string, Shell[]>();
const ids = new WeakMap<string[], number>();
let nextId = 0;
const listId = (commands: string[]): number => {
  let id = ids.get(commands);
  if (id === undefined) ids.set(commands, (id = ++nextId));
  return id;
};
const IDLE_MAX = 8;

function take(justBash: JustBash, req: RunRequest, commands: string[], network: boolean): Shell {
  const deadline = Math.max(1, Math.floor(req.deadlineMs));
  const key = `${req.root}\u0000${deadline}\u0000${network ? 1 : 0}\u0000${listId(commands)}`;
  const kept = idle.get(key)?.pop();
  if (kept !== undefined) return kept;
  const fs = new SwitchFs();
  const fetch: { current: SecureFetch | undefined } = { current: undefined };
  const bash = new justBash.Bash({
    fs,
    cwd: req.root,
    env: { HOME: req.root, USER: "agent", LANG: "C.UTF-8" },
    commands,
    customCommands: [yes!],
    ...(network ? { fetch: (url, options) => (fetch.current === undefined ? Promise.reject(new Error("no network")) : fetch.current(url, options)) } : {}),
    executionLimits: {
      maxExecutionTimeMs: deadline,
      // The deadline bounds the work where time advances while code runs;
      // where it may not (a Worker in production advances its clock on I/O
      // only), these bound a runaway loop: about 30 s of CPU at most.
      maxCommandCount: MAX_COMMANDS_RUN,
      maxLoopIterations: MAX_COMMANDS_RUN,
      maxOutputSize: 64 * 1024 * 1024,
    },
  });
  return { key, bash, fs, fetch, reusable: true };
}

function give(shell: Shell): void {
  shell.fs.current = undefined;
  shell.fetch.current = undefined;
  // The interpreter remembers where it found each command (`hash` shows
  // them): emptied, so that a command never sees what another ran.
  const table = (shell.bash as unknown as { state?: { hashTable?: unknown } }).state?.hashTable;
  if (!shell.reusable || !(table instanceof Map)) return;
  table.clear();
  const list = idle.get(shell.key) ?? [];
  if (list.length < IDLE_MAX) list.push(shell);
  idle.set(shell.key, list);
}

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
  const commands = available(justBash, req.commands);
  const fetch = req.network === undefined ? undefined : shellFetch(req.network, (r) => trustedSync(() => req.permit(r)), trusted, req.signal, net);
  const shell = take(justBash, req, commands, fetch !== undefined);
  shell.fs.current = fs;
  shell.fetch.current = fetch;
  const onAbort = (): void => fs.cancel();
  req.signal?.addEventListener("abort", onAbort, { once: true });
  if (req.signal?.aborted === true) fs.cancel();
  const started = Date.now();
  let r: { stdout: string; stderr: string; exitCode: number };
  let halted = false;
  try {
    // Cancellation: the interpreter stops at its next statement (just-bash
    // checks the signal there; a loop that never yields is stopped by the
    // deadline instead), and the filesystem fails every access from then on.
    r = await shell.bash.exec(req.command, { ...(req.signal === undefined ? {} : { signal: req.signal }), rawScript: true });
  } catch (e) {
    shell.reusable = false;
    // just-bash lets a failed write of an output redirection escape the
    // whole script (its own filesystem never fails one); here it ends the
    // command as bash would end that one: with the error, exit 1.
    const info = fsErrorInfo(e);
    if (info === undefined) throw e;
    r = { stdout: "", stderr: `bash: ${info.path}: ${ERRNO_TEXT[info.code] ?? "Input/output error"}\n`, exitCode: 1 };
    halted = true;
  }
  const elapsed = Date.now() - started;
  req.signal?.removeEventListener("abort", onAbort);
  give(shell);
  // just-bash names the runtimes it leaves out of its browser build as
  // "not available in browser environments": here they are not in the
  // shell on any platform, so the shell says what bash says.
  // Its limit messages tell a host developer which option to raise; the model cannot.
  const stderr = r.stderr
    .replace(/^bash: ([^\n:]{1,100}): command not available in browser environments\.[^\n]*$/gm, "bash: $1: command not found")
    .replace(/, increase executionLimits\.[A-Za-z]+/g, " (the shell's limit)");
  // Stopped by its deadline: just-bash says "exceeded its execution deadline"
  // (exit 124), or, when the deadline's timer interrupts a command that was
  // waiting (a sleep), "execution aborted" (exit 1) — seen on a busy machine.
  // Our own cancellation is not a deadline.
  const finished = !(elapsed >= req.deadlineMs && req.signal?.aborted !== true && (r.exitCode === 124 || r.exitCode === 1) && /execution deadline|execution aborted/.test(stderr));
  return {
    stdout: r.stdout,
    stderr,
    exitCode: r.exitCode,
    finished,
    fs,
    net,
    halted,
    refusals: [...fs.refusals, ...net.refusals],
    available: listed(commands, fetch !== undefined),
  };
}
