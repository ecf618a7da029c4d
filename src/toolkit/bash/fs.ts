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
 * Every refusal is recorded for the result's notice. The parts, each in a
 * file of its own: the gate (fs-gate.ts: where a path is, whether it may be
 * touched), the staged tree over it (fs-tree.ts), the errors and their
 * wire form (fs-errors.ts), the content encodings (fs-encoding.ts); here,
 * the operations just-bash calls.
 */
import { encodingOf, fromBytes, toBytes, type FileContent } from "./fs-encoding.js";
import { fsError } from "./fs-errors.js";
import { normalizePath } from "./fs-gate.js";
import { StagedTree } from "./fs-tree.js";
import type { JbEncoding as BufferEncoding, JbStat as FsStat } from "./just-bash.js";

export { fsErrorInfo, unwireError, wireError, type FsErrorInfo } from "./fs-errors.js";
export { normalizePath, STAGED_MAX_BYTES, type FsAccess, type Refusal, type RefusalReason } from "./fs-gate.js";
export type { FileChange } from "./fs-tree.js";

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

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/** Workspace files have no times: every file shows this one, so that listings are deterministic. */
const EPOCH = new Date(0);

/**
 * The workspace as just-bash's filesystem. `files` is the workspace's listing
 * when the command starts; contents are read when the command needs them.
 */
export class WorkspaceFs extends StagedTree {
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
    return [...this.children(r.key)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, dir]) => ({ name, isFile: !dir, isDirectory: dir, isSymbolicLink: false }));
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
}
