/**
 * The run's own controls, as tools: task_complete ends the run with its
 * result; ask_user makes the run wait for a person's answer (journaled; the
 * HTTP API and the console can give it).
 */
import { array, strictObject, string } from "../schema/index.js";
import { asRuntimeControl } from "../tools/compile.js";
import { defineTool, ToolError, type Tool } from "../tools/index.js";
import type { JsonValue } from "../json/index.js";

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
