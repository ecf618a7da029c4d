/**
 * Issue 26, finding 2: bash ran far past its deadline, and the run could
 * not get out. `echo a | sed ':a; s/a/aa/; ba'` with timeoutMs 3000 ran for
 * 13.8 to 33 s with the event loop blocked (just-bash checks its deadline
 * between statements, and sed's branch loop is one statement); awk gsub
 * loops ran about 3x over; under leaseTtlMs 6000 the drive lost its lease
 * with no observation, for ever.
 *
 * In Node the interpreter now runs in a worker thread, terminated at the
 * deadline: the observation is bash's timeout (failure "timeout"), the
 * run keeps its lease, and a chain of timers armed before the call keeps
 * firing while it runs (the loop was never blocked). How far past the
 * timeout the observation comes is a bench figure (bench/bash-deadline.ts),
 * not an assertion here.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JournalEvent, type Tool } from "../../src/index.js";
import { type Observation } from "../../src/journal/index.js";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { bashTool, type BashRunner } from "../../src/toolkit/bash/index.js";
import { nodeWorkerRunner } from "../../adapters/bash-node/index.js";
import { nodeBashWorkerUrl } from "../helpers/bash-worker.js";

const TIMEOUT_TEXT =
  "Error: the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed\n[Next: Make it finish sooner: no endless loops, fewer files or smaller inputs per call.]\n[Recovery: If the work cannot be made smaller, stop and say so.]";

/** Counts the links of a chain of 20 ms timers, armed before `work` starts, that fire before it ends: a blocked loop fires none meanwhile. */
async function timersDuring<T>(work: () => Promise<T>): Promise<{ value: T; fired: number }> {
  let running = true;
  let fired = 0;
  const tick = (): void => {
    if (!running) return;
    fired++;
    setTimeout(tick, 20);
  };
  setTimeout(tick, 20);
  try {
    return { value: await work(), fired };
  } finally {
    running = false;
  }
}

/** One bash call through a driver; its observation and the drive's outcome. */
async function drive(runner: BashRunner, command: string, leaseTtlMs = 6000): Promise<{ observation: Observation | undefined; status: string; stopped: string | undefined }> {
  const bash = bashTool({ workspace: memoryWorkspace({ "a.txt": "x\n" }), requireApproval: false, timeoutMs: 3000, runner });
  const driver = createDriver({ store: memoryStore(), leaseTtlMs, tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
  const outcome = await driver.start("t");
  const finished = (await driver.events(outcome.runId)).find((e): e is Extract<JournalEvent, { type: "call.finished" }> => e.type === "call.finished");
  return { observation: finished?.observation, status: outcome.status, stopped: outcome.stopped };
}

const LONG = "a".repeat(130);

describe("finding 2: a bash call gets its observation at its deadline, whatever the command does (Node: a worker thread)", async () => {
  const runner = nodeWorkerRunner({
    url: await nodeBashWorkerUrl(),
    onUnavailable: (e) => {
      throw e;
    },
  });

  it.each([
    ["sed, a branch loop growing its buffer", "echo a | sed ':a; s/a/aa/; ba'"],
    ["sed, from a 130-character line", `echo ${LONG} | sed ':a; s/a/aa/; ba'`],
    ["awk, a gsub loop doubling a string", `awk 'BEGIN { s = "a"; while (1) gsub(/a/, "aa", s) }'`],
    ["bash, a loop whose body never waits", "echo changed > a.txt; while true; do :; done"],
  ])(
    '%s: failure "timeout" in bash\'s words, the lease kept under leaseTtlMs 6000, the event loop never blocked',
    async (_what, command) => {
      const { value, fired } = await timersDuring(() => drive(runner, command));
      expect(value.observation).toEqual({ type: "tool_error", failure: "timeout", error: TIMEOUT_TEXT });
      expect([value.status, value.stopped]).toEqual(["completed", undefined]);
      // The call lasts its deadline (2.4 s): unblocked, a 20 ms chain fires about a hundred times meanwhile; blocked, hardly ever.
      expect(fired).toBeGreaterThanOrEqual(10);
    },
    120_000,
  );

  it("after a command stopped at its deadline (its thread terminated), the next command runs in a new thread, and a finished command's thread is reused", async () => {
    const ws = memoryWorkspace({ "n.txt": "1\n" });
    let started = 0;
    const counting: BashRunner = { start: () => (started++, runner.start()), unavailable: runner.unavailable! };
    const bash = bashTool({ workspace: ws, requireApproval: false, timeoutMs: 3000, runner: counting });
    const run = async (command: string): Promise<Observation | undefined> => {
      const driver = createDriver({ store: memoryStore(), tools: [bash.tool as Tool<never, unknown>], agent: scriptedAgent([calls(call("bash", { command })), final("ok")]) });
      const o = await driver.start("t");
      return (await driver.events(o.runId)).find((e): e is Extract<JournalEvent, { type: "call.finished" }> => e.type === "call.finished")?.observation;
    };
    expect(await run("cat n.txt")).toMatchObject({ type: "result", content: expect.stringContaining("--- stdout ---\n1\n") });
    expect(await run("echo 2 > n.txt")).toMatchObject({ type: "result" });
    expect(started).toBe(1);
    // (A bash loop would stop itself between statements; sed's branch loop is one statement, so its thread is terminated.)
    expect(await run("echo 3 > n.txt; echo a | sed ':a; s/a/aa/; ba'")).toMatchObject({ failure: "timeout" });
    expect(await run("cat n.txt")).toMatchObject({ type: "result", content: expect.stringContaining("--- stdout ---\n2\n") });
    // The terminated thread was replaced once (in the background, right after it was stopped).
    expect(started).toBe(2);
  }, 120_000);

  it("a cancelled command (the driver's signal) ends at once with its thread, nothing committed", async () => {
    const ws = memoryWorkspace({ "a.txt": "x\n" });
    const bash = bashTool({ workspace: ws, requireApproval: false, timeoutMs: 30_000, runner });
    const controller = new AbortController();
    const driver = createDriver({
      store: memoryStore(),
      tools: [bash.tool as Tool<never, unknown>],
      agent: scriptedAgent([calls(call("bash", { command: "echo y > a.txt; echo a | sed ':a; s/a/aa/; ba'" })), final("ok")]),
    });
    setTimeout(() => controller.abort(), 500);
    const outcome = await driver.start("t", { signal: controller.signal });
    expect(outcome.stopped).toBe("signal");
    const finished = (await driver.events(outcome.runId)).find((e): e is Extract<JournalEvent, { type: "call.finished" }> => e.type === "call.finished");
    expect(finished?.observation).toMatchObject({ type: "interrupted" });
    expect(new TextDecoder().decode((await ws.read("a.txt"))!)).toBe("x\n");
  }, 120_000);
});
