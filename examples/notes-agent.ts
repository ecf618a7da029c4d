/**
 * The demos' scripted agent (the Worker's and the browser app's; a real
 * model replaces it when one is configured: see model.ts). It behaves like
 * an agent, not a tape: it reads its task, and it reacts to what it is
 * shown. Asked to summarise notes/todo.md, it lists and reads the notes,
 * asks to write notes/summary.md, and checks what it wrote; when the write
 * is declined (or fails), it says what it could not do and ends without
 * claiming it. A task it does not know, it says so. In a conversation,
 * each message is a task of its own.
 */
import { call, calls, final, type Agent, type AgentDecision, type AgentView, type TranscriptItem } from "../src/index.js";

/** What the demo agent knows how to do. */
export const DEMO_TASK = "Summarise notes/todo.md into notes/summary.md";

type Observed = Extract<TranscriptItem, { type: "observation" }>;

/** The items of the to-do list, from what read_file showed (numbered lines under a header). */
function summaryOf(todo: Observed | undefined): string {
  const shown = todo?.observation.type === "result" ? String(todo.observation.content) : "";
  const items = shown
    .split("\n")
    .slice(1)
    .map((l) => l.replace(/^\s*\d+\t/, ""))
    .filter((l) => l.startsWith("- "));
  return `# Summary\n\n${items.length} things to do:\n${items.join("\n")}\n`;
}

/** The observations of the calls the agent made for a tool, latest last. */
const observed = (view: AgentView, tool: string): Observed[] => view.transcript.filter((t): t is Observed => t.type === "observation" && t.name === tool);

/** Whether the task asks for the one thing this agent knows. */
function knows(task: unknown): boolean {
  const text = (typeof task === "string" ? task : JSON.stringify(task)).toLowerCase();
  return text.includes("summar") && text.includes("todo");
}

/**
 * In a conversation, the user's last message is the task, and what the
 * agent has seen of it is what came after it (the turn).
 */
function turnOf(view: AgentView): AgentView {
  let last = -1;
  for (let k = 0; k < view.transcript.length; k++) if (view.transcript[k]!.type === "user") last = k;
  if (last < 0) return view;
  const message = view.transcript[last] as Extract<TranscriptItem, { type: "user" }>;
  return { ...view, task: message.text, transcript: view.transcript.slice(last + 1) };
}

/** The next decision, from the task (or the last message) and what the agent has seen so far. */
function next(whole: AgentView): AgentDecision {
  const view = turnOf(whole);
  if (!knows(view.task)) {
    return final({ done: false, summary: `The demo agent only knows one task ("${DEMO_TASK}"), so it did nothing for: ${typeof view.task === "string" ? view.task : JSON.stringify(view.task)}` });
  }
  const reads = observed(view, "read_file");
  const writes = observed(view, "write_file");
  if (reads.length === 0) return calls(call("list_files", { path: "notes" }), call("read_file", { path: "notes/todo.md" }));
  const todo = reads[0]!;
  if (todo.observation.type !== "result") return final({ done: false, summary: "notes/todo.md could not be read, so there is nothing to summarise" });
  if (writes.length === 0) return calls(call("write_file", { path: "notes/summary.md", content: summaryOf(todo) }));
  const written = writes[writes.length - 1]!.observation;
  if (written.type === "denied") return final({ done: false, summary: "notes/summary.md was not written: the write was declined" });
  if (written.type !== "result") return final({ done: false, summary: "notes/summary.md was not written: the write failed" });
  if (reads.length === 1) return calls(call("read_file", { path: "notes/summary.md" }));
  const check = reads[reads.length - 1]!.observation;
  return check.type === "result" && String(check.content).includes("things to do")
    ? final({ done: true, summary: "notes/summary.md written and checked" })
    : final({ done: false, summary: "notes/summary.md was written, but reading it back did not show the summary" });
}

export function demoAgent(): Agent {
  return { decide: async (view) => next(view) };
}
