// docs/moves.md's "Trust" example, as a reader would copy it: moves.test.ts
// checks that docs/moves.md shows this code verbatim (with "isoagent" and
// "isoagent/move" for the import paths) and runs it; tsc type-checks it.
// DOCS: begin
import { call, calls, createDriver, defineTool, final, memoryStore, rulesPolicy, scriptedAgent, strictObject, string, type Driver, type RunId } from "../../src/index.js";
import { pendingApprovals } from "../../src/journal/index.js";
import { generateBundleKey, localPlace, moveRun, placeKeys, toolShapes, type PlaceKeys } from "../../src/move/index.js";

const written: string[] = [];
const writeFile = defineTool({
  name: "write_file",
  description: "Write a text file.",
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }),
  call: async (args) => (written.push(args.path), { written: args.content.length }),
});
const tools = [writeFile];

// A key per place that vouches for its runs: the private JWK stays where the place runs (a secret),
// its public half goes to the places that trust it. Nobody trusts the tab; the office trusts the edge.
const edgeKey = await generateBundleKey("edge-2026"); // Ed25519; "ECDSA-P256" for older browsers
const keys: Record<"tab" | "edge" | "office", PlaceKeys> = {
  tab: {},
  edge: await placeKeys({ signingKey: edgeKey.privateJwk }), // or its JSON text, e.g. env.ISOAGENT_SIGNING_KEY
  office: await placeKeys({ trustedKeys: [edgeKey.publicJwk] }),
};
const place = (name: "tab" | "edge" | "office") => {
  const store = memoryStore();
  const driver = createDriver({
    store,
    owner: name,
    tools,
    agent: scriptedAgent([calls(call("write_file", { path: "notes.md", content: "hi" })), final("done")]),
    policy: rulesPolicy([{ tool: "write_file", permission: "ask" }]),
  });
  return { driver, place: localPlace(store, { name, tools: toolShapes(tools), keys: keys[name] }) };
};
const tab = place("tab"),
  edge = place("edge"),
  office = place("office");
const approveAll = async (d: Driver, runId: RunId, by: string) => {
  for (const a of pendingApprovals(await d.state(runId))) await d.approve(runId, a.approvalId, { requestHash: a.requestHash, by });
};

// The tab's user approves the write, then continues in the cloud.
const { runId } = await tab.driver.start("write notes.md");
await approveAll(tab.driver, runId, "tab-user");
const toEdge = await moveRun(runId, tab.place, edge.place);
// toEdge.completed.reopened === 1: the edge takes no decision from the tab; the write is asked again, of the edge's operator
const atEdge = await edge.driver.resume(runId); // "waiting"
await approveAll(edge.driver, runId, "edge-operator");
// Moved on before the edge ran it: the office trusts the edge's key, so the edge's approval stands there.
const toOffice = await moveRun(runId, edge.place, office.place); // toOffice.completed.reopened === 0
const done = await office.driver.resume(runId); // "completed": the write ran once, at the office
// DOCS: end

export const results = { reopenedAtEdge: toEdge.completed.reopened, atEdge: atEdge.status, reopenedAtOffice: toOffice.completed.reopened, done: done.status, written };
