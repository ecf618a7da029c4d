/**
 * A conversation's routes on the runs API (v5): a user's message, and the
 * controls of its turns (stop, regenerate, close). Any caller the API lets
 * in may use them (a conversation's user is not an operator); cancelling a
 * conversation stays the operator's (POST /runs/:id/cancel).
 *
 * - `POST /runs/:id/messages` `{ id?, text, files?, metadata?, outputSchema?, by? }`: the
 *   message's id is the body's `id` or the `Idempotency-Key` header (one of
 *   them; both must agree). 202 with `{ seq, duplicate: false }` when it
 *   opens a turn, which is then driven; a resend of the same message is
 *   200 with `duplicate: true` and `Idempotent-Replayed: true`, appending
 *   nothing; the same id with other content is 409 MESSAGE_ID_REUSED; a
 *   message in the middle of a turn is 409 TURN_IN_PROGRESS.
 * - `POST /runs/:id/stop` `{ by? }`: ends the turn in progress (200 with the
 *   status after it).
 * - `POST /runs/:id/regenerate` `{ by? }`: runs the last turn again (202).
 * - `POST /runs/:id/close` `{ by?, reason? }`: closes the conversation.
 */
import type { Hono } from "hono";
import { ID_PATTERN_SOURCE, parseRunId, type RunId } from "../ids.js";
import { fromBase64 } from "../move/base64.js";
import type { JsonValue } from "../json/index.js";
import type { UserMessage } from "../driver/index.js";
import type { AppVariables } from "./app-options.js";
import type { RunsBackend } from "./backend.js";
import { IDEMPOTENCY_KEY } from "./idempotency.js";
import { HttpError, idParam, readBody, body } from "./wire.js";

const by = { type: "string", minLength: 1, maxLength: 256 };
const MESSAGE = body({
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: {
    id: { type: "string", pattern: ID_PATTERN_SOURCE },
    text: { type: "string", maxLength: 100_000 },
    files: {
      type: "array",
      maxItems: 8,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["mediaType", "data"],
        properties: {
          mediaType: { type: "string", minLength: 3, maxLength: 255 },
          data: { type: "string", description: "The file's bytes, base64" },
          name: { type: "string", minLength: 1, maxLength: 256 },
        },
      },
    },
    metadata: true,
    outputSchema: { type: ["object", "boolean"] },
    by,
  },
});
const CONTROL = body({ type: "object", additionalProperties: false, properties: { by } });
const CLOSE = body({ type: "object", additionalProperties: false, properties: { by, reason: { type: "string", minLength: 1, maxLength: 4096 } } });

/** The message a body and its Idempotency-Key say. */
function messageOf(b: Record<string, JsonValue>, key: string | undefined): UserMessage {
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new HttpError("IDEMPOTENCY_KEY_INVALID", "the Idempotency-Key header must be 1 to 255 visible ASCII characters");
  const id = b["id"] as string | undefined;
  if (id !== undefined && key !== undefined && id !== key) throw new HttpError("MESSAGE_INVALID", "the message's id and the Idempotency-Key header differ: give one, or the same in both");
  const messageId = id ?? key;
  if (messageId === undefined) throw new HttpError("MESSAGE_INVALID", "a message needs an id (in the body, or as the Idempotency-Key header): a retry with the same id is taken once");
  const files = ((b["files"] ?? []) as { mediaType: string; data: string; name?: string }[]).map((f, k) => {
    const data = fromBase64(f.data);
    if (data === undefined) throw new HttpError("MESSAGE_INVALID", `file ${k + 1} of the message is not base64 (data)`);
    return { mediaType: f.mediaType, data, ...(f.name === undefined ? {} : { name: f.name }) };
  });
  return {
    id: messageId,
    text: b["text"] as string,
    ...(files.length === 0 ? {} : { files }),
    ...(b["metadata"] === undefined ? {} : { metadata: b["metadata"] }),
    ...(b["outputSchema"] === undefined ? {} : { outputSchema: b["outputSchema"] }),
  };
}

/** Registers a conversation's routes on `app`, over `backend`. */
export function registerConversationRoutes(app: Hono<{ Variables: AppVariables }>, backend: RunsBackend): void {
  const runOf = (id: string | undefined): RunId => idParam(parseRunId, id);
  const byOf = (b: Record<string, JsonValue>, fallback: string): string => (b["by"] as string | undefined) ?? fallback;

  app.post("/runs/:id/messages", async (c) => {
    const runId = runOf(c.req.param("id"));
    const b = await readBody(c, MESSAGE);
    const sent = await backend.send(runId, messageOf(b, c.req.header("idempotency-key")), { by: byOf(b, "user (API)") });
    if (sent.duplicate) c.header("Idempotent-Replayed", "true");
    return c.json({ seq: sent.seq, duplicate: sent.duplicate }, sent.duplicate ? 200 : 202);
  });

  app.post("/runs/:id/stop", async (c) => {
    const runId = runOf(c.req.param("id"));
    const b = await readBody(c, CONTROL);
    return c.json({ status: (await backend.stopTurn(runId, { by: byOf(b, "user (API)") })).status });
  });

  app.post("/runs/:id/regenerate", async (c) => {
    const runId = runOf(c.req.param("id"));
    const b = await readBody(c, CONTROL);
    await backend.regenerate(runId, { by: byOf(b, "user (API)") });
    return c.json({ ok: true }, 202);
  });

  app.post("/runs/:id/close", async (c) => {
    const runId = runOf(c.req.param("id"));
    const b = await readBody(c, CLOSE);
    await backend.close(runId, { by: byOf(b, "user (API)"), ...(b["reason"] === undefined ? {} : { reason: b["reason"] as string }) });
    return c.json({ ok: true });
  });
}
