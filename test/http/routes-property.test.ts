/**
 * Issue 26: random methods, paths, queries, headers and bodies sent to
 * every route of `createHttpApp` (a driver and a memory store, with moves,
 * MCP, run tokens and CORS) never get a 5xx, and every refusal carries a
 * code. Seeded (test/helpers/rng.ts): a failure names its seed and request.
 */
import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { createHttpApp, driverBackend, storeMoveBackend } from "../../src/http/index.js";
import { bundleText, exportRun } from "../../src/move/index.js";
import { artifactNames } from "../../src/move/format.js";
import { mcpRunsServer } from "../../src/mcp/index.js";
import { describeRequest, judge, randomRequest, type FuzzTarget } from "../helpers/http-fuzz.js";
import { rng } from "../helpers/rng.js";
import { SHAPES, driverOn } from "../move/helpers.js";

const TOKEN = "route-fuzz-operator-token-0123456789";
const RUN_TOKEN = "route-fuzz-run-token-0123456789";
const ORIGIN = "http://localhost";

async function setup() {
  const clock = manualClock();
  const store = memoryStore({ clock });
  const driver = driverOn(store, clock);
  const backend = driverBackend(driver, { onError: () => {}, move: (drive) => storeMoveBackend(store, { place: "edge", tools: SHAPES, onOwned: drive }) });
  const app = createHttpApp({ backend, tokens: () => [TOKEN], runTokens: () => [RUN_TOKEN], mcp: mcpRunsServer(backend), corsOrigins: ["https://app.example"], maxBodyBytes: 1024 * 1024, clock });
  // Runs for the real ids to land on: waiting with an approval and two artifacts, and one cancelled.
  const waiting = await driver.start("read a and b, write out.md");
  const other = await driver.start("another");
  await driver.cancel(other.runId, { by: "fuzz" });
  const artifacts = [...artifactNames(await driver.events(waiting.runId, 1)).keys()];
  expect(artifacts.length).toBe(2);
  const login = async (): Promise<string> => {
    const res = await app.request("/login", { method: "POST", headers: { "content-type": "application/json", origin: ORIGIN }, body: JSON.stringify({ token: TOKEN }) });
    return res.headers.get("set-cookie")!.split(";")[0]!;
  };
  const ended = await login();
  await app.request("/logout", { method: "POST", headers: { cookie: ended, origin: ORIGIN } });
  const target: FuzzTarget = {
    origin: ORIGIN,
    operatorToken: TOKEN,
    runToken: RUN_TOKEN,
    cookies: [await login(), await login(), ended],
    runIds: [waiting.runId, other.runId],
    approvalIds: waiting.approvals.map((a) => a.approvalId),
    requestHashes: waiting.approvals.map((a) => a.requestHash),
    artifacts,
    bundle: await bundleText(exportRun(store, waiting.runId)),
  };
  return { app, target };
}

describe("every route, random requests", () => {
  it("never answers 5xx, and every refusal has a code (3,000 requests over 6 seeds)", async () => {
    const problems: string[] = [];
    let refused = 0;
    let answered = 0;
    for (let seed = 1; seed <= 6; seed++) {
      // A fresh app per seed: what one seed's requests did (cancels, approvals, logouts) does not hide another's.
      const { app, target } = await setup();
      const r = rng(seed);
      for (let k = 0; k < 500; k++) {
        const req = randomRequest(r, target);
        let res: Response;
        try {
          res = await app.request(req.path, { method: req.method, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body as BodyInit }) });
        } catch (e) {
          problems.push(`seed ${seed} #${k}: threw ${e instanceof Error ? e.message : String(e)}: ${describeRequest(req)}`);
          continue;
        }
        if (res.status >= 400) refused++;
        else answered++;
        const problem = await judge(req, res);
        if (problem !== undefined) problems.push(`seed ${seed} #${k}: ${problem}\n  ${describeRequest(req)}`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    // Both sides were reached: the generator gets past authentication and the schemas as often as it is refused.
    expect(answered).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});
