/**
 * The shell's filesystem: the run's Workspace seen from inside the
 * interpreter, rooted at the workspace root (/workspace), with the command's
 * changes staged in memory until it ends (then committed as one change, or
 * dropped). This is the boundary:
 *
 * - a path outside the workspace is refused here (reads, writes, deletes,
 *   listings), whatever the policy says; /dev/null is the one device;
 * - every workspace path is put to the run's policy before it is read,
 *   written or deleted (`permit`), and a listing shows only the files the
 *   policy lets this call read, so a denied file's name or content never
 *   reaches the command;
 * - there are no links: the workspace has none, and none can be made;
 * - folders exist because files are under them (as in the Workspace); a
 *   folder made with mkdir lasts for the command, not after it.
 *
 * Every refusal is recorded for the result's notice.
 */
import { encodeUtf8, utf8StreamDecoder } from "../../web.js";
import type { Workspace, WorkspaceChange } from "../workspace.js";
import { FILE_MAX_BYTES } from "../text.js";
import type { JbEncoding as BufferEncoding, JbStat as FsStat } from "./just-bash.js";

type FileContent = string | Uint8Array;
interface MkdirOptions {
  recursive?: boolean;
}
interface RmOptions {
  recursive?: boolean;
  force?: boolean;
}
interface CpOptions {
  recursive?: boolean;
}

/** Why the shell refused an access. */
export type RefusalReason = "outside" | "device" | "root" | "policy" | "links" | "name" | "too_large" | "full" | "allowlist";

export interface Refusal {
  readonly operation: "read" | "write" | "delete" | "link" | "fetch";
  /** The absolute path as the command reached it. */
  readonly path: string;
  readonly why: RefusalReason;
}

/** What the filesystem needs from the call: the policy, and a way to run host code outside the interpreter's sandbox context. */
export interface FsAccess {
  /** Whether the run's policy lets this call do `operation` to the workspace key. */
  permit(key: string, operation: "read" | "write" | "delete"): boolean;
  /** Runs host code (the workspace's storage) outside the interpreter's defense-in-depth context. */
  trusted<T>(fn: () => Promise<T>): Promise<T>;
}

/** One file the command changed. */
export interface FileChange {
  readonly change: WorkspaceChange;
  /** Whether a file was there before. */
  readonly existed: boolean;
  /** Its old content, when there was a file and the policy lets this call read it. */
  readonly before: Uint8Array | undefined;
}

/** Bytes all the command's staged files may hold together. */
export const STAGED_MAX_BYTES = 64 * 1024 * 1024;

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/** Workspace files have no times: every file shows this one, so that listings are deterministic. */
const EPOCH = new Date(0);

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let k = 0; k < bytes.length; k += 3) {
    const a = bytes[k]!, b = bytes[k + 1], c = bytes[k + 2];
    out += B64[a >> 2]! + B64[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? "=" : B64[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? "=" : B64[c & 63]!;
  }
  return out;
}

function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let n = 0;
  for (let k = 0; k + 1 < clean.length; k += 4) {
    const v = [0, 1, 2, 3].map((i) => (k + i < clean.length ? B64.indexOf(clean[k + i]!) : 0));
    out[n++] = (v[0]! << 2) | (v[1]! >> 4);
    if (k + 2 < clean.length) out[n++] = ((v[1]! & 15) << 4) | (v[2]! >> 2);
    if (k + 3 < clean.length) out[n++] = ((v[2]! & 3) << 6) | v[3]!;
  }
  return out.subarray(0, n);
}

function decodeUtf8(bytes: Uint8Array): string {
  const d = utf8StreamDecoder();
  return d(bytes) + d();
}

const FS_ERROR = Symbol.for("isoagent.bash.fsError");

/** An error this filesystem threw: its code and the absolute path. */
export interface FsErrorInfo {
  readonly code: string;
  readonly path: string;
}

function fsError(code: string, what: string, syscall: string, path: string): Error {
  const e = new Error(`${code}: ${what}, ${syscall} '${path}'`) as Error & { code: string };
  e.code = code;
  Object.defineProperty(e, FS_ERROR, { value: { code, path } satisfies FsErrorInfo });
  return e;
}

/** The code and path of an error this filesystem threw, or undefined for any other. */
export function fsErrorInfo(e: unknown): FsErrorInfo | undefined {
  return typeof e === "object" && e !== null ? ((e as Record<symbol, FsErrorInfo | undefined>)[FS_ERROR] ?? undefined) : undefined;
}

/** An error as it crosses between threads: its message, and this filesystem's code and path when it is one of its errors. */
export function wireError(e: unknown): { message: string; code?: string; path?: string } {
  const info = fsErrorInfo(e);
  const message = e instanceof Error ? e.message : String(e);
  return info === undefined ? { message } : { message, code: info.code, path: info.path };
}

/** The error {@link wireError} described, rebuilt on the other side (an error of this filesystem again when it was one). */
export function unwireError(w: { message: string; code?: string; path?: string }): Error {
  const e = new Error(w.message) as Error & { code?: string };
  if (w.code !== undefined && w.path !== undefined) {
    e.code = w.code;
    Object.defineProperty(e, FS_ERROR, { value: { code: w.code, path: w.path } satisfies FsErrorInfo });
  }
  return e;
}

/** A virtual path with `.` and `..` resolved, one leading slash, no trailing one (as the interpreter's own). */
export function normalizePath(path: string): string {
  if (path === "" || path === "/") return "/";
  // The common case, already normal: absolute, ASCII, no empty, "." or ".." segments, no trailing slash.
  if (path.charCodeAt(0) === 47 && /^(\/[A-Za-z0-9_@%+=,:~-][A-Za-z0-9_@%+=,:~.-]*)+$/.test(path) && !/\/\.\.?(\/|$)/.test(path)) return path;
  const parts: string[] = [];
  for (const p of path.normalize("NFC").split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return `/${parts.join("/")}`;
}

function toBytes(content: FileContent, encoding: BufferEncoding | undefined): Uint8Array {
  if (content instanceof Uint8Array) return content;
  if (encoding === "binary" || encoding === "latin1") {
    const out = new Uint8Array(content.length);
    for (let k = 0; k < content.length; k++) out[k] = content.charCodeAt(k) & 0xff;
    return out;
  }
  if (encoding === "base64") return fromBase64(content);
  if (encoding === "hex") {
    const out = new Uint8Array(Math.floor(content.length / 2));
    for (let k = 0; k < out.length; k++) out[k] = parseInt(content.slice(2 * k, 2 * k + 2), 16);
    return out;
  }
  return encodeUtf8(content);
}

function fromBytes(bytes: Uint8Array, encoding: BufferEncoding | null | undefined): string {
  if (encoding === "binary" || encoding === "latin1") {
    let out = "";
    for (let k = 0; k < bytes.length; k += 0x8000) out += String.fromCharCode(...bytes.subarray(k, k + 0x8000));
    return out;
  }
  if (encoding === "base64") return toBase64(bytes);
  if (encoding === "hex") return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return decodeUtf8(bytes);
}

const encodingOf = (o: { encoding?: BufferEncoding | null } | BufferEncoding | string | null | undefined): BufferEncoding | undefined =>
  o === null || o === undefined ? undefined : typeof o === "string" ? (o as BufferEncoding) : (o.encoding ?? undefined);

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, k) => x === b[k]);

type Place = { kind: "ancestor"; path: string } | { kind: "ws"; key: string; path: string } | { kind: "null"; path: string } | { kind: "outside"; path: string };

/**
 * The workspace as just-bash's filesystem. `files` is the workspace's listing
 * when the command starts; contents are read when the command needs them.
 */
export class WorkspaceFs {
  readonly refusals: Refusal[] = [];
  /** Workspace files a listing left out because the policy does not let this call read them. */
  readonly hidden = new Set<string>();
  private readonly base = new Map<string, number>();
  private readonly cache = new Map<string, Uint8Array>();
  private readonly staged = new Map<string, Uint8Array | null>();
  private readonly madeDirs = new Set<string>();
  private readonly modes = new Map<string, number>();
  private readonly allowed = new Map<string, boolean>();
  private stagedBytes = 0;
  private readonly refused = new Set<string>();

  constructor(
    private readonly ws: Workspace,
    private readonly root: string,
    files: readonly { path: string; size: number }[],
    private readonly access: FsAccess,
  ) {
    for (const f of files) this.base.set(f.path, f.size);
  }

  // ---- where a path is, and whether it may be touched ------------------------

  private cancelled = false;

  /** The call was cancelled: from now on every access fails, so the command stops at its next one. */
  cancel(): void {
    this.cancelled = true;
  }

  private place(raw: string): Place {
    if (this.cancelled) throw fsError("ECANCELED", "operation canceled: the call was cancelled", "access", normalizePath(raw));
    const path = normalizePath(raw);
    if (path === this.root) return { kind: "ws", key: "", path };
    if (path.startsWith(`${this.root}/`)) return { kind: "ws", key: path.slice(this.root.length + 1), path };
    if (path === "/" || this.root.startsWith(`${path}/`)) return { kind: "ancestor", path };
    if (path === "/dev/null") return { kind: "null", path };
    return { kind: "outside", path };
  }

  private refuse(operation: Refusal["operation"], path: string, why: RefusalReason, syscall: string): Error {
    const id = `${operation}\u0000${path}\u0000${why}`;
    if (!this.refused.has(id)) {
      this.refused.add(id);
      this.refusals.push({ operation, path, why });
    }
    const what: Record<RefusalReason, [string, string]> = {
      outside: ["EACCES", "permission denied: outside the workspace"],
      device: ["EACCES", "permission denied: not a device this shell has"],
      root: ["EPERM", "operation not permitted: the workspace root itself cannot be removed"],
      policy: ["EACCES", "permission denied by policy"],
      links: ["EPERM", "operation not permitted: the workspace has no links"],
      name: ["EINVAL", "invalid file name for the workspace"],
      too_large: ["EFBIG", `file too large: the workspace keeps files of at most ${FILE_MAX_BYTES} bytes`],
      full: ["ENOSPC", `no space left: a command may stage at most ${STAGED_MAX_BYTES} bytes`],
      allowlist: ["EACCES", "permission denied: not on the allowlist"],
    };
    const [code, text] = what[why];
    return fsError(code, text, syscall, path);
  }

  /** The policy's answer for a key and operation, asked once per command. */
  private may(key: string, operation: "read" | "write" | "delete"): boolean {
    const id = `${operation}\u0000${key}`;
    let ok = this.allowed.get(id);
    if (ok === undefined) {
      try {
        ok = this.access.permit(key, operation) === true;
      } catch {
        ok = false; // fail closed
      }
      this.allowed.set(id, ok);
    }
    return ok;
  }

  /** A workspace key the command may read, or a thrown refusal (outside, device, policy). */
  private readable(raw: string, syscall: string): { key: string; path: string } | { device: true; path: string } | { ancestor: true; path: string } {
    const p = this.place(raw);
    if (p.kind === "outside") throw this.refuse("read", p.path, p.path.startsWith("/dev/") ? "device" : "outside", syscall);
    if (p.kind === "null") return { device: true, path: p.path };
    if (p.kind === "ancestor") return { ancestor: true, path: p.path };
    if (p.key !== "" && !this.may(p.key, "read")) throw this.refuse("read", p.path, "policy", syscall);
    return { key: p.key, path: p.path };
  }

  /** A workspace key the command may change (write or delete), or a thrown refusal. */
  private changeable(raw: string, operation: "write" | "delete", syscall: string): { key: string; path: string } | { device: true; path: string } {
    const p = this.place(raw);
    if (p.kind === "null") return { device: true, path: p.path };
    if (p.kind === "outside" || p.kind === "ancestor") throw this.refuse(operation, p.path, p.path.startsWith("/dev/") ? "device" : "outside", syscall);
    if (p.key === "") throw this.refuse(operation, p.path, "root", syscall);
    // eslint-disable-next-line no-control-regex
    if (operation === "write" && (/[\u0000-\u001f\u007f\\]/.test(p.key) || p.key.length > 1024 || p.key.split("/").some((s) => s.length > 255) || p.key.split("/").length > 64)) {
      throw this.refuse(operation, p.path, "name", syscall);
    }
    if (!this.may(p.key, operation)) throw this.refuse(operation, p.path, "policy", syscall);
    return { key: p.key, path: p.path };
  }

  // ---- the tree as the command sees it ---------------------------------------

  /** Whether a file is there for this command (staged or in the workspace) and it may read it. */
  private fileVisible(key: string): boolean {
    const s = this.staged.get(key);
    const present = s !== undefined ? s !== null : this.base.has(key);
    return present && this.may(key, "read");
  }

  private *allKeys(): Iterable<string> {
    for (const k of this.base.keys()) if (!this.staged.has(k)) yield k;
    for (const [k, v] of this.staged) if (v !== null) yield k;
  }

  private dirVisible(key: string): boolean {
    if (key === "") return true;
    if (this.madeDirs.has(key)) return true;
    const prefix = `${key}/`;
    for (const k of this.allKeys()) if (k.startsWith(prefix) && this.may(k, "read")) return true;
    for (const d of this.madeDirs) if (d.startsWith(prefix)) return true;
    return false;
  }

  /** The visible children of a folder: name and whether it is a folder. */
  private children(key: string): Map<string, boolean> {
    const prefix = key === "" ? "" : `${key}/`;
    const out = new Map<string, boolean>();
    for (const k of this.allKeys()) {
      if (!k.startsWith(prefix)) continue;
      const rest = k.slice(prefix.length);
      const slash = rest.indexOf("/");
      const name = slash < 0 ? rest : rest.slice(0, slash);
      if (out.get(name) === true) continue;
      if (!this.may(k, "read")) {
        this.hidden.add(k);
        continue;
      }
      out.set(name, slash >= 0);
    }
    for (const d of this.madeDirs) {
      if (!d.startsWith(prefix)) continue;
      const rest = d.slice(prefix.length);
      const name = rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : rest;
      if (name !== "") out.set(name, true);
    }
    return out;
  }

  private async bytesOf(key: string, path: string): Promise<Uint8Array> {
    const s = this.staged.get(key);
    if (s === null) throw fsError("ENOENT", "no such file or directory", "open", path);
    if (s !== undefined) return s;
    if (!this.base.has(key)) {
      if (this.dirVisible(key)) throw fsError("EISDIR", "illegal operation on a directory", "read", path);
      throw fsError("ENOENT", "no such file or directory", "open", path);
    }
    let b = this.cache.get(key);
    if (b === undefined) {
      const read = await this.access.trusted(() => this.ws.read(key));
      if (read === undefined) throw fsError("ENOENT", "no such file or directory", "open", path);
      b = read;
      this.cache.set(key, b);
    }
    return b;
  }

  private stage(key: string, path: string, bytes: Uint8Array | null): void {
    if (bytes !== null && bytes.length > FILE_MAX_BYTES) throw this.refuse("write", path, "too_large", "write");
    const old = this.staged.get(key);
    const delta = (bytes?.length ?? 0) - (old?.length ?? 0);
    if (this.stagedBytes + delta > STAGED_MAX_BYTES) throw this.refuse("write", path, "full", "write");
    this.stagedBytes += delta;
    this.staged.set(key, bytes);
  }

  /**
   * A file may be written at `key`: nothing there is a folder, and no folder
   * above it is a file. Missing folders are made, as the workspace makes
   * them (folders exist because files are under them).
   */
  private checkWritable(key: string, path: string, syscall: string): void {
    if (this.dirVisible(key) && !this.fileVisible(key)) throw fsError("EISDIR", "illegal operation on a directory", syscall, path);
    const segs = key.split("/");
    for (let k = 1; k < segs.length; k++) if (this.fileVisible(segs.slice(0, k).join("/"))) throw fsError("ENOTDIR", "not a directory", syscall, path);
  }

  // ---- IFileSystem -----------------------------------------------------------

  async readFile(path: string, options?: { encoding?: BufferEncoding | null } | BufferEncoding): Promise<string> {
    return fromBytes(await this.readFileBuffer(path), encodingOf(options) ?? "utf8");
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const r = this.readable(path, "open");
    if ("device" in r) return new Uint8Array(0);
    if ("ancestor" in r) throw fsError("EISDIR", "illegal operation on a directory", "read", r.path);
    if (r.key === "") throw fsError("EISDIR", "illegal operation on a directory", "read", r.path);
    return new Uint8Array(await this.bytesOf(r.key, r.path));
  }

  async writeFile(path: string, content: FileContent, options?: { encoding?: BufferEncoding } | BufferEncoding): Promise<void> {
    const w = this.changeable(path, "write", "open");
    if ("device" in w) return;
    this.checkWritable(w.key, w.path, "open");
    this.stage(w.key, w.path, new Uint8Array(toBytes(content, encodingOf(options))));
  }

  async appendFile(path: string, content: FileContent, options?: { encoding?: BufferEncoding } | BufferEncoding): Promise<void> {
    const w = this.changeable(path, "write", "open");
    if ("device" in w) return;
    this.checkWritable(w.key, w.path, "open");
    const add = toBytes(content, encodingOf(options));
    let before: Uint8Array = new Uint8Array(0);
    if (this.fileVisible(w.key)) before = await this.bytesOf(w.key, w.path);
    else if (this.staged.get(w.key) === undefined && this.base.has(w.key) && !this.may(w.key, "read")) throw this.refuse("read", w.path, "policy", "open");
    const out = new Uint8Array(before.length + add.length);
    out.set(before);
    out.set(add, before.length);
    this.stage(w.key, w.path, out);
  }

  async exists(path: string): Promise<boolean> {
    if (path.includes("\u0000")) return false;
    const p = this.place(path);
    if (p.kind === "ancestor" || p.kind === "null") return true;
    if (p.kind === "outside") return false;
    if (p.key === "") return true;
    if (!this.may(p.key, "read")) {
      this.refuse("read", p.path, "policy", "access");
      return false;
    }
    return this.fileVisible(p.key) || this.dirVisible(p.key);
  }

  async stat(path: string): Promise<FsStat> {
    // Nothing outside the workspace exists for this shell: asking is not
    // refused (the interpreter asks about /usr/bin while finding commands),
    // reading, listing, writing or deleting there is.
    const p = this.place(path);
    if (p.kind === "outside") throw fsError("ENOENT", "no such file or directory", "stat", p.path);
    const r = this.readable(path, "stat");
    if ("device" in r) return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: EPOCH };
    if ("ancestor" in r || r.key === "") return { isFile: false, isDirectory: true, isSymbolicLink: false, mode: DIR_MODE, size: 0, mtime: EPOCH };
    if (this.fileVisible(r.key)) {
      const s = this.staged.get(r.key);
      const size = s instanceof Uint8Array ? s.length : (this.base.get(r.key) ?? 0);
      return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: this.modes.get(r.key) ?? FILE_MODE, size, mtime: EPOCH };
    }
    if (this.dirVisible(r.key)) return { isFile: false, isDirectory: true, isSymbolicLink: false, mode: this.modes.get(r.key) ?? DIR_MODE, size: 0, mtime: EPOCH };
    throw fsError("ENOENT", "no such file or directory", "stat", r.path);
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const p = this.place(path);
    if (p.kind === "ancestor" || (p.kind === "ws" && p.key === "")) {
      if (options?.recursive === true) return;
      throw fsError("EEXIST", "file already exists", "mkdir", p.path);
    }
    const w = this.changeable(path, "write", "mkdir");
    if ("device" in w) throw fsError("EEXIST", "file already exists", "mkdir", w.path);
    if (!this.may(`${w.key}/`, "write")) throw this.refuse("write", w.path, "policy", "mkdir");
    if (this.fileVisible(w.key)) throw fsError("EEXIST", "file already exists", "mkdir", w.path);
    if (this.dirVisible(w.key)) {
      if (options?.recursive === true) return;
      throw fsError("EEXIST", "file already exists", "mkdir", w.path);
    }
    const parent = w.key.includes("/") ? w.key.slice(0, w.key.lastIndexOf("/")) : "";
    if (parent !== "" && !this.dirVisible(parent)) {
      if (options?.recursive !== true) throw fsError("ENOENT", "no such file or directory", "mkdir", w.path);
      await this.mkdir(`${this.root}/${parent}`, options);
    } else if (parent !== "" && this.fileVisible(parent)) throw fsError("ENOTDIR", "not a directory", "mkdir", w.path);
    this.madeDirs.add(w.key);
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((d) => d.name);
  }

  async readdirWithFileTypes(path: string): Promise<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }[]> {
    const r = this.readable(path, "scandir");
    if ("device" in r) throw fsError("ENOTDIR", "not a directory", "scandir", r.path);
    if ("ancestor" in r) {
      const rest = this.root.slice(r.path === "/" ? 1 : r.path.length + 1);
      const name = rest.split("/")[0]!;
      return [{ name, isFile: false, isDirectory: true, isSymbolicLink: false }];
    }
    if (r.key !== "" && this.fileVisible(r.key)) throw fsError("ENOTDIR", "not a directory", "scandir", r.path);
    if (!this.dirVisible(r.key)) throw fsError("ENOENT", "no such file or directory", "scandir", r.path);
    return [...this.children(r.key)]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, dir]) => ({ name, isFile: !dir, isDirectory: dir, isSymbolicLink: false }));
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const p = this.place(path);
    if (p.kind === "null") throw this.refuse("delete", p.path, "device", "rm");
    const w = this.changeable(path, "delete", "rm");
    if ("device" in w) return;
    if (this.fileVisible(w.key)) {
      this.stage(w.key, w.path, null);
      return;
    }
    if (!this.dirVisible(w.key)) {
      if (options?.force === true) return;
      throw fsError("ENOENT", "no such file or directory", "rm", w.path);
    }
    const inside = [...this.children(w.key)];
    if (inside.length > 0 && options?.recursive !== true) throw fsError("ENOTEMPTY", "directory not empty", "rm", w.path);
    for (const [name] of inside) await this.rm(`${w.path}/${name}`, { recursive: true, force: options?.force ?? false });
    for (const d of [...this.madeDirs]) if (d === w.key || d.startsWith(`${w.key}/`)) this.madeDirs.delete(d);
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const s = this.readable(src, "cp");
    if ("ancestor" in s) throw this.refuse("read", s.path, "outside", "cp");
    if ("key" in s && s.key === "") throw fsError("EINVAL", "cannot copy the workspace root", "cp", s.path);
    const d = this.place(dest);
    if (d.kind === "ws" && "key" in s && (d.key === s.key || d.key.startsWith(`${s.key}/`)) && this.dirVisible(s.key)) {
      throw fsError("EINVAL", "cannot copy a directory into itself", "cp", d.path);
    }
    if ("device" in s || this.fileVisible(s.key)) {
      const bytes = "device" in s ? new Uint8Array(0) : await this.bytesOf(s.key, s.path);
      await this.writeFile(dest, bytes);
      return;
    }
    if (!this.dirVisible(s.key)) throw fsError("ENOENT", "no such file or directory", "cp", s.path);
    if (options?.recursive !== true) throw fsError("EISDIR", "is a directory", "cp", s.path);
    if (!(await this.exists(dest))) await this.mkdir(dest);
    for (const [name] of this.children(s.key)) await this.cp(`${s.path}/${name}`, `${normalizePath(dest)}/${name}`, options);
  }

  async mv(src: string, dest: string): Promise<void> {
    const s = this.place(src);
    const d = this.place(dest);
    if (s.kind === "ws" && d.kind === "ws" && s.key === d.key) return;
    if (s.kind === "ws" && d.kind === "ws" && d.key.startsWith(`${s.key}/`)) throw fsError("EINVAL", "cannot move a directory into itself", "rename", d.path);
    const w = this.changeable(src, "delete", "rename");
    if ("device" in w) throw this.refuse("delete", w.path, "device", "rename");
    if (!this.may(w.key, "read")) throw this.refuse("read", w.path, "policy", "rename");
    if (this.fileVisible(w.key)) {
      const bytes = await this.bytesOf(w.key, w.path);
      await this.writeFile(dest, bytes);
      const mode = this.modes.get(w.key);
      if (mode !== undefined && d.kind === "ws") this.modes.set(d.key, mode);
      this.stage(w.key, w.path, null);
      return;
    }
    if (!this.dirVisible(w.key)) throw fsError("ENOENT", "no such file or directory", "rename", w.path);
    if (!(await this.exists(dest))) await this.mkdir(dest);
    for (const [name] of this.children(w.key)) await this.mv(`${w.path}/${name}`, `${normalizePath(dest)}/${name}`);
    for (const m of [...this.madeDirs]) if (m === w.key || m.startsWith(`${w.key}/`)) this.madeDirs.delete(m);
  }

  resolvePath(base: string, path: string): string {
    return normalizePath(path.startsWith("/") ? path : `${base}/${path}`);
  }

  /**
   * Nothing: just-bash's `ls` matches a pattern the shell left unexpanded
   * (quoted, or matching nothing) against this list, where bash itself says
   * there is no such file. The list also has to be synchronous, which an
   * interpreter in another thread cannot ask for (interpreter.ts): empty in
   * both places, the shell answers as bash does, the same on every platform.
   */
  getAllPaths(): string[] {
    return [];
  }

  async chmod(path: string, mode: number): Promise<void> {
    const st = await this.stat(path);
    const p = this.place(path);
    if (p.kind === "ws" && st !== undefined) this.modes.set(p.key, mode & 0o7777);
  }

  async symlink(_target: string, linkPath: string): Promise<void> {
    throw this.refuse("link", normalizePath(linkPath), "links", "symlink");
  }

  async link(_existingPath: string, newPath: string): Promise<void> {
    throw this.refuse("link", normalizePath(newPath), "links", "link");
  }

  async readlink(path: string): Promise<string> {
    await this.stat(path);
    throw fsError("EINVAL", "invalid argument", "readlink", normalizePath(path));
  }

  async realpath(path: string): Promise<string> {
    const st = await this.stat(path).catch(() => undefined);
    if (st === undefined) throw fsError("ENOENT", "no such file or directory", "realpath", normalizePath(path));
    return normalizePath(path);
  }

  async utimes(path: string): Promise<void> {
    await this.stat(path);
  }

  // ---- what the command changed ----------------------------------------------

  /**
   * The command's changes against the workspace as it was: writes that
   * change bytes, deletions of files that were there. `before` is the old
   * content when there was a file and the policy lets this call read it
   * (never otherwise: a file overwritten without read permission is not
   * read, so its old content cannot reach a diff).
   */
  async changes(): Promise<FileChange[]> {
    const out: FileChange[] = [];
    for (const [key, bytes] of [...this.staged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const existed = this.base.has(key);
      const readable = existed && this.may(key, "read");
      const before = readable ? (this.cache.get(key) ?? (await this.access.trusted(() => this.ws.read(key)))) : undefined;
      if (bytes === null) {
        if (existed) out.push({ change: { path: key, bytes: null }, existed, before });
        continue;
      }
      if (before !== undefined && same(before, bytes)) continue;
      out.push({ change: { path: key, bytes }, existed, before });
    }
    return out;
  }
}
