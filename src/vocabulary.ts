/**
 * The words tools, policy and the journal share: what a call may do to the
 * world (its side effect), how it is let through (its permission), and what
 * it touches (resources, and the operation on each). Below the journal, so
 * that events name them without importing the tool contract; isoagent/tools
 * and the root export them.
 */

/**
 * What a call may do to the world. It also decides recovery after a crash:
 * only a `read_only` call is run again without a reconciliation or an
 * operator's answer.
 */
export type SideEffect = "read_only" | "local_mutation" | "remote_mutation" | "destructive";

/** Every side-effect class, least to most dangerous. */
export const SIDE_EFFECTS: readonly SideEffect[] = ["read_only", "local_mutation", "remote_mutation", "destructive"];

/** How a call is let through: run it, ask an operator first, or never (and never offer the tool). */
export type Permission = "allow" | "ask" | "deny";

/** Every permission. */
export const PERMISSIONS: readonly Permission[] = ["allow", "ask", "deny"];

/**
 * What a call does to a resource: read it, write (create or change) it,
 * delete it, reach it over the network, or execute it (a command). Policy
 * grants are given per operation; the ones that change things or reach out
 * (write, delete, network, execute) are grant-checked.
 */
export type Operation = "read" | "write" | "delete" | "network" | "execute";

/** Every operation. */
export const OPERATIONS: readonly Operation[] = ["read", "write", "delete", "network", "execute"];

/**
 * Something a call touches, for policy to match on: a path, a host, a URL, a
 * command, ... `operation` says what the call does to it; left out, it
 * follows from the kind and the tool's side effect (see {@link operationOf}).
 */
export interface ResourceRef {
  readonly kind: string;
  readonly value: string;
  readonly operation?: Operation | undefined;
}

/**
 * The operation of a resource: its own, or from its kind and the tool's side
 * effect (a path is read by a read_only tool and written by any other; a host
 * or URL is reached over the network; a command is executed). Undefined for
 * other kinds, which no grant covers.
 */
export function operationOf(resource: ResourceRef, sideEffect: SideEffect): Operation | undefined {
  if (resource.operation !== undefined) return resource.operation;
  switch (resource.kind) {
    case "path":
      return sideEffect === "read_only" ? "read" : "write";
    case "host":
    case "url":
      return "network";
    case "command":
      return "execute";
    default:
      return undefined;
  }
}
