/**
 * The part of bash that loads lazily: one command over the workspace's
 * filesystem, with its deadline, its cancellation, and curl's network when
 * the application allows one. Where the command's interpreter runs:
 *
 * - in a thread of its own, when the tool was given a runner (the default
 *   of isoagent/toolkit/bash in Node and in browsers): the thread is
 *   terminated at the deadline, whatever the command does, and this
 *   thread's event loop goes on meanwhile;
 * - here, otherwise (workerd, which has no threads; a runner whose thread
 *   could not start): just-bash stops itself at its deadline between
 *   statements, and its limits, derived from the timeout (limits.ts), bound
 *   what one statement can do in between.
 *
 * Either way the filesystem (fs.ts) and curl's network (network.ts) live
 * here, in the owning thread: every path and every request is decided by
 * the same code, against the run's policy.
 */
import type { PermitAnswer, ResourceRef } from "../../tools/index.js";
import type { AbortSignalLike } from "../../web.js";
import type { Workspace } from "../workspace.js";
import { WorkspaceFs, type Refusal } from "./fs.js";
import { interpret, trustedRunners, type InterpretJob, type Interpreted, type Trusted } from "./interpret.js";
import { loadJustBash } from "./just-bash.js";
import { inThreadDeadline, inThreadLimits, THREAD_LIMITS } from "./limits.js";
import { shellFetch, type NetworkLog, type ShellNetwork } from "./network.js";
import type { BashRunner } from "./protocol.js";
import { runRemote, runnerUnavailable } from "./remote.js";

export interface RunRequest {
  readonly command: string;
  readonly ws: Workspace;
  readonly root: string;
  /** The run's policy about what the command touches (ToolContext.permit, or the preview's). */
  readonly permit: (resources: readonly ResourceRef[]) => PermitAnswer;
  readonly signal: AbortSignalLike | undefined;
  /** The tool's timeout, in ms: the in-thread limits are derived from it. */
  readonly timeoutMs: number;
  /** How long the command may run from now, in ms (the timeout less the margin to report, less what loading took). */
  readonly deadlineMs: number;
  /** curl's network; none when undefined. */
  readonly network: ShellNetwork | undefined;
  /** The commands this shell has (without yes and curl, which are added). */
  readonly commands: readonly string[];
  /** Where the interpreter runs: a thread of its own, or (undefined) here. */
  readonly runner: BashRunner | undefined;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
  /** False when the deadline stopped the command. */
  readonly finished: boolean;
  readonly fs: WorkspaceFs;
  readonly net: NetworkLog;
  readonly refusals: readonly Refusal[];
  /** True when a failed write ended the script early (its output up to there is lost). */
  readonly halted: boolean;
  /** The commands the shell has, as this copy of just-bash registered them. */
  readonly available: readonly string[];
}

/** The owning thread's host code outside any sandbox context (there is none here when just-bash is not loaded in this thread). */
const plainRunners: Trusted = { trusted: (fn) => fn(), trustedSync: (fn) => fn() };

/** Runs one command; never throws for what the command does (a failure of the interpreter itself does). */
export async function runCommand(req: RunRequest): Promise<RunResult> {
  const remote = req.runner !== undefined && !runnerUnavailable(req.runner);
  // In-thread, just-bash is loaded here, and its Node build's defense-in-depth context must be left for host code.
  const justBash = remote ? undefined : await loadJustBash();
  // (Set again when a runner turns out unavailable and just-bash is loaded here after all.)
  let runners = justBash === undefined ? plainRunners : trustedRunners(justBash);
  const trusted: Trusted["trusted"] = (fn) => runners.trusted(fn);
  const trustedSync: Trusted["trustedSync"] = (fn) => runners.trustedSync(fn);
  const started = Date.now();
  const files = await trusted(() => req.ws.list(""));
  const fs = new WorkspaceFs(req.ws, req.root, files, {
    permit: (key, operation) => trustedSync(() => req.permit([{ kind: "path", value: key, operation }]).permission === "allow"),
    trusted,
  });
  const net: NetworkLog = { hosts: [], refusals: [] };
  const fetch = req.network === undefined ? undefined : shellFetch(req.network, (r) => trustedSync(() => req.permit(r)), trusted, req.signal, net);
  const job = (deadlineMs: number, limits: Readonly<Record<string, number>>): InterpretJob => ({
    command: req.command,
    root: req.root,
    deadlineMs: Math.max(1, Math.floor(deadlineMs)),
    commands: req.commands,
    network: fetch !== undefined,
    limits,
  });
  const onAbort = (): void => fs.cancel();
  req.signal?.addEventListener("abort", onAbort, { once: true });
  if (req.signal?.aborted === true) fs.cancel();
  let r: Interpreted | "stopped" | undefined;
  let deadline = req.deadlineMs - (Date.now() - started);
  let ran = Date.now();
  try {
    if (remote) {
      // The thread's interpreter stops itself at its deadline when it can (a
      // sleep); a command that never yields is stopped a little later, by
      // terminating its thread.
      const grace = Math.min(250, Math.max(1, Math.floor(deadline / 10)));
      const o = await runRemote(req.runner!, job(deadline, THREAD_LIMITS), fs, fetch, req.signal, deadline + grace);
      if (o.kind === "failed") throw new Error("the interpreter's thread failed");
      if (o.kind === "done") r = o.result;
      else if (o.kind === "stopped" || o.kind === "cancelled") r = "stopped";
    }
    if (r === undefined) {
      // Here: half the timeout (see limits.ts), less what has passed.
      deadline = Math.min(req.deadlineMs, inThreadDeadline(req.timeoutMs)) - (Date.now() - started);
      if (deadline <= 0) r = "stopped";
      else {
        const jb = justBash ?? (await loadJustBash());
        runners = trustedRunners(jb);
        ran = Date.now();
        r = await interpret(jb, job(deadline, inThreadLimits(req.timeoutMs)), fs, fetch, req.signal);
      }
    }
  } finally {
    req.signal?.removeEventListener("abort", onAbort);
  }
  if (r === "stopped") {
    return { stdout: "", stderr: "", exitCode: 124, finished: false, fs, net, halted: false, refusals: [...fs.refusals, ...net.refusals], available: [] };
  }
  const elapsed = Date.now() - ran;
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
  const finished = !(elapsed >= deadline && req.signal?.aborted !== true && (r.exitCode === 124 || r.exitCode === 1) && /execution deadline|execution aborted/.test(stderr));
  return {
    stdout: r.stdout,
    stderr,
    exitCode: r.exitCode,
    finished,
    fs,
    net,
    halted: r.halted,
    refusals: [...fs.refusals, ...net.refusals],
    available: r.available,
  };
}
