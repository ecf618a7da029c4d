/**
 * The run's own controls, as tools: task_complete ends the run with its
 * result; ask_user makes the run wait for a person's answer (journaled; the
 * HTTP API and the console can give it).
 */
import { array, integer, strictObject, string } from "../schema/index.js";
import { asRuntimeControl } from "../tools/compile.js";
import { defineTool, ToolError, type Tool } from "../tools/index.js";
import type { JsonValue } from "../json/index.js";
import { count, decodeText } from "./text.js";

/**
 * task_complete: the agent says the task is done. Its success completes the
 * run with `{ summary }` (and `result` when given) as the output.
 */
export function taskCompleteTool(): Tool<{ summary: string; result?: JsonValue }, JsonValue> {
  return asRuntimeControl(
    defineTool<{ summary: string; result?: JsonValue }, JsonValue>({
      name: "task_complete",
      description: "Say the task is done, with a short summary of what was done; the run ends.",
      inputSchema: strictObject({ summary: string("What was done, in one or two sentences", { minLength: 1 }), result: true as never }, ["summary"]),
      sideEffect: "read_only",
      terminal: true,
      timeoutMs: 1000,
      prompt: {
        snippet: "task_complete ends the run: call it once the task is done, and only then.",
        guidelines: ["Check your work before you call it; nothing runs after it."],
      },
      activity: (a) => `Done: ${a.summary.length > 120 ? `${a.summary.slice(0, 120)}…` : a.summary}`,
      call: (a) => (a.result === undefined ? { summary: a.summary } : { summary: a.summary, result: a.result }),
    }),
  );
}

/**
 * ask_user: the agent asks the person it works for; the run waits (an
 * approval request that wants an answer) until someone answers, and the
 * answer comes back as the result. Denying it tells the agent the person
 * declined to answer.
 */
export function askUserTool(): Tool<{ question: string; choices?: string[] }, string> {
  return asRuntimeControl(
    defineTool<{ question: string; choices?: string[] }, string>({
      name: "ask_user",
      description: "Ask the person you work for a question and wait for the answer. Use it only when you cannot go on without their decision.",
      inputSchema: strictObject(
        {
          question: string("The question, complete and clear on its own", { minLength: 1, maxLength: 2000 }),
          choices: array(string(undefined, { minLength: 1, maxLength: 200 }), "Answers to offer, when the question has a few", { minItems: 2, maxItems: 10 }),
        },
        ["question"],
      ),
      sideEffect: "read_only",
      permission: "ask",
      wantsAnswer: true,
      timeoutMs: 1000,
      resources: () => [{ kind: "person", value: "user" }],
      prompt: {
        snippet: "ask_user asks the person you work for and waits for the answer.",
        guidelines: ["Ask one clear question at a time.", "Do not ask what the tools can tell you."],
      },
      activity: (a) => `Ask: ${a.question.length > 120 ? `${a.question.slice(0, 120)}…` : a.question}`,
      call: (_a, ctx) => {
        if (ctx.answer === undefined) throw new ToolError("no answer was given", { next: "Ask again, or go on without it if you can." });
        return `${ctx.answer.by} answered: ${ctx.answer.text}`;
      },
    }),
  );
}

/** Bytes read_artifact shows per call, at most (whole characters). */
export const ARTIFACT_READ_MAX_BYTES = 32 * 1024;

/**
 * read_artifact: the model reads back an output that was cut or elided (to
 * stay within the visible cap or the context budget), by the SHA-256 the
 * notice named, a range at a time. It serves only artifacts this run's
 * journal names (the artifact store is shared between runs).
 */
export function readArtifactTool(): Tool<{ sha256: string; offset?: number; limit?: number }, string> {
  return asRuntimeControl(
    defineTool<{ sha256: string; offset?: number; limit?: number }, string>({
      name: "read_artifact",
      description: `Read back an output that was cut or elided, by the sha256 its notice names. At most ${count(ARTIFACT_READ_MAX_BYTES, "byte")} per call; offset picks where to start.`,
      inputSchema: strictObject(
        {
          sha256: string("The artifact's SHA-256, as the notice names it (64 hex digits)", { pattern: "^[0-9a-f]{64}$" }),
          offset: integer("The first byte to show, from 0 (default 0)", { minimum: 0 }),
          limit: integer(`How many bytes to show, at most ${ARTIFACT_READ_MAX_BYTES} (default that)`, { minimum: 1, maximum: ARTIFACT_READ_MAX_BYTES }),
        },
        ["sha256"],
      ),
      sideEffect: "read_only",
      parallelSafe: true,
      timeoutMs: 10_000,
      prompt: { snippet: "read_artifact reads back an output a notice says was cut or elided, by its sha256." },
      activity: (a) => `Read artifact ${a.sha256.slice(0, 12)}…${a.offset === undefined || a.offset === 0 ? "" : ` from byte ${a.offset}`}`,
      call: async (a, ctx) => {
        const bytes = await ctx.readArtifact(a.sha256);
        if (bytes === undefined) {
          throw new ToolError(`no artifact sha256:${a.sha256} belongs to this run`, {
            next: "Copy the sha256 exactly from the notice that named it.",
            recovery: "If no notice named it, the output is not available: go on without it.",
          });
        }
        const from = a.offset ?? 0;
        if (from > bytes.length)
          throw new ToolError(`offset ${from} is past the end of the artifact (${bytes.length} bytes)`, { next: `Call read_artifact with an offset from 0 to ${bytes.length}.` });
        const want = Math.min(a.limit ?? ARTIFACT_READ_MAX_BYTES, ARTIFACT_READ_MAX_BYTES);
        // Whole characters: a range never starts or ends inside a UTF-8 sequence.
        let start = from;
        while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
        let end = Math.min(bytes.length, start + want);
        while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
        const text = decodeText(bytes.subarray(start, end)).text;
        const more = end < bytes.length ? ` To read on, call read_artifact with offset ${end}.` : "";
        return `${text}\n[Bytes ${start}-${end} of ${bytes.length} shown.${more}]`;
      },
    }),
  );
}
