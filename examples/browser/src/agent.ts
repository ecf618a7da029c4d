/**
 * The example's scripted agent (it works offline; a real model can be
 * chosen on the page). It reads the notes, asks to write a summary, and
 * checks it.
 */
import { call, calls, final, scriptedAgent, type Agent, type AgentView } from "../../../src/index.js";

function summaryOf(view: AgentView): string {
  const todo = view.transcript.find((t) => t.type === "observation" && t.name === "read_file");
  const text = todo?.type === "observation" && todo.observation.type === "result" ? String(todo.observation.content) : "";
  const items = text.split("\n").filter((l) => l.startsWith("- "));
  return `# Summary\n\n${items.length} things to do:\n${items.join("\n")}\n`;
}

export function notesAgent(): Agent {
  return scriptedAgent([
    calls(call("list_files", { folder: "notes" }), call("read_file", { path: "notes/todo.md" })),
    (view) => calls(call("write_file", { path: "notes/summary.md", content: summaryOf(view) })),
    calls(call("read_file", { path: "notes/summary.md" })),
    final({ summary: "notes/summary.md written and checked" }),
  ]);
}
