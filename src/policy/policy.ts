/**
 * Permission policy: rules over a call's tool name, side effect and
 * resources (path and host globs), composed conservatively: deny wins over
 * ask, ask over allow. The driver evaluates it after the arguments are
 * checked and before any side effect, and takes the stricter of the policy's
 * answer and the tool's own permission, so a policy can only tighten.
 *
 * Policies are synchronous and untrusted: every answer goes through
 * {@link evaluatePolicy}, which turns anything but exactly allow, ask or
 * deny (an unknown or miscased permission, undefined, a throw, a Promise)
 * into a denial that names the fault.
 */
import type { CallId, RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import { PERMISSIONS, SIDE_EFFECTS, type Permission, type ResourceRef, type SideEffect } from "../tools/index.js";
import { PolicyError } from "./error.js";
import { compileGlob, globMatch } from "./glob.js";

/** What a policy sees of a call: everything but its effect. */
export interface PolicyRequest {
  readonly tool: string;
  readonly sideEffect: SideEffect;
  /** The checked arguments. */
  readonly args: JsonValue;
  /** What the tool says the call touches (at stage "call"), or what a running call found and asks about (at stage "discovered"). */
  readonly resources: readonly ResourceRef[];
  /**
   * "call" (the default): the call as the agent asked for it, before it
   * runs; answer about the call. "discovered": resources a running call
   * found (`ToolContext.permit`), asked about one at a time; answer about
   * the resources: the call itself was already let through.
   */
  readonly stage?: "call" | "discovered" | undefined;
  /** For the host's records (always set by the driver); never rendered into model-facing text. */
  readonly runId?: RunId | undefined;
  readonly step?: number | undefined;
  readonly callId?: CallId | undefined;
}

/** A policy's answer, with the reason an operator reads. */
export interface PolicyDecision {
  readonly permission: Permission;
  readonly reason?: string | undefined;
}

/** A permission policy: synchronous. */
export type Policy = (request: PolicyRequest) => PolicyDecision;

const RANK: Readonly<Record<string, number>> = { allow: 0, ask: 1, deny: 2 };

/** The rank of a permission; anything unknown ranks as deny. */
const rank = (p: unknown): number => (typeof p === "string" && Object.hasOwn(RANK, p) ? RANK[p]! : 2);

/** The stricter of two permissions (deny > ask > allow); anything that is not a permission counts as deny. */
export function strictest(a: Permission, b: Permission): Permission {
  const r = Math.max(rank(a), rank(b));
  return r === 0 ? "allow" : r === 1 ? "ask" : "deny";
}

export { PolicyError };

function describe(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/**
 * A policy's answer as the driver takes it: exactly allow, ask or deny with
 * an optional text reason; anything else (an unknown or miscased permission,
 * undefined, a Promise or thenable, a reason that is not text, a getter that
 * throws) is a denial whose reason names the fault.
 */
export function normalizeDecision(answer: unknown): PolicyDecision {
  try {
    if (typeof answer !== "object" || answer === null) {
      return { permission: "deny", reason: `policy returned ${describe(answer)}; a policy answers { permission: allow | ask | deny }` };
    }
    if (typeof (answer as { then?: unknown }).then === "function") {
      // A rejected Promise must not go unhandled: it is refused, not awaited.
      try {
        void Promise.resolve(answer).then(undefined, () => {});
      } catch {
        // a thenable whose then throws: refused all the same
      }
      return { permission: "deny", reason: "policy returned a Promise; policies are synchronous" };
    }
    const permission: unknown = (answer as { permission?: unknown }).permission;
    if (typeof permission !== "string" || !PERMISSIONS.includes(permission as Permission)) {
      return { permission: "deny", reason: `policy returned an unknown permission ${describe(permission)}; a policy answers allow, ask or deny` };
    }
    const reason: unknown = (answer as { reason?: unknown }).reason;
    if (reason !== undefined && typeof reason !== "string") return { permission: "deny", reason: "policy returned a reason that is not text" };
    return reason === undefined ? { permission: permission as Permission } : { permission: permission as Permission, reason };
  } catch {
    return { permission: "deny", reason: "the policy threw; a policy that cannot decide denies" };
  }
}

/**
 * Evaluates a policy fail-closed: a throw, and every answer that is not
 * exactly allow, ask or deny, is a denial naming the fault (see
 * {@link normalizeDecision}). The driver evaluates every policy this way.
 *
 * @example
 * ```ts
 * evaluatePolicy(() => ({ permission: "Deny" }) as never, request)
 * // { permission: "deny", reason: 'policy returned an unknown permission "Deny"; a policy answers allow, ask or deny' }
 * ```
 */
export function evaluatePolicy(policy: Policy, request: PolicyRequest): PolicyDecision {
  let answer: unknown;
  try {
    answer = policy(request);
  } catch {
    return { permission: "deny", reason: "the policy threw; a policy that cannot decide denies" };
  }
  return normalizeDecision(answer);
}

/** One rule: it matches a call when every matcher it has matches. */
export interface PolicyRule {
  /** Glob over the tool name. */
  readonly tool?: string;
  readonly sideEffect?: SideEffect | readonly SideEffect[];
  /** Matches when any resource of this kind matches the glob. */
  readonly resource?: { readonly kind: string; readonly match: string };
  readonly permission: Permission;
  /** Shown to the operator and, for a denial, in the model-facing text. */
  readonly reason?: string;
}

function matches(rule: PolicyRule, r: PolicyRequest): boolean {
  // A rule without a resource matcher is about calls: a resource a running
  // call discovered was let through with its call.
  if (r.stage === "discovered" && rule.resource === undefined) return false;
  if (rule.tool !== undefined && !globMatch(rule.tool, r.tool)) return false;
  if (rule.sideEffect !== undefined) {
    const classes: readonly SideEffect[] = typeof rule.sideEffect === "string" ? [rule.sideEffect] : rule.sideEffect;
    if (!classes.includes(r.sideEffect)) return false;
  }
  if (rule.resource !== undefined) {
    const { kind, match } = rule.resource;
    if (!r.resources.some((x) => x.kind === kind && globMatch(match, x.value))) return false;
  }
  return true;
}

function checkRule(rule: PolicyRule, k: number): void {
  const where = `rule ${k + 1}`;
  if (typeof rule !== "object" || rule === null) throw new PolicyError(`${where} must be an object`);
  if (!PERMISSIONS.includes(rule.permission)) throw new PolicyError(`${where}: permission must be allow, ask or deny, not ${describe(rule.permission)}`);
  if (rule.tool !== undefined) {
    if (typeof rule.tool !== "string") throw new PolicyError(`${where}: tool must be a glob`);
    compileGlob(rule.tool, where);
  }
  if (rule.sideEffect !== undefined) {
    const classes = typeof rule.sideEffect === "string" ? [rule.sideEffect] : rule.sideEffect;
    if (!Array.isArray(classes) || classes.some((c) => !SIDE_EFFECTS.includes(c))) throw new PolicyError(`${where}: sideEffect must be side-effect classes`);
  }
  if (rule.resource !== undefined && (typeof rule.resource?.kind !== "string" || typeof rule.resource?.match !== "string")) {
    throw new PolicyError(`${where}: resource must be { kind, match }`);
  }
  if (rule.resource !== undefined) compileGlob(rule.resource.match, where);
  if (rule.reason !== undefined && typeof rule.reason !== "string") throw new PolicyError(`${where}: reason must be text`);
}

/**
 * A policy from rules: the strictest permission among the rules that match,
 * or `otherwise` (default "allow", which leaves the tool's own permission in
 * charge) when none does. A rule without a resource matcher is about calls,
 * and does not apply to the resources a running call discovers. Rules are
 * checked when the policy is made (POLICY_INVALID).
 *
 * @example
 * ```ts
 * const policy = rulesPolicy([
 *   { resource: { kind: "path", match: ".git/**" }, permission: "deny", reason: "the repository's internals" },
 *   { sideEffect: ["remote_mutation", "destructive"], permission: "ask" },
 *   { tool: "http_*", resource: { kind: "host", match: "*.internal" }, permission: "deny" },
 * ])
 * ```
 */
export function rulesPolicy(rules: readonly PolicyRule[], options: { otherwise?: Permission } = {}): Policy {
  if (!Array.isArray(rules)) throw new PolicyError("rules must be a list");
  rules.forEach(checkRule);
  const otherwise = options.otherwise ?? "allow";
  if (!PERMISSIONS.includes(otherwise)) throw new PolicyError(`otherwise must be allow, ask or deny, not ${describe(otherwise)}`);
  const own = rules.map((r) => ({ ...r }));
  return (request) => {
    let best: PolicyDecision | undefined;
    for (const rule of own) {
      if (!matches(rule, request)) continue;
      if (best === undefined || rank(rule.permission) > rank(best.permission)) best = { permission: rule.permission, reason: rule.reason };
    }
    return best ?? { permission: otherwise };
  };
}

/**
 * Every policy must allow for the call to be allowed: the strictest answer
 * wins (the first with it gives the reason). Each answer is taken as
 * {@link evaluatePolicy} takes it, so one faulty policy denies.
 */
export function allOf(...policies: readonly Policy[]): Policy {
  return (request) => {
    let best: PolicyDecision = { permission: "allow" };
    for (const p of policies) {
      const d = evaluatePolicy(p, request);
      if (rank(d.permission) > rank(best.permission)) best = d;
      if (best.permission === "deny") break;
    }
    return best;
  };
}

/** The policy that adds nothing to the tools' own permissions. */
export const allowAll: Policy = () => ({ permission: "allow" });
