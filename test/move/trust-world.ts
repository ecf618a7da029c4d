/**
 * Places for the tests of authentic handovers: the same tools everywhere
 * (so every run's shapes match), each place's executions logged, and the
 * destination's own policy, which the tests hold every execution there to.
 */
import {
  call,
  calls,
  createDriver,
  defineTool,
  final,
  isIsoagentError,
  memoryStore,
  scriptedAgent,
  strictObject,
  string,
  type Agent,
  type Driver,
  type JsonValue,
  type Permission,
  type Policy,
  type RunId,
  type Store,
  type Tool,
} from "../../src/index.js";
import { canonicalJson } from "../../src/json/index.js";
import { strictest } from "../../src/policy/index.js";
import { manualClock, type Faults, type ManualClock } from "../../src/testkit/index.js";
import { generateBundleKey, signingKey, toolShapes, trustedKeys, type PlaceKeys } from "../../src/move/index.js";

/** One execution of a tool, as the tool saw it. */
export interface Execution {
  readonly tool: string;
  readonly step: number;
  readonly callId: string;
  readonly args: string;
  readonly answer: string | undefined;
}

/** What the destination's policy says of a path: `ok/` allowed, `private/` asked, `secret/` (and anything else) denied. */
export function pathPermission(path: string): Permission {
  return path.startsWith("ok/") ? "allow" : path.startsWith("private/") ? "ask" : "deny";
}

/** Every place's policy (so a trusted place's allows are the destination's too). */
export const policy: Policy = (r) => {
  const path = typeof r.args === "object" && r.args !== null && !Array.isArray(r.args) ? r.args["path"] : undefined;
  return { permission: pathPermission(typeof path === "string" ? path : ""), reason: "by path" };
};

/** Their own permissions, as the tools state them. */
export const SPEC_PERMISSION: Record<string, Permission> = { peek: "allow", write: "allow", confirm: "ask" };

/** What the destination would let run without asking anyone: the stricter of the tool's permission and its policy. */
export const unasked = (tool: string, args: JsonValue): boolean => {
  const path = typeof args === "object" && args !== null && !Array.isArray(args) ? args["path"] : undefined;
  return strictest(SPEC_PERMISSION[tool] ?? "deny", pathPermission(typeof path === "string" ? path : "")) === "allow";
};

/** The tools: a read (read_only), a write (local_mutation), and a question for a person (wantsAnswer). */
export function tools(log: Execution[]): Tool<never, unknown>[] {
  const record = (tool: string) => (a: { path: string }, ctx: { step: number; callId: string; answer?: { text: string } }) => {
    log.push({ tool, step: ctx.step, callId: ctx.callId, args: canonicalJson(a as unknown as JsonValue), answer: ctx.answer?.text });
    return { ok: a.path };
  };
  const schema = strictObject({ path: string() });
  return [
    defineTool<{ path: string }>({ name: "peek", description: "Read a path.", inputSchema: schema, sideEffect: "read_only", permission: "allow", timeoutMs: 1000, call: record("peek") as never }),
    defineTool<{ path: string }>({
      name: "write",
      description: "Write a path.",
      inputSchema: schema,
      sideEffect: "local_mutation",
      permission: "allow",
      timeoutMs: 1000,
      call: record("write") as never,
    }),
    defineTool<{ path: string }>({
      name: "confirm",
      description: "Ask a person about a path.",
      inputSchema: schema,
      sideEffect: "read_only",
      permission: "ask",
      wantsAnswer: true,
      timeoutMs: 1000,
      call: record("confirm") as never,
    }),
  ] as Tool<never, unknown>[];
}

export const SHAPES = toolShapes(tools([]));

/** A place: a memory store, its driver (agent, faults as given), its executions. */
export function place(owner: string, options: { agent?: Agent; faults?: Faults; clock?: ManualClock; store?: Store; policy?: Policy } = {}) {
  const log: Execution[] = [];
  const clock = options.clock ?? manualClock();
  const store = options.store ?? memoryStore({ clock });
  const driver = createDriver({
    store,
    clock,
    owner,
    agent: options.agent ?? scriptedAgent(() => final("done")),
    tools: tools(log),
    policy: options.policy ?? policy,
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
  return { store, driver, log, clock };
}

// ---- helpers of the trust tests ----------------------------------------------------

/** The typed refusal a promise ends in (and a failure when it succeeds). */
export async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (!isIsoagentError(e)) throw e;
    return { code: e.code, message: e.message };
  }
  throw new Error("expected a refusal, but it succeeded");
}

/** An agent that asks to write `path` once, then ends. */
export const waitFor = (path: string) => scriptedAgent([calls(call("write", { path })), final("done")]);
export const pendingOf = async (d: Driver, runId: RunId) => Object.values((await d.state(runId)).approvals).filter((a) => a.status === "pending");
/** Approves every pending approval of the run, as `by`. */
export async function approveAll(d: Driver, runId: RunId, by = "op"): Promise<void> {
  for (const a of await pendingOf(d, runId)) await d.approve(runId, a.approvalId, { requestHash: a.requestHash, by });
}
/** The types of a run's events after `seq`. */
export const typesAfter = async (store: Store, runId: RunId, seq: number) => (await store.read(runId, seq + 1)).map((e) => e.type);

/** Places named and keyed: each signs with its own key when it has one; `trusts` lists whose keys it trusts. */
export async function keyed(spec: Record<string, { signs: boolean; trusts: readonly string[] }>): Promise<Record<string, PlaceKeys>> {
  const pairs: Record<string, Awaited<ReturnType<typeof generateBundleKey>>> = {};
  for (const name of Object.keys(spec)) pairs[name] = await generateBundleKey(`key-${name}`);
  const out: Record<string, PlaceKeys> = {};
  for (const [name, s] of Object.entries(spec)) {
    out[name] = { ...(s.signs ? { signing: await signingKey(pairs[name]!.privateJwk) } : {}), trusted: await trustedKeys(s.trusts.map((t) => pairs[t]!.publicJwk)) };
  }
  return out;
}
