/**
 * The demos' scripted agent (the Worker's and the browser app's; a real model
 * replaces it when one is configured: see model.ts). It lists and reads the
 * notes with isoagent's workspace tools, asks to write a summary, and checks
 * it.
 */
import { call, calls, final, scriptedAgent, type Agent, type AgentView } from "../src/index.js";

/** The items of the to-do list, from what read_file showed (numbered lines under a header). */
function summaryOf(view: AgentView): string {
  const todo = view.transcript.find((t) => t.type === "observation" && t.name === "read_file");
  const shown = todo?.type === "observation" && todo.observation.type === "result" ? String(todo.observation.content) : "";
  const items = shown
    .split("\n")
    .slice(1)
    .map((l) => l.replace(/^\s*\d+\t/, ""))
    .filter((l) => l.startsWith("- "));
  return `# Summary\n\n${items.length} things to do:\n${items.join("\n")}\n`;
}

export function demoAgent(): Agent {
  return scriptedAgent([
    calls(call("list_files", { path: "notes" }), call("read_file", { path: "notes/todo.md" })),
    (view) => calls(call("write_file", { path: "notes/summary.md", content: summaryOf(view) })),
    calls(call("read_file", { path: "notes/summary.md" })),
    final({ summary: "notes/summary.md written and checked" }),
  ]);
}
