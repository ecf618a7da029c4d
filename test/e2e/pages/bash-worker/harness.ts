/**
 * A page that runs bash as a browser app does: isoagent/toolkit/bash as
 * browsers resolve it (adapters/bash-web/entry.ts), whose interpreter runs
 * in a module Web Worker (bash-worker.js beside the page's chunks, as the
 * test builds it) over IndexedDB, under a CSP without 'unsafe-eval'.
 * Commands are run by the page itself; a chain of timers armed before each
 * call counts how often the page's event loop ran during it. Without the
 * worker's script (the second folder the test serves), the shell falls back
 * to the page's thread and says so once (console.warn).
 */
import { idbWorkspace } from "../../../../adapters/idb/index.js";
import { bashTool } from "../../../../adapters/bash-web/entry.js";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type Tool } from "../../../../src/index.js";

const violations: string[] = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI}`));
const warnings: string[] = [];
const warn = console.warn.bind(console);
console.warn = (...a: unknown[]) => {
  warnings.push(a.map(String).join(" "));
  warn(...a);
};

const COMMANDS = [
  "cat notes/a.md | wc -l; echo x > b.txt; ls",
  "p=/etc; echo x > $p/passwd",
  `echo ${"a".repeat(130)} | sed ':a; s/a/aa/; ba'`,
  "echo changed > notes/a.md; while true; do :; done",
  "printf 'a\\tb\\n' | cut -f2 | tr a-z A-Z",
];

async function run(): Promise<{
  outcomes: { observation: unknown; fired: number; status: string; stopped: string | undefined }[];
  files: Record<string, string>;
  violations: string[];
  warnings: string[];
  workers: boolean;
}> {
  const ws = idbWorkspace({ name: `bash-worker-${crypto.randomUUID()}` });
  await ws.commit([{ path: "notes/a.md", bytes: new TextEncoder().encode("one\ntwo\n") }]);
  const bash = bashTool({ workspace: ws, requireApproval: false, timeoutMs: 3000 });
  const outcomes = [];
  for (const command of COMMANDS) {
    const driver = createDriver({ store: memoryStore(), leaseTtlMs: 6000, tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
    let running = true;
    let fired = 0;
    const tick = (): void => {
      if (!running) return;
      fired++;
      setTimeout(tick, 20);
    };
    setTimeout(tick, 20);
    const outcome = await driver.start("t");
    running = false;
    const ended = (await driver.events(outcome.runId)).find((e) => e.type === "call.finished") as { observation: unknown } | undefined;
    outcomes.push({ observation: ended?.observation, fired, status: outcome.status, stopped: outcome.stopped });
  }
  const files: Record<string, string> = {};
  for (const f of await ws.list("")) files[f.path] = new TextDecoder().decode((await ws.read(f.path))!);
  await new Promise((r) => setTimeout(r, 0));
  return { outcomes, files, violations: [...violations], warnings: [...warnings], workers: typeof Worker === "function" };
}

document.body.dataset["ready"] = "yes";
run().then(
  (r) => {
    (window as unknown as { result: typeof r }).result = r;
    document.body.dataset["done"] = "yes";
  },
  (e: unknown) => {
    document.body.dataset["done"] = `failed: ${String(e)}`;
  },
);
