/**
 * The part of just-bash's API the shell uses, typed here rather than
 * through just-bash's own declarations: those reach undici's, which pull
 * in Node's global types, and the core compiles with ES2022 alone (see
 * src/web.ts). The module is loaded by a dynamic import that TypeScript
 * does not resolve and bundlers do (a chunk of its own).
 */
import { importPeer } from "../../peers.js";

/** What just-bash's filesystem methods return for a stat. */
export interface JbStat {
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  mode: number;
  size: number;
  mtime: Date;
}

/** The encodings just-bash passes to a filesystem. */
export type JbEncoding = "utf8" | "utf-8" | "ascii" | "binary" | "base64" | "hex" | "latin1";

/** What curl's fetch returns. */
export interface JbFetchResult {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Uint8Array;
  url: string;
}

/** curl's fetch: a URL and options, an answer. */
export type JbSecureFetch = (
  url: string,
  options?: {
    method?: string;
    headers?: Record<string, string> | { forEach(cb: (value: string, key: string) => void): void };
    body?: string;
    followRedirects?: boolean;
    timeoutMs?: number;
    maxRedirects?: number;
    signal?: unknown;
  },
) => Promise<JbFetchResult>;

export interface JbExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface JbCommand {
  readonly name: string;
}

export interface JbBash {
  exec(command: string, options?: { signal?: unknown; rawScript?: boolean; cwd?: string }): Promise<JbExecResult>;
}

export interface JbBashOptions {
  fs: object;
  cwd: string;
  env: Record<string, string>;
  commands: string[];
  customCommands: JbCommand[];
  fetch?: JbSecureFetch;
  executionLimits: Record<string, number>;
}

/** The filesystem operations that cross (resolvePath and getAllPaths are answered where the interpreter is: see interpreter.ts). */
export const FS_METHODS = [
  "readFile",
  "readFileBuffer",
  "writeFile",
  "appendFile",
  "exists",
  "stat",
  "lstat",
  "mkdir",
  "readdir",
  "readdirWithFileTypes",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
  "readlink",
  "realpath",
  "utimes",
] as const;

/** The module, as far as the shell uses it. */
export interface JustBash {
  Bash: new (options: JbBashOptions) => JbBash;
  defineCommand(name: string, execute: (args: string[], ctx: unknown) => Promise<JbExecResult>): JbCommand;
  getCommandNames(): string[];
  /** Only in the Node build: runs host code outside a command's defense-in-depth context. */
  DefenseInDepthBox?: {
    runTrusted<T>(fn: () => T): T;
    runTrustedAsync<T>(fn: () => Promise<T>): Promise<T>;
  };
}

let loading: Promise<JustBash> | undefined;

/** just-bash, loaded once. */
export function loadJustBash(): Promise<JustBash> {
  // `as string` keeps TypeScript from resolving (and type-loading) the
  // package; bundlers see the literal and split it into its own chunk.
  loading ??= importPeer("just-bash", "isoagent/toolkit/bash", () => import("just-bash" as string) as Promise<JustBash>).catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}
