/**
 * `npm start`: the local demo of what exists so far, the gate every action
 * passes before it may run. It compiles two tools (and shows specs the driver
 * would refuse), then checks a series of tool calls as a model might send
 * them, printing what the runtime accepts and, for the rest, the exact
 * invalid_decision observation the model would be shown.
 *
 * (The durable driver, the stores and the Worker arrive with their issues;
 * this demo then becomes the run loop's.)
 */
import { isIsoagentError, type ToolSpec } from "../../src/index.js";
import { checkArgs, compileTool } from "../../src/tools/index.js";
import { readFile, writeFile } from "../tools.js";

const line = (s = ""): void => console.log(s);

line("isoagent: the gate a tool call passes before it runs");
line("=====================================================");
line();
for (const spec of [readFile, writeFile] as ToolSpec<never>[]) {
  const tool = compileTool(spec);
  line(`tool ${tool.name}: ${tool.sideEffect}, permission ${tool.permission}, timeout ${tool.timeoutMs} ms, evaluator ${tool.schema.evaluator}`);
}
line();
line("Specs the driver refuses, with the error it gives:");
const refused: [string, unknown][] = [
  ["a schema that refers outside itself", { ...writeFile, inputSchema: { $ref: "https://example.com/write.json" } }],
  ["a mutating tool that does not say its permission", { ...writeFile, permission: undefined }],
  ["a zero timeout", { ...readFile, timeoutMs: 0 }],
  ["a reserved name", { ...readFile, name: "task_complete" }],
];
for (const [what, spec] of refused) {
  try {
    compileTool(spec as ToolSpec);
    line(`  ${what}: accepted (unexpected)`);
  } catch (e) {
    if (!isIsoagentError(e)) throw e;
    line(`  ${what}:\n    ${e.code}: ${e.message}`);
  }
}
line();
line("Tool calls as a model sends them (raw argument text), and what the runtime does:");
const calls: [ToolSpec<never>, string][] = [
  [readFile as ToolSpec<never>, '{"path": "notes/todo.md", "limit": 50}'],
  [readFile as ToolSpec<never>, '{"path": "/etc/passwd", "limit": null}'],
  [writeFile as ToolSpec<never>, '{"path": "notes/todo.md", "content": "buy milk", "path": "../../.ssh/id_rsa"}'],
  [writeFile as ToolSpec<never>, '{"path": "notes/todo.md", "content": 42, "mode": "append"}'],
  [writeFile as ToolSpec<never>, "{'path': 'notes/todo.md'}"],
  [readFile as ToolSpec<never>, ""],
];
for (const [spec, raw] of calls) {
  line();
  line(`> ${spec.name}(${raw === "" ? "<empty>" : raw})`);
  const r = checkArgs(spec, raw);
  if (r.valid) {
    line(`  accepted: ${JSON.stringify(r.args)}`);
    const resources = spec.resources?.(r.args as never) ?? [];
    if (resources.length > 0) line(`  policy sees: ${resources.map((x) => `${x.kind} ${x.value}`).join(", ")}`);
  } else {
    line(`  refused (${r.failure}); the model is shown:`);
    for (const l of r.text.split("\n")) line(`    ${l}`);
  }
}
