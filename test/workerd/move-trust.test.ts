/**
 * Authentic handovers on Durable Objects (issue 26): a run object keeps the
 * decisions of a run moved into it only when a key the deployment trusts
 * (ISOAGENT_TRUSTED_KEYS) vouched for it up to its seal, and signs its own
 * exports with ISOAGENT_SIGNING_KEY. WebCrypto on both sides: the keys are
 * made and used in Node, and verified and used in workerd, Ed25519 and
 * ECDSA P-256 alike.
 */
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDriver, memoryStore, rulesPolicy, type RunId } from "../../src/index.js";
import {
  bundleText,
  exportRun,
  generateBundleKey,
  httpPlace,
  localPlace,
  movable,
  moveRun,
  signingKey,
  toolShapes,
  trustedKeys,
  type BundleJwk,
  type HttpFetch,
  type PlaceKeys,
} from "../../src/move/index.js";
import { listScenario } from "../../src/testkit/index.js";
import { until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";

const TOKEN = "workerd-trust-token-0123456789";
const OBJECTS = {
  ...RUN_OBJECTS.durableObjects,
  WORLD: { className: "World", useSQLite: true },
  WORKSPACES: { className: "WorkspaceObject", useSQLite: true },
  SQL_PROBE: { className: "SqlProbe", useSQLite: true },
};
let mf: Miniflare;
let misconfigured: Miniflare;
let tabKey: { privateJwk: BundleJwk; publicJwk: BundleJwk };
let edgeKey: { privateJwk: BundleJwk; publicJwk: BundleJwk };

beforeAll(async () => {
  tabKey = await generateBundleKey("tab-key", "ECDSA-P256");
  edgeKey = await generateBundleKey("edge-key");
  mf = await startWorker("test/workerd/workers/do-entry.ts", {
    durableObjects: OBJECTS,
    bindings: { ISOAGENT_TOKEN: TOKEN, ISOAGENT_SIGNING_KEY: JSON.stringify(edgeKey.privateJwk), ISOAGENT_TRUSTED_KEYS: JSON.stringify([tabKey.publicJwk]) },
  });
  misconfigured = await startWorker("test/workerd/workers/do-entry.ts", { durableObjects: OBJECTS, bindings: { ISOAGENT_TOKEN: TOKEN, ISOAGENT_TRUSTED_KEYS: JSON.stringify([edgeKey.privateJwk]) } });
});
afterAll(async () => {
  await mf?.dispose();
  await misconfigured?.dispose();
});

const api = async (m: Miniflare, path: string) => (await (await m.dispatchFetch(`http://localhost${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as any;
let ids = 0;
const newId = (what: string): RunId => `trust_${what}_${++ids}_${Date.now().toString(36)}` as RunId;

/** A tab in this process with the scenario's tool, signing with `keys` when given. */
function tab(keys?: PlaceKeys) {
  const tools = listScenario("read_only").setup().tools;
  const store = movable(memoryStore());
  const driver = createDriver({ store, owner: "node-driver", agent: listScenario("read_only").agent(), tools, policy: rulesPolicy([{ tool: "add_item", permission: "ask" }]) });
  return { store, driver, place: localPlace(store, { name: "tab:node", tools: toolShapes(tools), ...(keys === undefined ? {} : { keys }) }) };
}
const edge = (m: Miniflare) => httpPlace({ url: "http://localhost", name: "edge", token: TOKEN, fetch: ((url, init) => m.dispatchFetch(url, init as never)) as HttpFetch });

describe("a run moved into a Durable Object whose deployment trusts the tab's key", () => {
  it("keeps the tab's pending ask (the same approval), and the object's export of it is signed by the deployment's key, which a tab that trusts it keeps", async () => {
    const t = tab({ signing: await signingKey(tabKey.privateJwk) });
    const runId = newId("trusted");
    await t.driver.start("ask read_only", { runId });
    const [asked] = Object.values((await t.driver.state(runId)).approvals);
    const moved = await moveRun(runId, t.place, edge(mf));
    expect(moved.completed.reopened).toBe(0);
    const run = (await api(mf, `/runs/${runId}`)).run;
    expect([run.status, run.approvals.map((a: { approvalId: string }) => a.approvalId)]).toEqual(["waiting", [asked!.approvalId]]);
    // Back to a tab that trusts the deployment's key: the ask the tab made is still the one pending, asked nowhere again.
    const back = tab({ trusted: await trustedKeys([edgeKey.publicJwk]) });
    const home = await moveRun(runId, edge(mf), back.place);
    expect(home.completed.reopened).toBe(0);
    const text = await (await mf.dispatchFetch(`http://localhost/runs/${runId}/export`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const end = JSON.parse(text.trim().split("\n").at(-1)!) as { end: { signature?: { kid: string; seq: number } } };
    expect(end.end.signature).toMatchObject({ kid: "edge-key", seq: home.seq });
    expect(
      Object.values((await back.driver.state(runId)).approvals)
        .filter((a) => a.status === "pending")
        .map((a) => a.approvalId),
    ).toEqual([asked!.approvalId]);
  });

  it("a tab whose key it does not trust, or whose signature by a trusted kid does not verify: asked again, or refused with nothing written", async () => {
    const stranger = await generateBundleKey("stranger");
    const t = tab({ signing: await signingKey(stranger.privateJwk) });
    const runId = newId("untrusted");
    await t.driver.start("ask read_only", { runId });
    expect((await moveRun(runId, t.place, edge(mf))).completed.reopened).toBe(1);
    await until(`run ${runId} to be asked again at the edge`, async () => (await api(mf, `/runs/${runId}`)).run.status === "waiting");
    const [again] = (await api(mf, `/runs/${runId}`)).run.approvals;
    expect(again.request.note).toBe(
      'the run came from "tab:node", which "edge" does not trust to decide for it (no key it trusts vouched for the run up to its move here): this call is decided here again',
    );
    // An impostor: the tab's kid, another key's signature.
    const other = newId("impostor");
    const u = tab({ signing: await signingKey({ ...stranger.privateJwk, kid: "tab-key" }) });
    await u.driver.start("ask read_only", { runId: other });
    const res = await mf.dispatchFetch("http://localhost/runs/import", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" },
      body: await bundleText(exportRun(u.store, other, { signing: await signingKey({ ...stranger.privateJwk, kid: "tab-key" }) })),
    });
    expect([res.status, ((await res.json()) as any).error]).toEqual([
      400,
      { code: "BUNDLE_SIGNATURE_INVALID", message: "the bundle's signature by key tab-key, which this place trusts, does not verify: the bundle was changed after it was signed; nothing was written" },
    ]);
    expect((await mf.dispatchFetch(`http://localhost/runs/${other}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
  });
});

describe("a deployment whose keys are wrong", () => {
  it("refuses every import with BUNDLE_KEY_INVALID (500: its configuration, not the request), saying which key and why", async () => {
    const t = tab();
    const runId = newId("misconfigured");
    await t.driver.start("ask read_only", { runId });
    const res = await misconfigured.dispatchFetch("http://localhost/runs/import", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" },
      body: await bundleText(exportRun(t.store, runId)),
    });
    expect([res.status, ((await res.json()) as any).error]).toEqual([
      500,
      { code: "BUNDLE_KEY_INVALID", message: "trusted key 1 (kid edge-key) holds a private key (d): a place trusts another by its public key only" },
    ]);
  });
});
