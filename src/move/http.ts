/**
 * A place reached over HTTP: the runs API of isoagent/http with its move
 * routes (a Worker, `npm start`, a Node server). Over fetch only, so the
 * same client runs in a tab, a Worker and Node.
 */
import { IsoagentError, type IsoagentErrorCode } from "../errors.js";
import type { RunId } from "../ids.js";
import { STORE_ERROR_CODES, StoreError, type Custody, type StoreErrorCode } from "../store/index.js";
import { MoveError, type MoveErrorCode } from "./errors.js";
import { BUNDLE_MEDIA_TYPE } from "./format.js";
import type { ImportResult } from "./import.js";
import type { Place } from "./place.js";
import type { BundleInput } from "./read.js";

/** The part of `fetch` the client uses. */
export type HttpFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown; credentials?: "same-origin" | "include" | "omit" },
) => Promise<{
  readonly ok: boolean;
  readonly status: number;
  readonly body: unknown;
  json(): Promise<unknown>;
}>;

/** Options of {@link httpPlace}. */
export interface HttpPlaceOptions {
  /** The API's origin (and path prefix), e.g. `https://agents.example.com` or `""` for the page's own origin. */
  readonly url: string;
  /** The place's name, as seals handing runs there name it (the Worker's, "edge" by default there). */
  readonly name: string;
  /** An operator token (`Authorization: Bearer`); without one, the page's console session (same origin) authorizes. */
  readonly token?: string;
  /** The fetch to use (default: the platform's). */
  readonly fetch?: HttpFetch;
}

const STORE_CODES = new Set<string>(STORE_ERROR_CODES);
const MOVE_CODES = new Set<string>([
  "BUNDLE_INVALID",
  "BUNDLE_VERSION",
  "BUNDLE_TRUNCATED",
  "BUNDLE_REORDERED",
  "BUNDLE_TAMPERED",
  "BUNDLE_ARTIFACT_MISSING",
  "BUNDLE_TOO_LARGE",
  "BUNDLE_KEY_INVALID",
  "BUNDLE_SIGNATURE_INVALID",
  "RUN_DIVERGED",
  "MOVE_FENCED",
  "MOVE_REFUSED",
]);

/** The API's refusal as the typed error it was on the other side. */
async function refusal(res: { status: number; json(): Promise<unknown> }, where: string): Promise<never> {
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string; actualSeq?: number; seq?: number } };
  const code = body.error?.code ?? "HTTP_ERROR";
  const message = body.error?.message ?? `HTTP ${res.status}`;
  if (STORE_CODES.has(code)) throw new StoreError(code as StoreErrorCode, message, body.error?.actualSeq === undefined ? {} : { actualSeq: body.error.actualSeq });
  if (MOVE_CODES.has(code)) throw new MoveError(code as MoveErrorCode, message, body.error?.seq === undefined ? {} : { seq: body.error.seq });
  if (code === "TOOL_SHAPE_CHANGED") throw new IsoagentError(code as IsoagentErrorCode, message);
  throw new MoveError("MOVE_REFUSED", `${where} answered ${res.status} ${code}: ${message}`);
}

/** A bundle as a request body: text as it is; chunks gathered into a Blob of parts (a browser streams no request body over HTTP/1.1), never one string. */
async function requestBody(bundle: BundleInput): Promise<unknown> {
  if (typeof bundle === "string" || bundle instanceof Uint8Array) return bundle;
  const parts: (string | Uint8Array)[] = [];
  if ("getReader" in bundle) {
    const reader = bundle.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value !== undefined) parts.push(value);
    }
  } else for await (const chunk of bundle) parts.push(chunk);
  const BlobClass = (globalThis as unknown as { Blob?: new (parts: unknown[]) => unknown }).Blob;
  return BlobClass === undefined ? parts.join("") : new BlobClass(parts);
}

/**
 * A place over HTTP: `head` reads `GET /runs/:id`, `export` streams `GET
 * /runs/:id/export`, `receive` posts a bundle to `POST /runs/import`,
 * `seal` and `abandon` post to `POST /runs/:id/move`.
 *
 * @example
 * ```ts
 * const edge = httpPlace({ url: "", name: "edge" })   // the page's own origin, its console session
 * await moveRun(runId, localPlace(idbStore(), { name: "tab:3f2c" }), edge)
 * ```
 */
export function httpPlace(options: HttpPlaceOptions): Place {
  const f: HttpFetch = options.fetch ?? ((url, init) => (globalThis as unknown as { fetch: HttpFetch }).fetch(url, init));
  const base = options.url.replace(/\/$/, "");
  const auth: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const res = await f(`${base}${path}`, {
      method,
      credentials: "same-origin",
      headers: { ...auth, ...(body === undefined ? {} : { "content-type": type }) },
      ...(body === undefined ? {} : { body }),
    });
    if (!res.ok) await refusal(res, `${options.name} (${method} ${path})`);
    return res;
  };
  const run = (runId: RunId): string => `/runs/${encodeURIComponent(runId)}`;
  return {
    name: options.name,
    async head(runId) {
      const res = await f(`${base}${run(runId)}`, { method: "GET", credentials: "same-origin", headers: auth });
      if (res.status === 404) return null;
      if (!res.ok) await refusal(res, options.name);
      const { run: view } = (await res.json()) as { run: { seq: number; custody?: Custody | null } };
      return { seq: view.seq, custody: view.custody ?? undefined };
    },
    async export(runId, fromSeq) {
      const res = await call("GET", `${run(runId)}/export?from=${fromSeq}`);
      return res.body as BundleInput;
    },
    async receive(_runId, bundle, role) {
      const res = await call("POST", `/runs/import?role=${role}`, await requestBody(bundle), BUNDLE_MEDIA_TYPE);
      const r = (await res.json()) as Omit<ImportResult, "custody"> & { custody: Custody | null };
      // (A place that predates trust does not say what it decided again.)
      return { ...r, reopened: typeof r.reopened === "number" ? r.reopened : 0, custody: r.custody ?? undefined };
    },
    async seal(runId, to) {
      return (await (await call("POST", `${run(runId)}/move`, JSON.stringify({ action: "release", to }))).json()) as { seq: number; epoch: number };
    },
    async abandon(runId) {
      return ((await (await call("POST", `${run(runId)}/move`, JSON.stringify({ action: "abandon" }))).json()) as { abandoned: boolean }).abandoned;
    },
  };
}
