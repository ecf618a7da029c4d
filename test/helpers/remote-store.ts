/**
 * The Store port of a Worker in workerd, from this process: every call is a
 * POST to a test route of test/workerd/workers/do-entry.ts, which calls the
 * store there (bytes as base64, errors as their codes).
 */
import type { Store } from "../../src/index.js";
import { StoreError } from "../../src/store/index.js";

export function encode(v: unknown): unknown {
  if (v instanceof Uint8Array) return { __bytes: Buffer.from(v).toString("base64") };
  if (Array.isArray(v)) return v.map(encode);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}

export function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o["__bytes"] === "string") return new Uint8Array(Buffer.from(o["__bytes"], "base64"));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}

const METHODS = [
  "createRun",
  "append",
  "read",
  "acquireLease",
  "renewLease",
  "releaseLease",
  "lease",
  "listRuns",
  "putArtifact",
  "getArtifact",
  "putSnapshot",
  "getSnapshot",
  "importEvents",
  "custody",
  "abandonTransit",
] as const;

/**
 * A Store whose every call crosses into workerd: over `route` "store", to the
 * run objects over Durable Object RPC (durableObjectStore); over "local", to
 * the store a run object's own host drives its run on (localStore).
 */
export function remoteStore(post: (path: string, body: string) => Promise<{ json(): Promise<unknown> }>, route: "store" | "local" = "store"): Store {
  const call =
    (method: string) =>
    async (...args: unknown[]) => {
      const res = await post(`/test/${route}/${method}`, JSON.stringify(encode(args)));
      const r = (await res.json()) as { ok: boolean; value?: unknown; error?: { code: string; message: string; actualSeq?: number } };
      if (!r.ok) throw new StoreError(r.error!.code as never, r.error!.message, r.error!.actualSeq === undefined ? {} : { actualSeq: r.error!.actualSeq });
      // (JSON has no undefined: a run's custody comes back null when the store owns it.)
      return method === "custody" && r.value === null ? undefined : decode(r.value);
    };
  return Object.fromEntries(METHODS.map((m) => [m, call(m)])) as unknown as Store;
}
