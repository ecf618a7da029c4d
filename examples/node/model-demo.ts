/**
 * `npm run example:model`: the durable driver with a model agent, recorded
 * and replayed.
 *
 * - With OPENAI_API_KEY or ANTHROPIC_API_KEY set: the run talks to that
 *   model (ISOAGENT_MODEL picks it), and `--record <file>` saves the
 *   exchange as a recording.
 * - Without a key: the run is replayed from examples/recordings/ (or the file
 *   given with `--replay <file>`), with no network: the same requests, the
 *   same answers, the same journal.
 *
 * The write asks for approval; this demo approves it itself and says so.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { recordingAgent, replayAgent, type Recording } from "../../src/agents/record/index.js";
import { createDriver, memoryStore, type Agent, type JournalEvent, type RunOutcome, type Tool } from "../../src/index.js";
import { memoryWorkspace, workspaceTools, type Workspace } from "../../src/toolkit/index.js";
import { agentFor, describeAgent, modelFromEnv } from "../model.js";

export const TASK = "Summarise notes/todo.md into notes/summary.md";
export const RECORDING = "examples/recordings/openai-summarise-notes.json";

/** A fresh workspace, and isoagent's workspace tools over it. */
export function workspace(): { ws: Workspace; tools: Tool<never, unknown>[] } {
  const ws = memoryWorkspace({ "notes/todo.md": "- buy milk\n- call Ana\n- renew passport\n" });
  return { ws, tools: workspaceTools(ws).tools };
}

const line = (e: JournalEvent): string => {
  switch (e.type) {
    case "step.decided":
      return e.decision.kind === "final" ? `final ${JSON.stringify(e.decision.output)}` : e.decision.calls.map((c) => `${c.callId}: ${c.name} ${c.args}`).join("; ");
    case "call.finished":
      return `${e.callId}: ${e.observation.type}`;
    case "approval.requested":
      return `${e.approvalId}: ${e.request.tool} ${JSON.stringify(e.request.args)}`;
    case "approval.resolved":
      return `${e.decision} by ${e.by}`;
    default:
      return "";
  }
};

/** Drives the task to its end with `agent`, approving what it asks; prints the journal. */
export async function runDemo(agent: Agent, print: (s: string) => void = console.log): Promise<{ outcome: RunOutcome; summary: string | undefined }> {
  const { ws, tools } = workspace();
  const driver = createDriver({ agent, tools, store: memoryStore() });
  let outcome = await driver.start(TASK);
  while (outcome.status === "waiting") {
    for (const a of outcome.approvals) {
      print(`approving ${a.approvalId} (${a.request.tool} ${a.request.resources.map((r) => r.value).join(", ")}) as the demo's operator`);
      await driver.approve(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "model-demo" });
    }
    outcome = await driver.resume(outcome.runId);
  }
  for (const e of await driver.events(outcome.runId)) print(`${String(e.seq).padStart(3)} ${e.type.padEnd(18)} ${line(e)}`);
  print(`=> ${outcome.status}${outcome.output === undefined ? "" : `: ${JSON.stringify(outcome.output)}`}${outcome.failure === undefined ? "" : `: ${outcome.failure.detail}`}`);
  const bytes = await ws.read("notes/summary.md");
  return { outcome, summary: bytes === undefined ? undefined : new TextDecoder().decode(bytes) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = (name: string): string | undefined => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const choice = modelFromEnv(process.env);
  if (choice !== undefined) {
    console.log(`agent: ${describeAgent(choice, "")} (live)`);
    const agent = recordingAgent(agentFor(choice));
    const { outcome } = await runDemo(agent);
    const out = arg("record");
    if (out !== undefined) {
      writeFileSync(out, `${JSON.stringify(agent.recording, null, 2)}\n`);
      console.log(`recorded ${agent.recording.exchanges.length} exchanges to ${out}`);
    }
    process.exit(outcome.status === "completed" ? 0 : 1);
  }
  const file = arg("replay") ?? RECORDING;
  const recording = JSON.parse(readFileSync(file, "utf8")) as Recording;
  const model = recording.agent as { provider: string; model: string };
  console.log(`agent: ${model.provider} ${model.model}, replayed from ${file} with no network (set OPENAI_API_KEY or ANTHROPIC_API_KEY to run it live)`);
  const { outcome, summary } = await runDemo(replayAgent(recording));
  console.log(`notes/summary.md:\n${summary ?? "(not written)"}`);
  process.exit(outcome.status === "completed" ? 0 : 1);
}
