/**
 * The interpreter's side of a thread of its own (a Worker thread in Node, a
 * Web Worker in a browser): it loads just-bash, says it is ready, and runs
 * each command it is handed over a filesystem whose every operation is a
 * message to the owning thread, where the command's WorkspaceFs and the
 * run's policy decide it. It holds no file, no policy and no credential:
 * it sees what the owning thread answers, as an in-thread interpreter does.
 * Only `resolvePath` (joining two paths) is answered here; `getAllPaths`
 * (what `ls` matches a pattern the shell left unexpanded against) answers
 * nothing, as the owning thread's filesystem does (fs.ts).
 *
 * The platform entries start it: `serveInterpreter(endpoint)`.
 *
 * @module
 */
import { normalizePath, unwireError } from "./fs.js";
import { interpret, trustedRunners, type InterpretJob } from "./interpret.js";
import { loadJustBash, type JbFetchResult, type JbSecureFetch, type JustBash } from "./just-bash.js";
import type { FetchOptions, FromThread, FsMethod, InterpreterEndpoint, WireError } from "./protocol.js";
import { FS_METHODS } from "./protocol.js";

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/**
 * Serves commands on `endpoint` until the thread is terminated.
 *
 * @example
 * ```ts
 * // a Web Worker's module
 * serveInterpreter({ postMessage: (m) => self.postMessage(m), listen: (f) => self.addEventListener("message", (e) => f(e.data)) })
 * ```
 */
export function serveInterpreter(endpoint: InterpreterEndpoint, load: () => Promise<JustBash> = loadJustBash): void {
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let justBash: JustBash | undefined;
  const send = (m: FromThread): void => endpoint.postMessage(m);

  endpoint.listen((raw) => {
    const m = raw as { t?: unknown; run?: unknown; id?: unknown; ok?: unknown; value?: unknown; error?: unknown; job?: unknown };
    if (m?.t === "reply" && typeof m.id === "number") {
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      if (m.ok === true) p.resolve(m.value);
      else p.reject(unwireError(m.error as WireError));
      return;
    }
    if (m?.t === "run" && typeof m.run === "number" && justBash !== undefined) void runOne(justBash, m.run, m.job as InterpretJob);
  });

  const ask = (message: (id: number) => FromThread): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      send(message(id));
    });

  async function runOne(jb: JustBash, run: number, job: InterpretJob): Promise<void> {
    const { trusted, trustedSync } = trustedRunners(jb);
    // Every operation crosses to the owning thread, outside just-bash's defense-in-depth context.
    const fs: Record<string, unknown> = {
      resolvePath: (base: string, p: string) => normalizePath(p.startsWith("/") ? p : `${base}/${p}`),
      getAllPaths: () => [],
    };
    for (const method of FS_METHODS) {
      fs[method] = (...args: unknown[]) => trusted(() => ask((id) => ({ t: "fs", run, id, method: method as FsMethod, args: args.map(plain) })));
    }
    const fetch: JbSecureFetch | undefined = job.network
      ? (url, options) => trusted(async () => (await ask((id) => ({ t: "fetch", run, id, url, options: fetchOptions(options) }))) as JbFetchResult)
      : undefined;
    try {
      const result = await interpret(jb, job, fs, fetch, undefined);
      trustedSync(() => send({ t: "done", run, result }));
    } catch {
      trustedSync(() => send({ t: "failed", run }));
    }
  }

  load().then(
    (jb) => {
      justBash = jb;
      send({ t: "ready" });
    },
    (e: unknown) => send({ t: "unusable", message: e instanceof Error ? e.message : String(e) }),
  );
}

/** An argument as it can cross: a Date, a Uint8Array, a string or a plain object of such (just-bash passes nothing else). */
function plain(v: unknown): unknown {
  if (v === null || typeof v !== "object" || v instanceof Uint8Array || v instanceof Date) return v;
  if (Array.isArray(v)) return v.map(plain);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x !== "function") out[k] = plain(x);
  return out;
}

/** curl's options as they can cross: headers as a plain object (a Headers instance cannot), no signal. */
function fetchOptions(o: Parameters<JbSecureFetch>[1]): FetchOptions {
  const out: { -readonly [K in keyof FetchOptions]: FetchOptions[K] } = {};
  if (o === undefined) return out;
  if (o.method !== undefined) out.method = o.method;
  if (o.body !== undefined) out.body = o.body;
  if (o.followRedirects !== undefined) out.followRedirects = o.followRedirects;
  if (o.maxRedirects !== undefined) out.maxRedirects = o.maxRedirects;
  if (o.timeoutMs !== undefined) out.timeoutMs = o.timeoutMs;
  const given = o.headers;
  if (given !== undefined) {
    const headers: Record<string, string> = {};
    if (typeof (given as { forEach?: unknown }).forEach === "function" && !Object.hasOwn(given, "forEach"))
      (given as { forEach(cb: (value: string, key: string) => void): void }).forEach((v, k) => void (headers[k] = v));
    else for (const [k, v] of Object.entries(given as Record<string, string>)) headers[k] = v;
    out.headers = headers;
  }
  return out;
}
