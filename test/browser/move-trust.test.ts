/**
 * Authentic handovers in Chromium (issue 26): bundle keys of both
 * algorithms made, signed with and verified by the page's WebCrypto, and a
 * run handed into IndexedDB keeping its decisions only from a trusted key.
 */
import { deleteDB } from "idb";
import { describe, expect, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { generateBundleKey, localPlace, movable, moveRun, signingKey, toolShapes, trustedKeys } from "../../src/move/index.js";

const write = defineTool<{ path: string }>({
  name: "write",
  description: "Write.",
  inputSchema: strictObject({ path: string() }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 1000,
  call: () => "ok",
}) as Tool<never, unknown>;
const agent = () => scriptedAgent([calls(call("write", { path: "a" })), final("done")]);
const policy = rulesPolicy([{ tool: "write", permission: "ask" }]);

describe("bundle keys and handovers in Chromium", () => {
  for (const algorithm of ["Ed25519", "ECDSA-P256"] as const) {
    it(`${algorithm}: a move from a trusted place keeps its approval in IndexedDB; from another, it is asked again`, async () => {
      const pair = await generateBundleKey(`edge-${algorithm}`, algorithm);
      for (const trusted of [true, false]) {
        const source = movable(memoryStore());
        const driver = createDriver({ store: source, owner: "edge", agent: agent(), tools: [write], policy });
        const runId = (await driver.start("write")).runId;
        for (const a of Object.values((await driver.state(runId)).approvals)) await driver.approve(runId, a.approvalId, { requestHash: a.requestHash, by: "edge-operator" });
        const name = `move-trust-${algorithm}-${trusted}-${Date.now()}`;
        const tab = idbStore({ name });
        try {
          const keys = trusted ? { trusted: await trustedKeys([pair.publicJwk]) } : {};
          const moved = await moveRun(
            runId,
            localPlace(source, { name: "edge", tools: toolShapes([write]), keys: { signing: await signingKey(pair.privateJwk) } }),
            localPlace(tab, { name: "tab", tools: toolShapes([write]), keys }),
          );
          expect([trusted, moved.completed.reopened]).toEqual([trusted, trusted ? 0 : 1]);
          const here = createDriver({ store: tab, owner: "tab", agent: agent(), tools: [write], policy });
          expect([trusted, (await here.resume(runId)).status]).toEqual([trusted, trusted ? "completed" : "waiting"]);
        } finally {
          tab.close();
          await deleteDB(name);
        }
      }
    });
  }
});
