/**
 * The boundary of the shell's filesystem (fs.ts): where a path the command
 * reaches is (the workspace, a folder above its root, /dev/null, or
 * outside), and whether the command may touch it. A path outside the
 * workspace is refused here whatever the policy says; a workspace key is
 * put to the run's policy once per command and operation (failing closed).
 * Every refusal is recorded, once, for the result's notice, and thrown as
 * the error a command would meet.
 */
import { keyUnder, pathSegments } from "../../paths.js";
import { FILE_MAX_BYTES } from "../text.js";
import { fsError } from "./fs-errors.js";

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

/** Bytes all the command's staged files may hold together. */
export const STAGED_MAX_BYTES = 64 * 1024 * 1024;

/** A virtual path with `.` and `..` resolved, one leading slash, no trailing one (as the interpreter's own). */
export function normalizePath(path: string): string {
  if (path === "" || path === "/") return "/";
  // The common case, already normal: absolute, ASCII, no empty, "." or ".." segments, no trailing slash.
  if (path.charCodeAt(0) === 47 && /^(\/[A-Za-z0-9_@%+=,:~-][A-Za-z0-9_@%+=,:~.-]*)+$/.test(path) && !/\/\.\.?(\/|$)/.test(path)) return path;
  return `/${pathSegments(path.normalize("NFC"), true)!.join("/")}`;
}

type Place = { kind: "ancestor"; path: string } | { kind: "ws"; key: string; path: string } | { kind: "null"; path: string } | { kind: "outside"; path: string };

/** Where paths are, and whether the command may touch them: what the staged tree (fs-tree.ts) and the filesystem's operations ask first. */
export class WorkspaceGate {
  readonly refusals: Refusal[] = [];
  private readonly allowed = new Map<string, boolean>();
  private readonly refused = new Set<string>();
  private cancelled = false;

  constructor(
    protected readonly root: string,
    protected readonly access: FsAccess,
  ) {}

  /** The call was cancelled: from now on every access fails, so the command stops at its next one. */
  cancel(): void {
    this.cancelled = true;
  }

  protected place(raw: string): Place {
    if (this.cancelled) throw fsError("ECANCELED", "operation canceled: the call was cancelled", "access", normalizePath(raw));
    const path = normalizePath(raw);
    const key = keyUnder(path, this.root);
    if (key !== undefined) return { kind: "ws", key, path };
    if (path === "/" || this.root.startsWith(`${path}/`)) return { kind: "ancestor", path };
    if (path === "/dev/null") return { kind: "null", path };
    return { kind: "outside", path };
  }

  protected refuse(operation: Refusal["operation"], path: string, why: RefusalReason, syscall: string): Error {
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
  protected may(key: string, operation: "read" | "write" | "delete"): boolean {
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
  protected readable(raw: string, syscall: string): { key: string; path: string } | { device: true; path: string } | { ancestor: true; path: string } {
    const p = this.place(raw);
    if (p.kind === "outside") throw this.refuse("read", p.path, p.path.startsWith("/dev/") ? "device" : "outside", syscall);
    if (p.kind === "null") return { device: true, path: p.path };
    if (p.kind === "ancestor") return { ancestor: true, path: p.path };
    if (p.key !== "" && !this.may(p.key, "read")) throw this.refuse("read", p.path, "policy", syscall);
    return { key: p.key, path: p.path };
  }

  /** A workspace key the command may change (write or delete), or a thrown refusal. */
  protected changeable(raw: string, operation: "write" | "delete", syscall: string): { key: string; path: string } | { device: true; path: string } {
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
}
