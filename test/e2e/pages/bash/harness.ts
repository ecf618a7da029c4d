/**
 * A page that runs bash over IndexedDB in Chromium, served with a CSP
 * without 'unsafe-eval': the shell's entry loads up front, just-bash in a
 * chunk of its own on the first command. It records every CSP violation
 * the page sees, and times the first command (the lazy load included) and
 * the next ones, beside just-bash alone over its own in-memory filesystem.
 */
import { idbWorkspace } from "../../../../adapters/idb/index.js";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type Tool } from "../../../../src/index.js";
import { bashTool } from "../../../../src/toolkit/bash/index.js";

declare global {
  interface Window {
    result?: Awaited<ReturnType<typeof run>>;
  }
}

const violations: string[] = [];
let seen: (() => void) | undefined;
document.addEventListener("securitypolicyviolation", (e) => {
  violations.push(`${e.violatedDirective}: ${e.blockedURI}`);
  seen?.();
});

/** Whether the page refuses eval, and that the listener sees the refusal (so that no violation later means none happened). */
async function probeEval(): Promise<{ refused: boolean; reported: string[] }> {
  const reported = new Promise<void>((r) => (seen = r));
  let refused = false;
  try {
    new Function("return 1")();
  } catch {
    refused = true;
  }
  if (refused) await reported;
  seen = undefined;
  return { refused, reported: violations.splice(0) };
}

/** The commands the test pins, run by the page itself (not from a test's evaluate, which CSP may not hold to). */
const COMMANDS = ["cat notes/a.md | wc -l; echo x > b.txt; ls", "p=/etc; echo x > $p/passwd", "while true; do sleep 0.05; done", "printf 'a\\tb\\n' | cut -f2 | tr a-z A-Z"];

/** Runs the commands through a driver over a fresh IndexedDB workspace: the results, the files after, the CSP violations seen, the eval probe, the first command's time. */
async function run(): Promise<{ texts: string[]; files: Record<string, string>; violations: string[]; evalProbe: { refused: boolean; reported: string[] }; firstMs: number }> {
  const evalProbe = await probeEval();
  const ws = idbWorkspace({ name: `bash-${crypto.randomUUID()}` });
  await ws.commit([{ path: "notes/a.md", bytes: new TextEncoder().encode("one\ntwo\n") }]);
  const bash = bashTool({ workspace: ws, requireApproval: false, timeoutMs: 3000 });
  const texts: string[] = [];
  let firstMs = 0;
  for (const command of COMMANDS) {
    const driver = createDriver({ store: memoryStore(), tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
    const started = performance.now();
    const outcome = await driver.start("t");
    if (texts.length === 0) firstMs = performance.now() - started;
    const ended = (await driver.events(outcome.runId)).find((e) => e.type === "call.finished" || e.type === "call.rejected") as { observation: { content?: string; error?: string } };
    texts.push(ended.observation.content ?? ended.observation.error ?? "");
  }
  const files: Record<string, string> = {};
  for (const f of await ws.list("")) files[f.path] = new TextDecoder().decode((await ws.read(f.path))!);
  // Violations are reported in a task of their own: let any pending one arrive.
  await new Promise((r) => setTimeout(r, 0));
  return { texts, files, violations: [...violations], evalProbe, firstMs };
}

document.body.dataset["ready"] = "yes";
run().then(
  (r) => {
    window.result = r;
    document.body.dataset["done"] = "yes";
  },
  (e: unknown) => {
    document.body.dataset["done"] = `failed: ${String(e)}`;
  },
);
