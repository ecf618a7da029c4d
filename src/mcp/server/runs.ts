/**
 * Run control as MCP tools: create a run, read its state and events, list
 * the approvals it waits for, send a conversation its messages and control
 * its turns (any caller of the endpoint); answer an
 * approval and cancel a run (callers with the operator scope only: an agent
 * holding only the run token can never answer an approval, its own least).
 */
import { isIsoagentError } from "../../errors.js";
import { parseApprovalId, parseRunId, type ApprovalId, type RunId } from "../../ids.js";
import type { JsonValue } from "../../json/index.js";
import { pendingApprovals, RUN_STATUSES, type JournalEvent, type RunState, type RunStatus } from "../../journal/index.js";
import { runSummary } from "../../journal/summary.js";
import { compileSchema, type CompiledSchema } from "../../schema/index.js";
import { contract } from "../../tools/contract.js";
import type { RunFilter, RunSummary } from "../../store/index.js";
import type { JsonObject } from "../jsonrpc.js";
import { ID_PATTERN_SOURCE } from "../../ids.js";

/** What run control needs of wherever runs live (`RunsBackend` of isoagent/http has it: `driverBackend`, `durableObjectBackend`). */
export interface RunsControl {
  create(task: JsonValue, options?: { readonly conversation?: boolean }): Promise<RunId>;
  list(filter: RunFilter): Promise<RunSummary[]>;
  state(runId: RunId): Promise<RunState>;
  events(runId: RunId, fromSeq: number): Promise<JournalEvent[]>;
  approve(runId: RunId, approvalId: ApprovalId, answer: { requestHash: string; by: string; reason?: string; answer?: string }): Promise<void>;
  deny(runId: RunId, approvalId: ApprovalId, answer: { requestHash: string; by: string; reason?: string }): Promise<void>;
  cancel(runId: RunId, options: { by: string; reason?: string }): Promise<void>;
  /** A conversation's message and the controls of its turns (v5). */
  send(runId: RunId, message: { readonly id: string; readonly text: string; readonly metadata?: JsonValue }, options: { by: string }): Promise<{ readonly seq: number; readonly duplicate: boolean }>;
  stopTurn(runId: RunId, options: { by: string }): Promise<{ readonly status: RunStatus }>;
  regenerate(runId: RunId, options: { by: string }): Promise<void>;
  close(runId: RunId, options: { by: string; reason?: string }): Promise<void>;
}

/** Who calls the MCP endpoint: what their token lets them do. */
export interface McpCaller {
  /** "run": create and read runs; "operator": that, and answer approvals and cancel runs. */
  readonly scope: "run" | "operator";
  /** Who answered, as journaled with an answer. Default "operator (MCP)". */
  readonly by?: string;
}

interface RunTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly operator: boolean;
  /** What the tool does, as MCP's hints say it (a client decides by them whether to ask its user first). */
  readonly annotations: JsonObject;
  run(args: Record<string, JsonValue>, caller: McpCaller): Promise<JsonValue>;
}

// Reads touch nothing, and nothing but the runs here.
const READ: JsonObject = { readOnlyHint: true, openWorldHint: false };

const RUN_ID = { type: "string", pattern: ID_PATTERN_SOURCE, description: "The run's id" };
const strict = (properties: JsonObject, required: string[]): JsonObject => ({ type: "object", properties, required, additionalProperties: false });

/** A run's state as its controller reads it (the transcript is left out: events carry it). */
function runView(s: RunState): JsonValue {
  return { ...runSummary(s), step: s.step } as unknown as JsonValue;
}

/** The run control tools over a backend. */
export function runTools(backend: RunsControl): readonly RunTool[] {
  return [
    {
      name: "isoagent_create_run",
      description:
        "Create an isoagent run for a task and start it. Answers its run id. With conversation: true, a conversation: it waits for messages (isoagent_send_message), and the task is what its agent is told first.",
      inputSchema: strict(
        {
          task: { description: "The task: any JSON (a string, or an object the agent understands)" },
          conversation: { type: "boolean", description: "A conversation, turn after turn, instead of one task" },
        },
        ["task"],
      ),
      operator: false,
      // Adds a run (each call another one), whose agent then acts with its own tools, through its own gate.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (a) => ({ runId: await backend.create(a["task"]!, a["conversation"] === true ? { conversation: true } : {}) }),
    },
    {
      name: "isoagent_list_runs",
      description: "List isoagent runs, most recently updated first.",
      inputSchema: strict({ status: { type: "array", items: { enum: [...RUN_STATUSES] }, uniqueItems: true }, limit: { type: "integer", minimum: 1, maximum: 500 } }, []),
      operator: false,
      annotations: READ,
      run: async (a) => ({
        runs: (await backend.list({ ...(a["status"] === undefined ? {} : { status: a["status"] as RunStatus[] }), limit: (a["limit"] as number | undefined) ?? 50 })) as unknown as JsonValue,
      }),
    },
    {
      name: "isoagent_get_run",
      description: "Read a run's state: its status, step, output or failure, and the approvals it waits for.",
      inputSchema: strict({ runId: RUN_ID }, ["runId"]),
      operator: false,
      annotations: READ,
      run: async (a) => runView(await backend.state(parseRunId(String(a["runId"])))),
    },
    {
      name: "isoagent_get_events",
      description: "Read a run's journal events from a sequence number (at most `limit`, default 100).",
      inputSchema: strict({ runId: RUN_ID, from: { type: "integer", minimum: 1 }, limit: { type: "integer", minimum: 1, maximum: 500 } }, ["runId"]),
      operator: false,
      annotations: READ,
      run: async (a) => {
        const events = await backend.events(parseRunId(String(a["runId"])), (a["from"] as number | undefined) ?? 1);
        return { events: events.slice(0, (a["limit"] as number | undefined) ?? 100) as unknown as JsonValue };
      },
    },
    {
      name: "isoagent_list_approvals",
      description: "List the approvals a run waits for (calls to approve, interrupted side effects), each with the hash an answer must quote.",
      inputSchema: strict({ runId: RUN_ID }, ["runId"]),
      operator: false,
      annotations: READ,
      run: async (a) => ({ approvals: pendingApprovals(await backend.state(parseRunId(String(a["runId"])))) as unknown as JsonValue }),
    },
    {
      name: "isoagent_send_message",
      description:
        "Send a message to a conversation: it opens the next turn, which its agent then answers (read it with isoagent_get_run). Only between turns. The same id again is taken once; the same id with other text is refused.",
      inputSchema: strict(
        {
          runId: RUN_ID,
          id: { type: "string", pattern: ID_PATTERN_SOURCE, description: "Your id for the message" },
          text: { type: "string", minLength: 1, maxLength: 100_000 },
          metadata: { description: "Your own JSON about the message (never shown to the agent)" },
        },
        ["runId", "id", "text"],
      ),
      operator: false,
      // Each new message makes the agent act; sending one again changes nothing.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async (a, caller) => {
        const message = { id: String(a["id"]), text: String(a["text"]), ...(a["metadata"] === undefined ? {} : { metadata: a["metadata"] }) };
        const sent = await backend.send(parseRunId(String(a["runId"])), message, { by: caller.by ?? "user (MCP)" });
        return { seq: sent.seq, duplicate: sent.duplicate };
      },
    },
    {
      name: "isoagent_stop_turn",
      description: "Stop a conversation's turn in progress: its model call is aborted, a tool in flight interrupted, calls not started closed. The conversation stays open.",
      inputSchema: strict({ runId: RUN_ID }, ["runId"]),
      operator: false,
      // Interrupts what the turn was doing; stopping again changes nothing.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (a, caller) => ({ status: (await backend.stopTurn(parseRunId(String(a["runId"])), { by: caller.by ?? "user (MCP)" })).status }),
    },
    {
      name: "isoagent_regenerate",
      description: "Run a conversation's last turn again from its message: the agent answers anew (the effects of its first answer are not undone). Only between turns.",
      inputSchema: strict({ runId: RUN_ID }, ["runId"]),
      operator: false,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async (a, caller) => {
        await backend.regenerate(parseRunId(String(a["runId"])), { by: caller.by ?? "user (MCP)" });
        return { ok: true };
      },
    },
    {
      name: "isoagent_close_conversation",
      description: "Close a conversation between turns: it ends completed, its output its last answer.",
      inputSchema: strict({ runId: RUN_ID, reason: { type: "string", maxLength: 2000 } }, ["runId"]),
      operator: false,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (a, caller) => {
        await backend.close(parseRunId(String(a["runId"])), { by: caller.by ?? "user (MCP)", ...(a["reason"] === undefined ? {} : { reason: String(a["reason"]) }) });
        return { ok: true };
      },
    },
    {
      name: "isoagent_answer_approval",
      description: "Approve or deny a pending approval of a run, quoting its request hash. Needs an operator-scoped token.",
      inputSchema: strict(
        {
          runId: RUN_ID,
          approvalId: { type: "string", pattern: ID_PATTERN_SOURCE },
          decision: { enum: ["approve", "deny"] },
          requestHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
          reason: { type: "string", maxLength: 2000 },
          answer: { type: "string", maxLength: 20000, description: "A person's answer, for a call that wants one (ask_user)" },
        },
        ["runId", "approvalId", "decision", "requestHash"],
      ),
      operator: true,
      // An approval lets the call it approves act, whatever that call does and wherever it reaches; a denial ends
      // that call for good. The same answer again changes nothing (the approval is no longer pending).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      run: async (a, caller) => {
        const runId = parseRunId(String(a["runId"]));
        const approvalId = parseApprovalId(String(a["approvalId"]));
        const by = caller.by ?? "operator (MCP)";
        const reason = a["reason"] === undefined ? {} : { reason: String(a["reason"]) };
        if (a["decision"] === "approve")
          await backend.approve(runId, approvalId, { requestHash: String(a["requestHash"]), by, ...reason, ...(a["answer"] === undefined ? {} : { answer: String(a["answer"]) }) });
        else await backend.deny(runId, approvalId, { requestHash: String(a["requestHash"]), by, ...reason });
        return { ok: true };
      },
    },
    {
      name: "isoagent_cancel_run",
      description: "Cancel a run. Needs an operator-scoped token.",
      inputSchema: strict({ runId: RUN_ID, reason: { type: "string", maxLength: 2000 } }, ["runId"]),
      operator: true,
      // Ends the run for good; cancelling it again changes nothing (it is no longer active).
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async (a, caller) => {
        await backend.cancel(parseRunId(String(a["runId"])), { by: caller.by ?? "operator (MCP)", ...(a["reason"] === undefined ? {} : { reason: String(a["reason"]) }) });
        return { ok: true };
      },
    },
  ];
}

/** The model-facing refusal of an operator tool to a caller without the operator scope (pinned by the tests). */
export function operatorOnlyText(tool: string): string {
  return contract(
    `${tool} needs an operator-scoped token, and this caller holds only the run scope: it can create and read runs, never answer an approval.`,
    "Ask an operator to answer it (the console, or the API with an operator token).",
    "Do not retry with this token.",
  );
}

const compiled = new WeakMap<RunTool, CompiledSchema>();

/** Runs one run control tool: checks the caller's scope and the arguments; an isoagent error is the call's error text. */
export async function serveRunTool(t: RunTool, args: unknown, caller: McpCaller): Promise<{ ok: true; value: JsonValue } | { ok: false; text: string }> {
  if (t.operator && caller.scope !== "operator") return { ok: false, text: operatorOnlyText(t.name) };
  let schema = compiled.get(t);
  if (schema === undefined) compiled.set(t, (schema = compileSchema(t.inputSchema)));
  const verdict = schema.validate((args ?? {}) as JsonValue);
  if (!verdict.valid) {
    const issues = verdict.issues
      .slice(0, 5)
      .map((i) => `${i.instanceLocation || "/"}: ${i.message}`)
      .join("; ");
    return { ok: false, text: contract(`invalid arguments for ${t.name}: ${issues}`, `Call ${t.name} again with arguments that match its input schema.`, "If you cannot, stop and say why.") };
  }
  try {
    return { ok: true, value: await t.run((args ?? {}) as Record<string, JsonValue>, caller) };
  } catch (e) {
    if (isIsoagentError(e) && !isIsoagentError(e, "CRASH"))
      return { ok: false, text: contract(`${e.code}: ${e.message}`, "Read the run's state and approvals again before another answer.", "If it keeps failing, stop and report it.") };
    return { ok: false, text: contract(`${t.name} failed unexpectedly.`, "Try again once.", "If it fails again, stop and report it.") };
  }
}

export type { RunTool };
