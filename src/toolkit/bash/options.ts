/**
 * What the bash tool offers and how an application sets it up: the
 * commands the model is told it has, curl's network, and the tool's
 * options (bashTool in tool.ts reads them; docs/tools/bash.md has the
 * contract).
 */
import type { FetchLike } from "../../web.js";
import type { Workspace } from "../workspace.js";
import type { BashRunner } from "./protocol.js";

/**
 * The commands this shell offers (besides curl when the network is on), as
 * the model is told: the same on every platform, so just-bash's commands
 * that its browser build (what browsers and Workers load) lacks are left
 * out everywhere: sqlite3, tar, xan and yq, and gzip, gunzip and zcat
 * (node:zlib). yes is isoagent's, bounded (pipes here are not streams).
 */
export const BASH_COMMANDS: readonly string[] = [
  "alias",
  "awk",
  "base64",
  "basename",
  "bash",
  "cat",
  "chmod",
  "clear",
  "column",
  "comm",
  "cp",
  "cut",
  "date",
  "diff",
  "dirname",
  "du",
  "echo",
  "egrep",
  "env",
  "expand",
  "expr",
  "false",
  "fgrep",
  "file",
  "find",
  "fold",
  "grep",
  "head",
  "help",
  "history",
  "hostname",
  "html-to-markdown",
  "jq",
  "join",
  "ln",
  "ls",
  "md5sum",
  "mkdir",
  "mv",
  "nl",
  "od",
  "paste",
  "printenv",
  "printf",
  "pwd",
  "readlink",
  "rev",
  "rg",
  "rm",
  "rmdir",
  "sed",
  "seq",
  "sh",
  "sha1sum",
  "sha256sum",
  "sleep",
  "sort",
  "split",
  "stat",
  "strings",
  "tac",
  "tail",
  "tee",
  "time",
  "timeout",
  "touch",
  "tr",
  "tree",
  "true",
  "unalias",
  "unexpand",
  "uniq",
  "wc",
  "which",
  "whoami",
  "xargs",
];

/** What curl may do inside the bash tool: the hosts it may reach, the methods it may use, the bytes it reads, and the headers added for it. Without them, the command has no network. */
export interface BashNetworkOptions {
  /** Hosts curl may reach, as http_fetch's allowlist: "example.com", "*.example.com", "127.0.0.1:8080". */
  readonly allow: readonly string[];
  /** Default ["GET", "HEAD"]. */
  readonly methods?: readonly ("GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE")[] | undefined;
  /** Bytes of a response read, at most (a larger one fails). Default 1,048,576. */
  readonly maxBytes?: number | undefined;
  /** Headers added to requests to a host (credentials the command never sees). */
  readonly headers?: ((host: string) => Readonly<Record<string, string>> | undefined) | undefined;
  readonly fetch?: FetchLike | undefined;
}

/** How `bashTool` runs a command: its workspace and root, whether each call asks an operator, its limits, and its network. */
export interface BashToolOptions {
  readonly workspace: Workspace;
  /** The root the command sees its workspace at (and starts in). Default "/workspace". */
  readonly root?: string | undefined;
  /** Each call waits for an operator's approval, who sees a dry run's changes. Default true. */
  readonly requireApproval?: boolean | undefined;
  /** Default 30,000 ms; the interpreter stops a little before (see the docs). */
  readonly timeoutMs?: number | undefined;
  /**
   * Where the interpreter runs. A {@link BashRunner} (a Worker thread in
   * Node, a Web Worker in a browser: the default of isoagent/toolkit/bash
   * there) runs each command in a thread of its own, terminated at the
   * deadline whatever the command does. "in_thread" (the default where
   * there are no threads, as in workerd) runs it in the calling thread,
   * under limits derived from the timeout. See docs/tools/bash.md.
   */
  readonly runner?: BashRunner | "in_thread" | undefined;
  /**
   * "on_success" (the default): a command's changes are committed only when
   * it exits 0; otherwise none is. "always": what it changed is committed
   * whatever its exit code ("commit what succeeded"). A command stopped at
   * its deadline, cancelled, or failed in the interpreter commits nothing
   * either way.
   */
  readonly commit?: "on_success" | "always" | undefined;
  /** curl's network: none when left out. With it, the tool is a remote_mutation. */
  readonly network?: BashNetworkOptions | undefined;
  /** Lines of each stream shown, at most. Default {@link BASH_MAX_LINES}. */
  readonly maxLines?: number | undefined;
  /** Bytes of each stream shown, at most. Default {@link BASH_MAX_BYTES}. */
  readonly maxBytes?: number | undefined;
  /** Which end of a long stream is shown. Default "tail". */
  readonly strategy?: "head" | "tail" | undefined;
  /**
   * Where the full output of a cut or binary stream is kept. Default: the
   * call's `ctx.putArtifact` (the run's store, text redacted first); false:
   * not kept.
   */
  readonly artifacts?: { putArtifact(bytes: Uint8Array): Promise<{ readonly sha256: string }> } | false | undefined;
}
