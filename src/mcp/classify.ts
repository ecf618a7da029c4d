/**
 * What an MCP tool may do to the world, from its annotations, and only when
 * the application trusts the server. Annotations are hints from an untrusted
 * server: without `trustAnnotations` every tool is `destructive` with
 * permission `ask`, so a lying server never gains an automatic re-run after
 * a crash, nor an allow.
 */
import { PERMISSIONS, SIDE_EFFECTS, type Permission, type SideEffect } from "../tools/index.js";

/** MCP's tool annotations (all hints). */
export interface McpToolAnnotations {
  readonly title?: unknown;
  readonly readOnlyHint?: unknown;
  readonly destructiveHint?: unknown;
  readonly idempotentHint?: unknown;
  readonly openWorldHint?: unknown;
}

/** How isoagent treats one MCP tool. */
export interface McpClassification {
  readonly sideEffect: SideEffect;
  readonly permission: Permission;
  /** Running it again with the same key is harmless: the default reconcile answers "run again" after a crash. */
  readonly idempotent?: boolean;
}

/**
 * The side effect class the annotations claim (the spec's defaults for what
 * they leave out): readOnlyHint true → read_only; else destructiveHint false
 * → remote_mutation when openWorldHint is true or missing, local_mutation
 * when it is false; else (destructiveHint true or missing) → destructive.
 * Only the boolean `true`/`false` counts: any other value is as if missing.
 *
 * @example
 * ```ts
 * sideEffectOf({ destructiveHint: false, openWorldHint: false }) // "local_mutation"
 * ```
 */
export function sideEffectOf(annotations: McpToolAnnotations | undefined): SideEffect {
  const a = typeof annotations === "object" && annotations !== null ? annotations : {};
  if (a.readOnlyHint === true) return "read_only";
  if (a.destructiveHint === false) return a.openWorldHint === false ? "local_mutation" : "remote_mutation";
  return "destructive";
}

/** The classification without trust: every tool destructive, asked. */
export const UNTRUSTED: McpClassification = Object.freeze({ sideEffect: "destructive", permission: "ask", idempotent: false });

/**
 * How a tool is treated: the application's `classify` first (when it answers),
 * then the annotations when the server is trusted (read_only tools are
 * allowed, every other class asks; idempotentHint counts for re-runs), else
 * {@link UNTRUSTED}. A `classify` answer that is not a classification fails
 * closed to {@link UNTRUSTED}.
 *
 * @example
 * ```ts
 * classifyTool({ readOnlyHint: true }, false, undefined) // { sideEffect: "destructive", permission: "ask", idempotent: false }
 * classifyTool({ readOnlyHint: true }, true, undefined)  // { sideEffect: "read_only", permission: "allow", idempotent: false }
 * ```
 */
export function classifyTool(annotations: McpToolAnnotations | undefined, trust: boolean, custom: McpClassification | undefined | null): McpClassification {
  if (custom !== undefined && custom !== null) {
    const ok =
      typeof custom === "object" && SIDE_EFFECTS.includes(custom.sideEffect) && PERMISSIONS.includes(custom.permission) && (custom.idempotent === undefined || typeof custom.idempotent === "boolean");
    return ok ? { sideEffect: custom.sideEffect, permission: custom.permission, idempotent: custom.idempotent === true } : UNTRUSTED;
  }
  if (!trust) return UNTRUSTED;
  const sideEffect = sideEffectOf(annotations);
  const a = typeof annotations === "object" && annotations !== null ? annotations : {};
  return { sideEffect, permission: sideEffect === "read_only" ? "allow" : "ask", idempotent: a.idempotentHint === true };
}
