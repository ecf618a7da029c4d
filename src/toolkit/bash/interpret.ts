/**
 * just-bash running one command over a filesystem it is handed: the
 * interpreter's side of a command, the same wherever it runs. In the
 * owning thread (in-thread runs) the filesystem is the command's
 * WorkspaceFs itself; in a Worker it is a proxy whose every operation
 * crosses to the owning thread, where the WorkspaceFs and the run's policy
 * decide it (remote.ts, interpreter.ts). Nothing here decides what a path
 * may do.
 */
import type { AbortSignalLike } from "../../web.js";
import { fsErrorInfo } from "./fs.js";
import { FS_METHODS, type JbBash, type JbCommand, type JbSecureFetch, type JustBash } from "./just-bash.js";

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

/** The most `yes` writes: pipes here are not streams, so an endless writer has to stop. */
export const YES_MAX_BYTES = 16 * 1024 * 1024;

/** What the interpreter is asked to run: plain data, so that it can cross to a Worker as it is. */
export interface InterpretJob {
  readonly command: string;
  readonly root: string;
  /** The interpreter's own deadline (just-bash's maxExecutionTimeMs), in ms. */
  readonly deadlineMs: number;
  /** The commands the shell offers (without yes and curl, added here). */
  readonly commands: readonly string[];
  /** Whether curl is there (its requests go through `fetch`). */
  readonly network: boolean;
  /** just-bash's executionLimits besides the deadline (limits.ts). */
  readonly limits: Readonly<Record<string, number>>;
}

export interface Interpreted {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** True when a failed write ended the script early (its output up to there is lost). */
  readonly halted: boolean;
  /** The commands the shell has, as this copy of just-bash registered them, sorted (curl and yes included). */
  readonly available: readonly string[];
}

/** How host code runs outside just-bash's defense-in-depth context (Node's build only; elsewhere as it is). */
export interface Trusted {
  trusted<T>(fn: () => Promise<T>): Promise<T>;
  trustedSync<T>(fn: () => T): T;
}

// In Node, just-bash blocks timers and other host globals inside a command
// (defense in depth); host code it calls (the workspace's storage, the
// policy, fetch, a Worker's messages) runs outside that context. Browsers
// and Workers have no such context: the box is absent from their build.
export function trustedRunners(jb: JustBash): Trusted {
  const box = jb.DefenseInDepthBox;
  return {
    trusted: (fn) => (box === undefined ? fn() : box.runTrustedAsync(fn)),
    trustedSync: (fn) => (box === undefined ? fn() : box.runTrusted(fn)),
  };
}

let yes: JbCommand | undefined;
let registered: { of: readonly string[]; commands: string[] } | undefined;

/** The commands asked for that this copy of just-bash has (worked out once per list). */
function availableOf(justBash: JustBash, asked: readonly string[]): string[] {
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

type Fs = Record<string, (...args: never[]) => unknown>;

/** Every operation of just-bash's filesystem: those that cross between threads, and the two answered where the interpreter is. */
const ALL_FS_METHODS = [...FS_METHODS, "resolvePath", "getAllPaths"] as const;

/** A filesystem that forwards to the command's own: what a reused interpreter holds. */
function switchFs(): { fs: object; set(fs: object | undefined): void } {
  let current: Fs | undefined;
  const fs: Record<string, unknown> = {};
  for (const m of ALL_FS_METHODS) {
    fs[m] = (...args: never[]) => {
      if (current === undefined) throw new Error("EACCES: permission denied: no command is running");
      return current[m]!(...args);
    };
  }
  return { fs, set: (f) => void (current = f as Fs | undefined) };
}

interface Shell {
  readonly key: string;
  readonly bash: JbBash;
  readonly fs: ReturnType<typeof switchFs>;
  readonly fetch: { current: JbSecureFetch | undefined };
  reusable: boolean;
}

/**
 * Interpreters kept between commands, by their settings (root, deadline,
 * limits, commands, network): one is taken by one command at a time and
 * given back with nothing of it left (its filesystem and fetch point
 * nowhere, its table of found commands emptied), or not given back when
 * that cannot be ensured. Building one costs more than a short command.
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

function take(justBash: JustBash, job: InterpretJob, commands: string[]): Shell {
  const deadline = Math.max(1, Math.floor(job.deadlineMs));
  const limits = Object.entries(job.limits).sort(([a], [b]) => (a < b ? -1 : 1));
  const key = `${job.root}\u0000${deadline}\u0000${job.network ? 1 : 0}\u0000${listId(commands)}\u0000${limits.join(",")}`;
  const kept = idle.get(key)?.pop();
  if (kept !== undefined) return kept;
  const fs = switchFs();
  const fetch: { current: JbSecureFetch | undefined } = { current: undefined };
  const bash = new justBash.Bash({
    fs: fs.fs,
    cwd: job.root,
    env: { HOME: job.root, USER: "agent", LANG: "C.UTF-8" },
    commands,
    customCommands: [yes!],
    ...(job.network ? { fetch: (url, options) => (fetch.current === undefined ? Promise.reject(new Error("no network")) : fetch.current(url, options)) } : {}),
    executionLimits: { ...Object.fromEntries(limits), maxExecutionTimeMs: deadline },
  });
  return { key, bash, fs, fetch, reusable: true };
}

function give(shell: Shell): void {
  shell.fs.set(undefined);
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

/**
 * Runs one command over `fs` (and curl over `fetch`); never throws for what
 * the command does (a failure of the interpreter itself does).
 */
export async function interpret(justBash: JustBash, job: InterpretJob, fs: object, fetch: JbSecureFetch | undefined, signal: AbortSignalLike | undefined): Promise<Interpreted> {
  yes ??= justBash.defineCommand("yes", async (args, ctx) => {
    const line = `${args.length === 0 ? "y" : args.join(" ")}\n`;
    // At most the shell's string length too: in the calling thread that is derived from the timeout (limits.ts).
    const cap = Math.min(YES_MAX_BYTES, ((ctx as { limits?: { maxStringLength?: unknown } } | undefined)?.limits?.maxStringLength as number | undefined) ?? YES_MAX_BYTES);
    return { stdout: line.repeat(Math.max(1, Math.floor(cap / line.length))), stderr: "", exitCode: 0 };
  });
  const commands = availableOf(justBash, job.commands);
  const shell = take(justBash, { ...job, network: fetch !== undefined && job.network }, commands);
  shell.fs.set(fs);
  shell.fetch.current = fetch;
  let r: { stdout: string; stderr: string; exitCode: number };
  let halted = false;
  try {
    // Cancellation: the interpreter stops at its next statement (just-bash
    // checks the signal there; a loop that never yields is stopped by the
    // deadline instead), and the filesystem fails every access from then on.
    r = await shell.bash.exec(job.command, { ...(signal === undefined ? {} : { signal }), rawScript: true });
  } catch (e) {
    shell.reusable = false;
    // just-bash lets a failed write of an output redirection escape the
    // whole script (its own filesystem never fails one); here it ends the
    // command as bash would end that one: with the error, exit 1.
    const info = fsErrorInfo(e);
    if (info === undefined) throw e;
    r = { stdout: "", stderr: `bash: ${info.path}: ${ERRNO_TEXT[info.code] ?? "Input/output error"}\n`, exitCode: 1 };
    halted = true;
  } finally {
    give(shell);
  }
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, halted, available: listed(commands, fetch !== undefined && job.network) };
}
