import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type Tool } from "../../src/index.js";
import { bashTool } from "../../src/toolkit/bash/index.js";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { bashCases } from "./bash-cases.js";
import { nodeWorkerRunner } from "../../adapters/bash-node/index.js";
import { nodeBashWorkerUrl } from "../helpers/bash-worker.js";

describe("bash on the memory workspace", () => {
  bashCases({ name: "memory", make: async () => memoryWorkspace() }, (name, fn) => it(name, fn, 60_000));
});

describe("bash on the memory workspace, its interpreter in a worker thread", async () => {
  const runner = nodeWorkerRunner({
    url: await nodeBashWorkerUrl(),
    onUnavailable: (e) => {
      throw e;
    },
  });
  bashCases({ name: "memory, worker thread", make: async () => memoryWorkspace() }, (name, fn) => it(name, fn, 60_000), { options: { runner }, inThread: false });
});

describe("bash's artifacts by default", () => {
  it("keeps a cut stream in the run's own store through ctx.putArtifact, redacted like every artifact", async () => {
    const store = memoryStore();
    const bash = bashTool({ workspace: memoryWorkspace(), requireApproval: false, maxLines: 2 });
    const driver = createDriver({
      store,
      tools: [bash.tool as Tool<never, unknown>],
      agent: scriptedAgent([calls(call("bash", { command: "echo sk-secret-1; seq 5" })), final("done")]),
      secrets: ["sk-secret-1"],
    });
    const outcome = await driver.start("t");
    expect(outcome.status).toBe("completed");
    const finished = (await driver.events(outcome.runId)).find((e) => e.type === "call.finished");
    const text = finished?.type === "call.finished" && finished.observation.type === "result" ? String(finished.observation.content) : "";
    const sha = /the full stdout is artifact sha256:([0-9a-f]{64})/.exec(text)?.[1];
    expect(sha).toBeDefined();
    expect(new TextDecoder().decode((await store.getArtifact(sha!)) ?? undefined)).toBe("[REDACTED]\n1\n2\n3\n4\n5\n");
  });
});
