/**
 * How a deployment's run objects host their runs: the agent, tools, policy
 * and reconciliation of each, given the object it runs in.
 */
import type { Agent, JsonValue, Limits, Policy, ReconcileHook, RunId, Tool } from "../../src/index.js";
import type { Faults } from "../../src/testkit/index.js";
import type { Workspace } from "../../src/workspace.js";
import type { PlaceKeys } from "../../src/move/index.js";
import type { HostFaultPoint } from "./api.js";
import type { RunBindings } from "./bindings.js";
import type { RunObjectOtel } from "./otel.js";

/** What a hosted run is given, per object. */
export interface HostContext<Env> {
  readonly env: Env;
  readonly runId: RunId;
  /** The task the run was created with. */
  readonly task: JsonValue;
  readonly storage: DurableObjectStorage;
  /** The object's state (its storage, alarms, and `abort()`, which resets it). */
  readonly state: DurableObjectState;
}

/** How the run objects of a deployment drive their runs. */
export interface RunObjectConfig<Env extends RunBindings> {
  agent(ctx: HostContext<Env>): Agent;
  /** The run's tools; a promise when they come from elsewhere (an MCP server's listing: isoagent/mcp). */
  tools(ctx: HostContext<Env>): readonly Tool<never, unknown>[] | Promise<readonly Tool<never, unknown>[]>;
  policy?(ctx: HostContext<Env>): Policy;
  reconcile?(ctx: HostContext<Env>): ReconcileHook;
  secrets?(env: Env): readonly string[];
  readonly limits?: Partial<Limits>;
  /** The workspace the run's tools act on: it moves with the run (isoagent/move: its files and receipts go in the run's bundle). */
  workspace?(ctx: HostContext<Env>): Workspace;
  /**
   * The run objects' keys (isoagent/move's PlaceKeys): what their exports
   * sign with, and whose signatures a run moved here keeps the decisions
   * of. Default: `placeKeys` of the env's ISOAGENT_SIGNING_KEY and
   * ISOAGENT_TRUSTED_KEYS, so with neither set nothing is signed and every
   * open call of a run moved here is decided here again.
   */
  keys?(env: Env): PlaceKeys | Promise<PlaceKeys>;
  /** Default 15,000 ms. */
  readonly leaseTtlMs?: number;
  /**
   * How a call's start is made durable before its side effect.
   *
   * - `"output-gate"` (default): nothing extra. Safe when every effect of the
   *   tools is a message leaving the object (fetch, RPC to another object or
   *   service, a WebSocket message: the output gate holds it until the start
   *   is confirmed) or a write to this object's own storage (committed in
   *   order after the start, or lost with it).
   * - `"sync"`: `await storage.sync()` before each effect (one more fsync per
   *   effectful step). Use it when a tool can act outside both, e.g. on state
   *   shared in the isolate's memory or through writes that opt out of the gate.
   */
  durability?(ctx: HostContext<Env>): "output-gate" | "sync";
  /**
   * Exports the run's spans (isoagent/otel) to an OTLP/HTTP collector from
   * the object itself: after appends (never awaited by a step or an
   * operator's answer) and from its alarm, which resumes an export a reset
   * or an eviction cut short. The cursor is kept in the object's SQLite and
   * moves only after the collector accepted. Undefined: no export (the
   * default; e.g. when the env holds no endpoint).
   *
   * @example
   * ```ts
   * otel: ({ env }) => (env.OTEL_ENDPOINT === undefined ? undefined : { endpoint: env.OTEL_ENDPOINT, headers: { authorization: `Bearer ${env.OTEL_TOKEN}` } })
   * ```
   */
  otel?(ctx: HostContext<Env>): RunObjectOtel | undefined;
  /** @internal The store's clock, which judges leases (the conformance suite moves it); default `Date.now`. Alarms keep the platform's. */
  readonly clock?: () => number;
  /** @internal Fault injection for the crash tests. */
  faults?(ctx: HostContext<Env>): Faults | undefined;
  /** @internal Fault injection at the host's own await points (the crash tests reset the object there, or hold it). */
  hostFaults?(ctx: HostContext<Env>): { at(point: HostFaultPoint): void | Promise<void> } | undefined;
}
