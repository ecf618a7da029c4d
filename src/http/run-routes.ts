/**
 * The runs API on the HTTP app, behind its authentication and its JSON
 * rules: creating runs (idempotently, with an `Idempotency-Key`), listing
 * them a page at a time, reading one (its state, trace, re-verified hash
 * chain, artifacts, pending approvals, and events, as JSON or a live
 * stream), and the operator's writes: answering an approval, cancelling,
 * reconciling an interrupted side effect (which need the operator scope).
 */
import type { Hono } from "hono";
import { decodeUtf8Fatal } from "../web.js";
import { parseApprovalId, parseRunId, type ApprovalId, type RunId } from "../ids.js";
import { pendingApprovals } from "../journal/index.js";
import { journalSpans, otlpJson } from "../otel/index.js";
import type { AppVariables } from "./app-options.js";
import type { RunsBackend } from "./backend.js";
import { operatorOnly } from "./guards.js";
import { createIdempotent, IDEMPOTENCY_KEY, idempotentRunId } from "./idempotency.js";
import type { consoleSessions } from "./session-routes.js";
import { verifyJournal } from "./verify.js";
import { ANSWER, CANCEL, checkFrom, CREATE, HttpError, idParam, listQuery, pageCursor, readBody, RECONCILE, streamFrom, view } from "./wire.js";

const isUtf8 = (bytes: Uint8Array): boolean => {
  try {
    decodeUtf8Fatal(bytes);
    return true;
  } catch {
    return false;
  }
};

/** Registers the runs API's routes on `app`, over `backend`; a live stream opened with a console session ends with it (`sessions.guard`). */
export function registerRunRoutes(app: Hono<{ Variables: AppVariables }>, backend: RunsBackend, sessions: ReturnType<typeof consoleSessions>, keepAliveMs: number): void {
  // Answers, reconciliations and cancellations need the operator scope.
  const operator = operatorOnly("answer approvals, reconcile or cancel");
  app.post("/runs/:id/approvals/:approvalId", operator);
  app.post("/runs/:id/cancel", operator);
  app.post("/runs/:id/reconcile", operator);

  // With an Idempotency-Key, a retried create returns the run the first try
  // made (see idempotency.ts): the key, bound to which token the caller
  // holds (or to console sessions), names the run; the same key with another task is 409.
  app.post("/runs", async (c) => {
    const b = await readBody(c, CREATE);
    const key = c.req.header("idempotency-key");
    // What the run is made as: a conversation, with an output schema.
    const how = { ...(b["conversation"] === true ? { conversation: true } : {}), ...(b["outputSchema"] === undefined ? {} : { outputSchema: b["outputSchema"] }) };
    if (key === undefined) return c.json({ runId: await backend.create(b["task"]!, how) }, 201);
    if (!IDEMPOTENCY_KEY.test(key)) throw new HttpError("IDEMPOTENCY_KEY_INVALID", "the Idempotency-Key header must be 1 to 255 visible ASCII characters");
    const task = b["task"]!;
    const made = await createIdempotent(
      idempotentRunId(c.get("caller"), key),
      task,
      (runId) => backend.create(task, { runId, ...how }),
      async (runId) => (await backend.state(runId)).task,
    );
    if (made.replayed) c.header("Idempotent-Replayed", "true");
    return c.json({ runId: made.runId }, 201);
  });

  // A page: with ?limit=, one more is asked for, and `next` (the cursor of ?before=) says there is a page after.
  app.get("/runs", async (c) => {
    const q = listQuery(c);
    const runs = await backend.list(q.limit === undefined ? q : { ...q, limit: q.limit + 1 });
    if (q.limit === undefined || runs.length <= q.limit) return c.json({ runs });
    const page = runs.slice(0, q.limit);
    return c.json({ runs: page, next: pageCursor(page[q.limit - 1]!) });
  });

  app.get("/runs/:id", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const state = await backend.state(runId);
    const run = view(state, await backend.lease(runId), await backend.problem?.(runId));
    // Whether this place owns the run (null), or keeps a copy of it (isoagent/move).
    if (backend.move !== undefined) run["custody"] = (await backend.move.custody(runId)) ?? null;
    return c.json({ run });
  });

  // The run's trace: spans derived from its journal, as OTLP/JSON (content not captured).
  app.get("/runs/:id/trace", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    await backend.state(runId); // 404 for an unknown run
    return c.json(otlpJson(journalSpans(await backend.events(runId, 1))));
  });

  // The whole hash chain, re-verified here from the first event: ok with the head, or the first seq where it breaks.
  app.get("/runs/:id/verify", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    return c.json(verifyJournal(await backend.events(runId, 1)));
  });

  // An artifact of the run (an output kept whole, an elided one), only when its journal names it.
  app.get("/runs/:id/artifacts/:sha256", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const sha256 = c.req.param("sha256");
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new HttpError("INVALID_ID", `${JSON.stringify(sha256.slice(0, 80))} is not a SHA-256 in hex`);
    const bytes = await backend.artifact(runId, sha256);
    if (bytes === null) throw new HttpError("ARTIFACT_NOT_FOUND", `run ${runId}'s journal names no artifact ${sha256}`);
    // Shown as text when it is UTF-8, else downloaded; never run as a page (a sandbox with nothing allowed).
    const text = isUtf8(bytes);
    return c.body(bytes as never, 200, {
      "content-type": text ? "text/plain; charset=utf-8" : "application/octet-stream",
      ...(text ? {} : { "content-disposition": `attachment; filename="${sha256}.bin"` }),
      "content-security-policy": "default-src 'none'; sandbox",
    });
  });

  app.get("/runs/:id/approvals", async (c) => {
    const state = await backend.state(idParam(parseRunId, c.req.param("id")));
    return c.json({ approvals: pendingApprovals(state) });
  });

  app.get("/runs/:id/events", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const from = streamFrom(c.req.header("last-event-id"), c.req.query("from"));
    if (!(c.req.header("accept") ?? "").includes("text/event-stream")) {
      if (from === 1) return c.json({ events: await backend.events(runId, 1) });
      // Read from the event before: when it is there, from is at most the last seq + 1, with no second call.
      const read = await backend.events(runId, from - 1);
      if (read[0]?.seq === from - 1) return c.json({ events: read.slice(1) });
      checkFrom(runId, from, (await backend.state(runId)).seq);
      // Appended since the read (a journal only grows).
      return c.json({ events: await backend.events(runId, from) });
    }
    if (from > 1) checkFrom(runId, from, (await backend.state(runId)).seq);
    // Pushed by whoever appends to the run (see stream.ts): 404 before the stream starts.
    const stream = await backend.stream(runId, from, { keepAliveMs });
    const session = c.get("session");
    const body = session === undefined ? stream : sessions.guard(stream, session, keepAliveMs);
    return c.body(body as never, 200, { "content-type": "text/event-stream; charset=utf-8" });
  });

  app.post("/runs/:id/approvals/:approvalId", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const approvalId: ApprovalId = idParam(parseApprovalId, c.req.param("approvalId"));
    const b = await readBody(c, ANSWER);
    const answer = {
      requestHash: String(b["requestHash"]),
      by: String(b["by"] ?? "operator (API)"),
      ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }),
      ...(b["answer"] === undefined ? {} : { answer: String(b["answer"]) }),
    };
    if (b["decision"] === "approve") await backend.approve(runId, approvalId, answer);
    else await backend.deny(runId, approvalId, answer);
    return c.json({ ok: true });
  });

  app.post("/runs/:id/cancel", async (c) => {
    const runId: RunId = idParam(parseRunId, c.req.param("id"));
    const b = await readBody(c, CANCEL);
    await backend.cancel(runId, { by: String(b["by"] ?? "operator (API)"), ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }) });
    return c.json({ ok: true });
  });

  // Only an interrupted side effect is reconciled here (409 APPROVAL_NOT_RECONCILABLE for a call's approval).
  app.post("/runs/:id/reconcile", async (c) => {
    const runId = idParam(parseRunId, c.req.param("id"));
    const b = await readBody(c, RECONCILE);
    const approvalId = idParam(parseApprovalId, String(b["approvalId"]));
    await backend.settle(runId, approvalId, {
      requestHash: String(b["requestHash"]),
      by: String(b["by"] ?? "operator (API)"),
      resolution: b["resolution"] as "run_again" | "record_result" | "record_failure" | "mark_unknown",
      ...(b["content"] === undefined ? {} : { content: b["content"] }),
      ...(b["reason"] === undefined ? {} : { reason: String(b["reason"]) }),
    });
    return c.json({ ok: true });
  });
}
