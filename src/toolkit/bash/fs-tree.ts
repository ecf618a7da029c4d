/**
 * The workspace's tree as one command sees it (fs.ts): the listing it
 * started with, its writes and deletions staged in memory over that
 * (within {@link STAGED_MAX_BYTES} all told, each file within the
 * workspace's file size), the folders it made, and contents read from the
 * workspace once, when first needed. Folders exist because files are under
 * them, as in the Workspace; a file the policy does not let this call read
 * is not there for it (a listing leaves it out and counts it). At the end,
 * the staged files are the command's changes.
 */
import type { Workspace, WorkspaceChange } from "../workspace.js";
import { FILE_MAX_BYTES } from "../text.js";
import { fsError } from "./fs-errors.js";
import { STAGED_MAX_BYTES, WorkspaceGate, type FsAccess } from "./fs-gate.js";

/** One file the command changed. */
export interface FileChange {
  readonly change: WorkspaceChange;
  /** Whether a file was there before. */
  readonly existed: boolean;
  /** Its old content, when there was a file and the policy lets this call read it. */
  readonly before: Uint8Array | undefined;
}

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, k) => x === b[k]);

/** The staged tree over the workspace's listing, behind the gate (fs-gate.ts). */
export class StagedTree extends WorkspaceGate {
  /** Workspace files a listing left out because the policy does not let this call read them. */
  readonly hidden = new Set<string>();
  protected readonly base = new Map<string, number>();
  private readonly cache = new Map<string, Uint8Array>();
  protected readonly staged = new Map<string, Uint8Array | null>();
  protected readonly madeDirs = new Set<string>();
  protected readonly modes = new Map<string, number>();
  private stagedBytes = 0;

  constructor(
    private readonly ws: Workspace,
    root: string,
    files: readonly { path: string; size: number }[],
    access: FsAccess,
  ) {
    super(root, access);
    for (const f of files) this.base.set(f.path, f.size);
  }

  /** Whether a file is there for this command (staged or in the workspace) and it may read it. */
  protected fileVisible(key: string): boolean {
    const s = this.staged.get(key);
    const present = s !== undefined ? s !== null : this.base.has(key);
    return present && this.may(key, "read");
  }

  private *allKeys(): Iterable<string> {
    for (const k of this.base.keys()) if (!this.staged.has(k)) yield k;
    for (const [k, v] of this.staged) if (v !== null) yield k;
  }

  protected dirVisible(key: string): boolean {
    if (key === "") return true;
    if (this.madeDirs.has(key)) return true;
    const prefix = `${key}/`;
    for (const k of this.allKeys()) if (k.startsWith(prefix) && this.may(k, "read")) return true;
    for (const d of this.madeDirs) if (d.startsWith(prefix)) return true;
    return false;
  }

  /** The visible children of a folder: name and whether it is a folder. */
  protected children(key: string): Map<string, boolean> {
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

  protected async bytesOf(key: string, path: string): Promise<Uint8Array> {
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

  protected stage(key: string, path: string, bytes: Uint8Array | null): void {
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
  protected checkWritable(key: string, path: string, syscall: string): void {
    if (this.dirVisible(key) && !this.fileVisible(key)) throw fsError("EISDIR", "illegal operation on a directory", syscall, path);
    const segs = key.split("/");
    for (let k = 1; k < segs.length; k++) if (this.fileVisible(segs.slice(0, k).join("/"))) throw fsError("ENOTDIR", "not a directory", syscall, path);
  }

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
