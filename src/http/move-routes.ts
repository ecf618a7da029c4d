/**
 * The HTTP side of moves and mirrors (isoagent/move), on the runs API:
 *
 * - `GET /runs/:id/export[?from=N]`: the run as a bundle (JSON lines), streamed.
 * - `POST /runs/import[?role=mirror|in_transit]`: a bundle, streamed, verified
 *   before anything is written, under its own cap (413 past it; the JSON
 *   body cap does not apply). A bundle ending with a seal naming this place
 *   hands the run over.
 * - `POST /runs/:id/move`: this place's side of a move, as JSON:
 *   `{"action": "accept", "events": [...], "artifacts": [...], "signature"?: {...}}`
 *   takes a run in transit here once its source sealed it (the tail must end
 *   with the seal naming this place; `signature`, the source's, as a
 *   bundle's trailer carries it); `{"action": "release", "to": "<place>"}` seals
 *   a run this place owns in favour of another (which then pulls the tail
 *   from the export); `{"action": "abandon"}` gives up a run in transit here.
 * - `POST /runs/:id/mirror`: a tail of the run (a bundle), appended to this
 *   place's read-only mirror of it; answers the seq it now holds.
 *
 * Import, move and mirror need the operator scope (they change who owns a
 * run); export needs a token of either scope. Refusals are the API's
 * errors; a conflict says where the copy is (`actualSeq`), a divergence
 * its first differing event (`seq`).
 */
import type { Context, Env, Hono } from "hono";
import { isIsoagentError } from "../errors.js";
import { parseRunId, type RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { Custody } from "../store/index.js";
import { BUNDLE_MEDIA_TYPE, DEFAULT_MAX_BUNDLE_BYTES, type BundleInput, type ImportResult } from "../move/index.js";
import { tailBundle } from "../move/tail.js";
import { MoveError } from "../move/errors.js";
import { bodyCap, operatorOnly } from "./guards.js";
import { errorBody, fromQuery, HttpError, idParam, readBody, STATUS } from "./wire.js";
import { compileSchema, type CompiledSchema } from "../schema/index.js";
import { ID_PATTERN_SOURCE } from "../ids.js";

/** What a backend does for moves and mirrors (the run's place, in this process or in its Durable Object). */
export interface MoveBackend {
  /** This place's name, as the seals handing runs here name it. */
  readonly place: string;
  /** The run's custody here (undefined: this place owns it); RUN_NOT_FOUND for an unknown run. */
  custody(runId: RunId): Promise<Custody | undefined>;
  /** The run as a bundle from `fromSeq`: chunks of JSON lines. */
  exportRun(runId: RunId, fromSeq: number): Promise<AsyncIterable<string | Uint8Array> | { getReader(): unknown }>;
  /** Imports a bundle into this place's copy (see isoagent/move's importRun): `runId` when the route names it. */
  importRun(body: BundleInput, options: { readonly role: "mirror" | "in_transit"; readonly runId?: RunId; readonly maxBytes: number }): Promise<ImportResult>;
  /** Seals a run this place owns in favour of `to`. */
  releaseRun(runId: RunId, to: string): Promise<{ seq: number; epoch: number }>;
  /** Gives up a run in transit here. */
  abandonRun(runId: RunId): Promise<boolean>;
}

const MOVE_STATUS: Record<string, number> = {
  RUN_MOVED: 409,
  RUN_IN_TRANSIT: 409,
  RUN_MIRROR: 409,
  RUN_OWNED: 409,
  RUN_DIVERGED: 409,
  MOVE_FENCED: 409,
  MOVE_REFUSED: 409,
  JOURNAL_CONFLICT: 409,
  LEASE_NOT_HELD: 409,
  BUNDLE_TOO_LARGE: 413,
  // This place's own keys are wrong (its configuration), not the request.
  BUNDLE_KEY_INVALID: 500,
};

let moveBody: CompiledSchema | undefined;
const MOVE = (): CompiledSchema =>
  (moveBody ??= compileSchema({
    type: "object",
    additionalProperties: false,
    required: ["action"],
    properties: {
      action: { enum: ["accept", "release", "abandon"] },
      to: { type: "string", pattern: ID_PATTERN_SOURCE },
      events: { type: "array", maxItems: 10_000, items: { type: "object" } },
      signature: { type: "object" },
      artifacts: {
        type: "array",
        maxItems: 1000,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["sha256", "size", "base64"],
          properties: { sha256: { type: "string" }, size: { type: "integer", minimum: 0 }, base64: { type: "string" } },
        },
      },
    },
  }));

/** A refusal as the API answers it, with where the copy is or where it diverged. */
function refused(c: Context, e: unknown) {
  // A route's own refusal (HttpError) is answered by the app; a crash is no refusal.
  if (!isIsoagentError(e) || isIsoagentError(e, "HTTP_REFUSED") || isIsoagentError(e, "CRASH")) throw e;
  const status = MOVE_STATUS[e.code] ?? STATUS[e.code] ?? 400;
  const at = (e as { actualSeq?: unknown }).actualSeq;
  const seq = (e as { seq?: unknown }).seq;
  const body = errorBody(e.code, e.message) as { error: Record<string, unknown> };
  if (typeof at === "number") body.error["actualSeq"] = at;
  if (typeof seq === "number") body.error["seq"] = seq;
  return c.json(body, status as 400);
}

/** The bundle body: streamed, refused at once when its declared length passes the cap, and when it is not JSON lines. */
function bundleBody(c: Context, maxBytes: number): BundleInput {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== BUNDLE_MEDIA_TYPE) throw new HttpError("UNSUPPORTED_MEDIA_TYPE", `the body must be a run bundle, sent with content-type: ${BUNDLE_MEDIA_TYPE}`);
  const declared = Number(c.req.header("content-length") ?? NaN);
  if (declared > maxBytes) throw new MoveError("BUNDLE_TOO_LARGE", `the bundle is larger than ${maxBytes} bytes, the import cap; nothing was written`);
  const body = c.req.raw.body;
  if (body === null) return "";
  return body as unknown as BundleInput;
}

/**
 * Registers the four routes on the app, after its authentication and
 * before its JSON-only and body-size middleware (a bundle is JSON lines
 * under its own cap); the writes need the operator scope.
 */
export function registerMoveRoutes<E extends Env>(app: Hono<E>, move: MoveBackend, options: { readonly maxImportBytes?: number; readonly maxBodyBytes: number }): void {
  const operator = operatorOnly("import, move or mirror them");
  const maxImport = options.maxImportBytes ?? DEFAULT_MAX_BUNDLE_BYTES;
  const limit = bodyCap(options.maxBodyBytes);

  app.get("/runs/:id/export", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const from = fromQuery(c.req.query("from"));
    try {
      // The first chunk before the answer: an unknown run is a 404, not a cut stream.
      const stream = await firstChunk(await move.exportRun(runId, from));
      return c.body(stream as never, 200, { "content-type": `${BUNDLE_MEDIA_TYPE}; charset=utf-8` });
    } catch (e) {
      return refused(c, e);
    }
  });

  app.post("/runs/import", operator, async (c) => {
    const role = c.req.query("role") ?? "mirror";
    if (role !== "mirror" && role !== "in_transit") throw new HttpError("INVALID_QUERY", "role must be mirror or in_transit");
    try {
      const r = await move.importRun(bundleBody(c, maxImport), { role, maxBytes: maxImport });
      return c.json(result(r), r.outcome === "created" ? 201 : 200);
    } catch (e) {
      return refused(c, e);
    }
  });

  app.post("/runs/:id/mirror", operator, async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    try {
      const r = await move.importRun(bundleBody(c, maxImport), { role: "mirror", runId, maxBytes: maxImport });
      return c.json(result(r), r.outcome === "created" ? 201 : 200);
    } catch (e) {
      return refused(c, e);
    }
  });

  app.post("/runs/:id/move", operator, limit, async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    if (!isJsonType(c.req.header("content-type"))) throw new HttpError("UNSUPPORTED_MEDIA_TYPE", "the body must be JSON, sent with content-type: application/json");
    const b = await readBody(c, MOVE);
    try {
      if (b["action"] === "release") {
        if (typeof b["to"] !== "string") throw new HttpError("INVALID_BODY", "the body is not what this route takes: release needs to, the place the run moves to");
        if (b["to"] === move.place) throw new MoveError("MOVE_REFUSED", `a run cannot move from ${move.place} to itself`);
        return c.json({ runId, ...(await move.releaseRun(runId, b["to"])) });
      }
      if (b["action"] === "abandon") return c.json({ runId, abandoned: await move.abandonRun(runId) });
      const events = (b["events"] ?? []) as JsonValue[];
      const last = events[events.length - 1] as Record<string, JsonValue> | undefined;
      if (last === undefined || last["type"] !== "run.moved" || last["to"] !== move.place) {
        throw new MoveError("MOVE_REFUSED", `accept takes the events after this place's copy, ending with the seal (run.moved) naming ${move.place}; nothing was accepted`);
      }
      const r = await move.importRun(tailBundle(runId, events, (b["artifacts"] ?? []) as JsonValue[], b["signature"]), { role: "in_transit", runId, maxBytes: options.maxBodyBytes });
      return c.json(result(r));
    } catch (e) {
      return refused(c, e);
    }
  });
}

const isJsonType = (t: string | undefined): boolean => (t ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";

function result(r: ImportResult): Record<string, unknown> {
  return { runId: r.runId, outcome: r.outcome, seq: r.seq, written: r.written, reopened: r.reopened, status: r.status, custody: r.custody ?? null };
}

/** An export's chunks as a Response body, its first chunk read already (so that a refusal comes before the answer). */
async function firstChunk(chunks: AsyncIterable<string | Uint8Array> | { getReader(): unknown }): Promise<unknown> {
  const enc = new (globalThis as unknown as { TextEncoder: new () => { encode(s: string): Uint8Array } }).TextEncoder();
  const RS = (globalThis as unknown as { ReadableStream: new (source: object) => unknown }).ReadableStream;
  const bytes = (v: string | Uint8Array): Uint8Array => (typeof v === "string" ? enc.encode(v) : v);
  if ("getReader" in chunks) {
    const reader = (chunks as { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(r?: unknown): Promise<void> } }).getReader();
    const first = await reader.read();
    return new RS({
      start(controller: { enqueue(b: Uint8Array): void; close(): void }) {
        if (first.done) controller.close();
        else controller.enqueue(first.value!);
      },
      async pull(controller: { enqueue(b: Uint8Array): void; close(): void }) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value!);
      },
      cancel: (r: unknown) => reader.cancel(r),
    });
  }
  const it = chunks[Symbol.asyncIterator]();
  const first = await it.next();
  return new RS({
    start(controller: { enqueue(b: Uint8Array): void; close(): void }) {
      if (first.done === true) controller.close();
      else controller.enqueue(bytes(first.value));
    },
    async pull(controller: { enqueue(b: Uint8Array): void; close(): void }) {
      const { done, value } = await it.next();
      if (done === true) controller.close();
      else controller.enqueue(bytes(value));
    },
    async cancel() {
      await it.return?.(undefined);
    },
  });
}
