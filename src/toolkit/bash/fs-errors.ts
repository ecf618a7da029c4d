/**
 * The errors the shell's filesystem throws (fs.ts), and their form as they
 * cross between threads. Each is a Node-style error (`code`, a message
 * naming the syscall and the path) that also carries, under a symbol no
 * command can reach, the code and the absolute path: so the interpreter's
 * side (interpret.ts) can tell this filesystem's own failures from any
 * other, in the owning thread or after one crossed from a Worker.
 */

const FS_ERROR = Symbol.for("isoagent.bash.fsError");

/** An error this filesystem threw: its code and the absolute path. */
export interface FsErrorInfo {
  readonly code: string;
  readonly path: string;
}

/** A filesystem error: `code`, its text, the syscall and the path, as Node words them. */
export function fsError(code: string, what: string, syscall: string, path: string): Error {
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
