/**
 * The messages between the owning thread (the tool, its WorkspaceFs, the
 * run's policy) and an interpreter running in a thread of its own (a Worker
 * thread in Node, a Web Worker in a browser), and the owning thread's check
 * of each one. The interpreter's side is not trusted: it asks for file
 * operations and curl's requests, and the owning thread decides each one
 * exactly as it decides the interpreter's calls when both share a thread
 * (the WorkspaceFs, `permit`, curl's allowlist). What it sends is checked
 * to be the shape it must be; anything else ends the command.
 *
 * Every message is plain data (structured clone): strings, numbers,
 * booleans, arrays, plain objects, Uint8Array and Date.
 */
import { IsoagentError } from "../../errors.js";
import type { InterpretJob, Interpreted } from "./interpret.js";
import { FS_METHODS, type JbEncoding, type JbFetchResult } from "./just-bash.js";

/** A thread that runs the interpreter (see {@link BashRunner}): messages both ways, and a way to stop it at once. */
export interface BashThread {
  /** Sends a message to the interpreter. */
  postMessage(message: unknown): void;
  /** Sets the one listener for the interpreter's messages, and for the thread's failure (it could not start, or died). */
  listen(onMessage: (message: unknown) => void, onError: (error: unknown) => void): void;
  /** Stops the thread at once, whatever it is running. */
  terminate(): void;
  /** Whether the thread keeps its process alive (Node's ref/unref): true while it runs a command, false while idle. */
  keepAlive?(busy: boolean): void;
}

/**
 * Where bash's interpreter runs: a factory of threads that each serve
 * `serveInterpreter` (isoagent/toolkit/bash/node's
 * `nodeWorkerRunner`, isoagent/toolkit/bash/web's `webWorkerRunner`). A
 * thread is stopped (terminated) at its command's deadline, whatever the
 * command does; the owning thread's event loop is never blocked by it.
 */
export interface BashRunner {
  /** Starts a thread. */
  start(): BashThread;
  /**
   * Told once when a thread cannot start (no Worker, the worker's script not
   * found, refused by a CSP): from then on the shell runs in the owning
   * thread, under the limits derived from the timeout.
   */
  unavailable?(error: unknown): void;
}

/** The side of a thread the interpreter sees. */
export interface InterpreterEndpoint {
  postMessage(message: unknown): void;
  listen(onMessage: (message: unknown) => void): void;
}

/** An error as it crosses: its text, and for the filesystem's own errors their code and path. */
export interface WireError {
  readonly message: string;
  readonly code?: string;
  readonly path?: string;
}

export type ToThread =
  | { readonly t: "run"; readonly run: number; readonly job: InterpretJob }
  | { readonly t: "reply"; readonly run: number; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly t: "reply"; readonly run: number; readonly id: number; readonly ok: false; readonly error: WireError };

export type FromThread =
  | { readonly t: "ready" }
  | { readonly t: "unusable"; readonly message: string }
  | { readonly t: "fs"; readonly run: number; readonly id: number; readonly method: FsMethod; readonly args: readonly unknown[] }
  | { readonly t: "fetch"; readonly run: number; readonly id: number; readonly url: string; readonly options: FetchOptions }
  | { readonly t: "done"; readonly run: number; readonly result: Interpreted }
  | { readonly t: "failed"; readonly run: number };

export { FS_METHODS };
export type FsMethod = (typeof FS_METHODS)[number];

/** What crosses of curl's request options (no signal: the thread is stopped instead). */
export interface FetchOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly followRedirects?: boolean;
  readonly maxRedirects?: number;
  readonly timeoutMs?: number;
}

/** The longest path a file operation may name; past it the operation fails (a path is not a way to make the owning thread work). */
export const PATH_MAX_CHARS = 65_536;

const ENCODINGS: ReadonlySet<string> = new Set<JbEncoding>(["utf8", "utf-8", "ascii", "binary", "base64", "hex", "latin1"]);

/** A message from the thread that is not what the protocol allows. Code `BASH_PROTOCOL`. */
export class ProtocolError extends IsoagentError {
  constructor(message: string) {
    super("BASH_PROTOCOL", message);
    this.name = "ProtocolError";
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function path(v: unknown): string {
  if (typeof v !== "string") throw new ProtocolError("a path is not a string");
  if (v.length > PATH_MAX_CHARS) throw new ProtocolError("a path is too long");
  return v;
}

function encodingOption(v: unknown): JbEncoding | { encoding: JbEncoding | null } | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return ENCODINGS.has(v) ? (v as JbEncoding) : undefined;
  if (!isObject(v)) throw new ProtocolError("an encoding option is neither a string nor an object");
  const e = v["encoding"];
  return { encoding: typeof e === "string" && ENCODINGS.has(e) ? (e as JbEncoding) : null };
}

function flags<K extends string>(v: unknown, keys: readonly K[]): Partial<Record<K, boolean>> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new ProtocolError("options are not an object");
  const out: Partial<Record<K, boolean>> = {};
  for (const k of keys) if (v[k] === true) out[k] = true;
  return out;
}

function content(v: unknown): string | Uint8Array {
  if (typeof v === "string" || v instanceof Uint8Array) return v;
  throw new ProtocolError("file content is neither a string nor bytes");
}

/**
 * The arguments of a file operation the thread asked for, checked and
 * rebuilt from what each operation takes (no other field, no other type):
 * what the owning thread's WorkspaceFs is then called with.
 */
export function fsArgs(method: unknown, args: unknown): { method: FsMethod; args: unknown[] } {
  if (typeof method !== "string" || !(FS_METHODS as readonly string[]).includes(method)) throw new ProtocolError("not a file operation");
  if (!Array.isArray(args) || args.length > 3) throw new ProtocolError("the arguments are not a short list");
  const m = method as FsMethod;
  switch (m) {
    case "readFile":
      return { method: m, args: [path(args[0]), encodingOption(args[1])] };
    case "writeFile":
    case "appendFile":
      return { method: m, args: [path(args[0]), content(args[1]), encodingOption(args[2])] };
    case "mkdir":
      return { method: m, args: [path(args[0]), flags(args[1], ["recursive"])] };
    case "rm":
      return { method: m, args: [path(args[0]), flags(args[1], ["recursive", "force"])] };
    case "cp":
      return { method: m, args: [path(args[0]), path(args[1]), flags(args[2], ["recursive"])] };
    case "mv":
    case "symlink":
    case "link":
      return { method: m, args: [path(args[0]), path(args[1])] };
    case "chmod":
      if (!isCount(args[1])) throw new ProtocolError("a mode is not a number");
      return { method: m, args: [path(args[0]), args[1]] };
    default:
      // readFileBuffer, exists, stat, lstat, readdir, readdirWithFileTypes, readlink, realpath, utimes: a path (utimes ignores its times).
      return { method: m, args: [path(args[0])] };
  }
}

/** curl's request as the thread asked for it, checked: a URL string and the options curl passes. */
export function fetchArgs(url: unknown, options: unknown): { url: string; options: FetchOptions } {
  if (typeof url !== "string" || url.length > PATH_MAX_CHARS) throw new ProtocolError("a URL is not a string");
  if (options !== undefined && !isObject(options)) throw new ProtocolError("request options are not an object");
  const o = (options ?? {}) as Record<string, unknown>;
  const out: { -readonly [K in keyof FetchOptions]: FetchOptions[K] } = {};
  if (typeof o["method"] === "string") out.method = o["method"];
  if (typeof o["body"] === "string") out.body = o["body"];
  if (typeof o["followRedirects"] === "boolean") out.followRedirects = o["followRedirects"];
  if (isCount(o["maxRedirects"])) out.maxRedirects = o["maxRedirects"];
  if (isCount(o["timeoutMs"])) out.timeoutMs = o["timeoutMs"];
  if (o["headers"] !== undefined) {
    if (!isObject(o["headers"])) throw new ProtocolError("request headers are not an object");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(o["headers"])) if (typeof v === "string") headers[k] = v;
    out.headers = headers;
  }
  return { url, options: out };
}

/** The interpreter's result as the thread sent it, checked; `allowed` are the commands the shell may list as available. */
export function interpreted(v: unknown, allowed: ReadonlySet<string>): Interpreted {
  if (!isObject(v)) throw new ProtocolError("a result is not an object");
  const { stdout, stderr, exitCode, halted, available } = v;
  if (typeof stdout !== "string" || typeof stderr !== "string") throw new ProtocolError("a result's streams are not strings");
  if (typeof exitCode !== "number" || !Number.isSafeInteger(exitCode)) throw new ProtocolError("a result's exit code is not an integer");
  if (typeof halted !== "boolean" || !Array.isArray(available)) throw new ProtocolError("a result is not complete");
  return { stdout, stderr, exitCode, halted, available: [...new Set(available.filter((c): c is string => typeof c === "string" && allowed.has(c)))].sort() };
}

/** A fetch result as it crosses back (plain data). */
export function wireFetchResult(r: JbFetchResult): JbFetchResult {
  return { status: r.status, statusText: r.statusText, headers: { ...r.headers }, body: r.body, url: r.url };
}
