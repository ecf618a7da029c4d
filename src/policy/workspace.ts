/**
 * Seed 002's permission primitives, as policies over the same
 * {@link Policy} type (compose them with {@link allOf}):
 *
 * - {@link workspacePolicy}: a hard workspace boundary, deny and ask globs,
 *   grants, approval for side effects and for commands;
 * - {@link pathScopePolicy}: explicitly approved paths outside the
 *   workspace (several roots, each with the operations allowed there).
 *
 * A path resource is a workspace key ("notes/a.md"), the workspace root's
 * folder ("", "/", "notes/"), or an absolute path. Anything that could name
 * something else (`..`, a backslash, a control character, `~`, a drive
 * letter, a URL) is outside every boundary.
 */
import { compileGlob, type GlobMatcher } from "./glob.js";
import { PolicyError, type Policy, type PolicyDecision, type PolicyRequest } from "./policy.js";
import { namesElsewhere, workspaceKey } from "../paths.js";
import { parseUrl } from "../web.js";
import { OPERATIONS, operationOf, SIDE_EFFECTS, type Operation, type ResourceRef, type SideEffect } from "../tools/index.js";

/**
 * An explicit allowance of an operation on resources: a path glob for
 * write and delete (and read, though reads are not grant-checked), a host
 * glob for network (a URL's host too), a command glob for execute, or a
 * glob over the value of any other kind of resource that declares one of
 * those operations.
 *
 * @example
 * ```ts
 * { operation: "write", match: "docs/**" }
 * { operation: ["write", "delete"], match: "tmp/**" }
 * { operation: "network", match: "*.example.com" }
 * ```
 */
export interface Grant {
  readonly operation: Operation | readonly Operation[];
  readonly match: string;
}

/** The operations a grant must cover: every one that changes things or reaches out, on whatever kind of resource names it. */
const GRANT_CHECKED: readonly Operation[] = ["write", "delete", "network", "execute"];

/** Whether a resource's operation needs a grant when grants are given (fail closed: a kind this policy does not know is checked too). */
function grantChecked(op: Operation | undefined): op is Operation {
  return op !== undefined && GRANT_CHECKED.includes(op);
}

/**
 * What a grant's glob is matched against for a resource other than a path:
 * a host in lower case; a URL's host (a URL that does not parse matches
 * nothing); any other kind's value as it is.
 */
function grantValue(r: ResourceRef): string | undefined {
  if (r.kind === "host") return r.value.toLowerCase();
  if (r.kind !== "url") return r.value;
  return parseUrl(r.value)?.hostname.toLowerCase();
}

/** The rules of `workspacePolicy`: paths denied or asked about, the grants that allow changing things or reaching out, and the side effects to ask about. */
export interface WorkspacePolicyOptions {
  /** The workspace root as the tools name it; absolute paths under it are inside. Default "/workspace". */
  readonly root?: string;
  /** Path globs (workspace-relative, as `notes/**`, `**\/.env`) that are denied, for every operation. */
  readonly deny?: readonly string[];
  /** Path globs that need an operator's approval. */
  readonly ask?: readonly string[];
  /**
   * The allowlist for operations that change things or reach out: write,
   * delete, network and execute, on a resource of any kind (a path by its
   * workspace key, a host by its name, a URL by its host, any other kind by
   * its value). Left out: no
   * allowlist (those operations are not grant-checked). `[]`: an empty
   * allowlist, which denies every grant-checked request.
   */
  readonly grants?: readonly Grant[];
  /** Calls of these side-effect classes need an operator's approval; `true` means every class but read_only. */
  readonly askForSideEffects?: boolean | readonly SideEffect[];
  /**
   * Every call that carries a command resource (a shell command) needs an
   * operator's approval. It grants nothing: a command must still pass the
   * grants, when given, and its tool's own permission.
   */
  readonly requireCommandApproval?: boolean;
}

/**
 * A path value as a workspace key (src/paths.ts, the tools' own rule; "/"
 * also names the root, and a trailing slash marks a folder), or undefined
 * when it names something outside (or could).
 */
function insideKey(value: string, root: string): string | undefined {
  const v = value.trim();
  if (v === "/") return "";
  const names = workspaceKey(value, root);
  if (typeof names === "string") return undefined;
  return names.join("/") + (v.endsWith("/") && names.length > 0 ? "/" : "");
}

function checkGlobs(name: string, globs: readonly string[] | undefined): GlobMatcher[] {
  if (globs === undefined) return [];
  if (!Array.isArray(globs) || globs.some((g) => typeof g !== "string" || g === "")) throw new PolicyError(`${name} must be a list of globs`);
  return globs.map((g) => compileGlob(g, name));
}

function checkGrants(grants: readonly Grant[] | undefined): { ops: readonly Operation[]; re: GlobMatcher }[] | undefined {
  if (grants === undefined) return undefined;
  if (!Array.isArray(grants)) throw new PolicyError("grants must be a list (left out: no allowlist; []: an empty one)");
  return grants.map((g, k) => {
    const ops = typeof g?.operation === "string" ? [g.operation] : g?.operation;
    if (!Array.isArray(ops) || ops.length === 0 || ops.some((o) => !OPERATIONS.includes(o))) throw new PolicyError(`grant ${k + 1}: operation must be read, write, delete, network or execute`);
    if (typeof g.match !== "string" || g.match === "") throw new PolicyError(`grant ${k + 1}: match must be a glob`);
    return { ops, re: compileGlob(g.match, `grant ${k + 1}`) };
  });
}

function askClasses(v: boolean | readonly SideEffect[] | undefined): ReadonlySet<SideEffect> {
  if (v === undefined || v === false) return new Set();
  if (v === true) return new Set(SIDE_EFFECTS.filter((s) => s !== "read_only"));
  if (!Array.isArray(v) || v.some((s) => !SIDE_EFFECTS.includes(s))) throw new PolicyError("askForSideEffects must be true, false or side-effect classes");
  return new Set(v);
}

const DENY = 2;
const ASK = 1;

/** Keeps the strictest of the decisions seen, the first with it giving the reason. */
class Verdict {
  private level = 0;
  private why: string | undefined;
  note(level: number, reason: string): void {
    if (level > this.level) {
      this.level = level;
      this.why = reason;
    }
  }
  get denied(): boolean {
    return this.level === DENY;
  }
  decision(): PolicyDecision {
    return this.level === 0 ? { permission: "allow" } : { permission: this.level === DENY ? "deny" : "ask", reason: this.why };
  }
}

/**
 * A hard workspace boundary (seed 002's workspace tool policy): a path
 * resource outside the workspace is denied; `deny` and `ask` globs match
 * workspace-relative paths; `grants`, when given, are the allowlist for
 * write and delete on paths, network on hosts and execute on commands;
 * `askForSideEffects` and `requireCommandApproval` ask an operator for
 * whole calls (not for what a running call discovers).
 *
 * @example
 * ```ts
 * const policy = workspacePolicy({
 *   deny: ["**\/.env", "secrets/**"],
 *   ask: ["package.json"],
 *   grants: [{ operation: ["write", "delete"], match: "docs/**" }, { operation: "network", match: "api.example.com" }],
 *   askForSideEffects: ["remote_mutation", "destructive"],
 * })
 * ```
 */
export function workspacePolicy(options: WorkspacePolicyOptions = {}): Policy {
  const root = (options.root ?? "/workspace").replace(/\/+$/, "");
  if (!root.startsWith("/")) throw new PolicyError(`root must be an absolute path, not ${JSON.stringify(options.root)}`);
  const deny = checkGlobs("deny", options.deny);
  const ask = checkGlobs("ask", options.ask);
  const grants = checkGrants(options.grants);
  const classes = askClasses(options.askForSideEffects);
  const commands = options.requireCommandApproval === true;
  return (request: PolicyRequest) => {
    const v = new Verdict();
    const call = request.stage !== "discovered";
    if (call && classes.has(request.sideEffect)) v.note(ASK, `${request.sideEffect} calls need an operator's approval`);
    for (const r of request.resources) {
      const op = operationOf(r, request.sideEffect);
      if (r.kind === "path") {
        const key = insideKey(r.value, root);
        if (key === undefined) {
          v.note(DENY, "outside the workspace");
          continue;
        }
        const bare = key.replace(/\/$/, "");
        if (deny.some((re) => re.test(key) || re.test(bare))) v.note(DENY, "denied by the workspace policy");
        else if (ask.some((re) => re.test(key) || re.test(bare))) v.note(ASK, "the workspace policy asks for approval");
        // (Reads are not grant-checked.)
        if (grants !== undefined && grantChecked(op) && !grants.some((g) => g.ops.includes(op) && (g.re.test(key) || g.re.test(bare)))) v.note(DENY, `no grant allows ${op} there`);
      } else {
        if (call && commands && r.kind === "command") v.note(ASK, "commands need an operator's approval");
        if (grants !== undefined && grantChecked(op)) {
          const value = grantValue(r);
          if (value === undefined || !grants.some((g) => g.ops.includes(op) && g.re.test(value))) v.note(DENY, `no grant allows ${op} there`);
        }
      }
      if (v.denied) break;
    }
    return v.decision();
  };
}

/** A root outside (or inside) the workspace that an application approved, with what may be done there. */
export interface PathScope {
  /** An absolute path: the scope is this folder and everything under it. */
  readonly path: string;
  /** What may be done under it. Default: every operation. */
  readonly operations?: readonly Operation[];
}

/** The rules of `pathScopePolicy`: the approved roots, and where relative paths live. */
export interface PathScopePolicyOptions {
  readonly scopes: readonly PathScope[];
  /** Where relative paths (workspace keys) live. Default "/workspace". */
  readonly workspaceRoot?: string;
}

/** An absolute path without `.`, `..` or repeated slashes (src/paths.ts), or undefined when it could name something else. */
function absolutePath(value: string, workspaceRoot: string): string | undefined {
  const p = value.trim();
  if (namesElsewhere(p)) return undefined;
  // Under the root "/": the whole path, as a key.
  const names = workspaceKey(p.startsWith("/") ? p : `${workspaceRoot}/${p}`, "");
  return typeof names === "string" ? undefined : `/${names.join("/")}`;
}

/**
 * Explicitly approved paths, possibly outside the workspace (seed 002's path
 * scope policy): a path resource is allowed only inside a scope that allows
 * its operation, and denied everywhere else. Keep it apart from
 * {@link workspacePolicy}, which is a single hard root; use this one when an
 * application approved several roots.
 *
 * @example
 * ```ts
 * const policy = pathScopePolicy({ scopes: [{ path: "/workspace" }, { path: "/home/ana/reference", operations: ["read"] }] })
 * ```
 */
export function pathScopePolicy(options: PathScopePolicyOptions): Policy {
  const workspaceRoot = (options?.workspaceRoot ?? "/workspace").replace(/\/+$/, "");
  if (!Array.isArray(options?.scopes)) throw new PolicyError("scopes must be a list of { path, operations? }");
  const scopes = options.scopes.map((s, k) => {
    const path = typeof s?.path === "string" && s.path.startsWith("/") ? absolutePath(s.path, workspaceRoot) : undefined;
    if (path === undefined) throw new PolicyError(`scope ${k + 1}: path must be an absolute path without . or .. segments`);
    const ops = s.operations ?? OPERATIONS;
    if (!Array.isArray(ops) || ops.some((o) => !OPERATIONS.includes(o))) throw new PolicyError(`scope ${k + 1}: operations must be read, write, delete, network or execute`);
    return { prefix: path === "/" ? "/" : `${path}/`, path, ops };
  });
  return (request) => {
    for (const r of request.resources) {
      if (r.kind !== "path") continue;
      const p = absolutePath(r.value, workspaceRoot);
      const op = operationOf(r, request.sideEffect) ?? "read";
      const inside = p !== undefined && scopes.some((s) => (p === s.path || p.startsWith(s.prefix) || s.path === "/") && s.ops.includes(op));
      if (!inside) return { permission: "deny", reason: `outside the approved paths for ${op}` };
    }
    return { permission: "allow" };
  };
}
