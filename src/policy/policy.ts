/**
 * Permission policy: rules over a call's tool name, side effect and
 * resources (path and host globs), composed conservatively: deny wins over
 * ask, ask over allow. The driver evaluates it after the arguments are
 * checked and before any side effect, and takes the stricter of the policy's
 * answer and the tool's own permission, so a policy can only tighten.
 */
import type { JsonValue } from "../json/index.js";
import type { Permission, ResourceRef, SideEffect } from "../tools/index.js";
import { globMatch } from "./glob.js";

/** What a policy sees of a call: everything but its effect. */
export interface PolicyRequest {
  readonly tool: string;
  readonly sideEffect: SideEffect;
  /** The checked arguments. */
  readonly args: JsonValue;
  /** What the tool says the call touches. */
  readonly resources: readonly ResourceRef[];
}

/** A policy's answer, with the reason an operator reads. */
export interface PolicyDecision {
  readonly permission: Permission;
  readonly reason?: string | undefined;
}

/** A permission policy. */
export type Policy = (request: PolicyRequest) => PolicyDecision;

const RANK: Record<Permission, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of two permissions (deny > ask > allow). */
export function strictest(a: Permission, b: Permission): Permission {
  return RANK[a] >= RANK[b] ? a : b;
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

/**
 * A policy from rules: the strictest permission among the rules that match,
 * or `otherwise` (default "allow", which leaves the tool's own permission in
 * charge) when none does.
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
  const otherwise = options.otherwise ?? "allow";
  return (request) => {
    let best: PolicyDecision | undefined;
    for (const rule of rules) {
      if (!matches(rule, request)) continue;
      if (best === undefined || RANK[rule.permission] > RANK[best.permission]) best = { permission: rule.permission, reason: rule.reason };
    }
    return best ?? { permission: otherwise };
  };
}

/** Every policy must allow for the call to be allowed: the strictest answer wins (the first with it gives the reason). */
export function allOf(...policies: readonly Policy[]): Policy {
  return (request) => {
    let best: PolicyDecision = { permission: "allow" };
    for (const p of policies) {
      const d = p(request);
      if (RANK[d.permission] > RANK[best.permission]) best = d;
    }
    return best;
  };
}

/** The policy that adds nothing to the tools' own permissions. */
export const allowAll: Policy = () => ({ permission: "allow" });
