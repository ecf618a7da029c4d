/**
 * One run, many places, end to end: the browser example served by `npm
 * start`'s Worker (workerd), in Chromium. A run started in the tab moves to
 * the Worker ("Continue in the cloud"), is approved in the console, and
 * comes back ("Take offline"); a tab killed with SIGKILL in the middle of a
 * move (before its seal, and after it) comes back on its profile and
 * settles the move, and the run ends with one owner.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, chromiumPresent } from "../helpers/chromium.js";
import { consoleLogin, launch, loginLink, overflowing } from "../helpers/pages.js";
import { processesRunning } from "../helpers/processes.js";
import { scaled, until } from "../helpers/time.js";
import { startGroup, type Group } from "../kill/harness.js";

const present = chromiumPresent();
const ARTIFACTS = "test-results";
let worker: Group | undefined;
let base = "";
let token = "";
let data = "";
const groups: Group[] = [];

beforeAll(async () => {
  if (!present) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  data = mkdtempSync(join(tmpdir(), "isoagent-move-e2e-"));
  const started = await startGroup(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--port", "0", "--data", data],
    /console:\s+(http:\/\/\S+)\/login#code=[\s\S]*?token:\s+(\S+) \(kept/,
    { timeoutMs: scaled(120_000) },
  );
  worker = started.group;
  base = started.match[1]!;
  token = started.match[2]!;
}, scaled(150_000));

afterAll(async () => {
  for (const g of groups) await g.kill();
  await worker?.kill();
  if (data !== "") rmSync(data, { recursive: true, force: true });
});

const api = async (path: string, init: { method?: string; body?: unknown } = {}): Promise<any> => {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, ...((await res.json()) as object) };
};

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
}

/** Starts the demo run in the tab and waits for its approval (the write it asks for). */
async function startWaitingRun(page: Page): Promise<string> {
  await page.click("#start");
  await page.locator(".approval").waitFor();
  const runId = await page.locator("#run-title").textContent();
  return runId!.split(":")[0]!;
}

describe.skipIf(!present)("the browser example served by npm start's Worker, in Chromium", () => {
  it("continues a run in the cloud, approves it in the console, takes it back offline; mirrors runs meanwhile; works offline after", async () => {
    const browser = await launch();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      const operator = await context.newPage();
      await consoleLogin(operator, base, token);
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${base}/app/?writeDelayMs=100`);
      await ready(page);
      // Served by the Worker, under its CSP, with the edge in reach.
      const csp = await page.evaluate(async () => (await fetch(location.href)).headers.get("content-security-policy"));
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-eval");
      await page.locator("#edge").waitFor();

      const runId = await startWaitingRun(page);
      // Mirrored to the edge as it grows: read-only there, listed as a mirror.
      await until(`run ${runId} to be mirrored`, async () => (await api(`/runs/${runId}`)).run?.custody?.role === "mirror");
      const listed = (await api("/runs")).runs.find((r: { runId: string }) => r.runId === runId);
      expect(listed.custody.role).toBe("mirror");

      // Continue in the cloud.
      await page.click("#continue");
      await page.waitForSelector(`body[data-moved="${runId}"]`, { state: "attached" });
      // The Worker trusts no tab's key: the write the tab asked about is asked again, of the Worker's operator, and the page says so.
      await until(`run ${runId} to wait at the edge`, async () => (await api(`/runs/${runId}`)).run.status === "waiting");
      const atEdge = (await api(`/runs/${runId}`)).run;
      expect([atEdge.status, atEdge.custody]).toEqual(["waiting", null]);
      expect(atEdge.approvals.map((a: { request: { note?: string } }) => a.request.note)).toEqual([
        expect.stringMatching(/^the run came from "tab:[0-9a-f]{8}", which "edge" does not trust to decide for it/),
      ]);
      await page.waitForFunction(
        (id) => document.getElementById("edge-note")!.textContent!.includes(`${id} continues at the edge, whose operator decides again the call approved or asked about here`),
        runId,
      );
      await page.waitForSelector(`#runs li[data-run="${runId}"][data-custody="moved"]`);
      // The tab's copy asks nothing more: its approval is answered where the run is now.
      await page.waitForFunction(() => document.getElementById("run")!.dataset["custody"] === "moved" && document.querySelectorAll("#approvals .approval").length === 0);
      await page.screenshot({ path: `${ARTIFACTS}/move-continued-in-the-cloud.png`, fullPage: true });

      // Approved in the console: the Worker drives it to the end.
      await operator.goto(`${base}/`);
      await operator.waitForSelector("body[data-ready=yes]", { state: "attached" });
      await operator.click(`#runs li[data-run="${runId}"]`);
      await operator.locator(".approval button.approve").click();
      await until(`run ${runId} to complete at the edge`, async () => (await api(`/runs/${runId}`)).run.status === "completed");

      // Take it offline: it comes back to the tab, owned here again, with what the edge did.
      const take = page.locator(`#edge-runs button.take-offline[data-run="${runId}"]`);
      await take.waitFor();
      await take.click();
      await page.waitForSelector(`body[data-offline="${runId}"]`, { state: "attached" });
      await page.waitForSelector(`#runs li[data-run="${runId}"][data-custody="owner"][data-status="completed"]`);
      expect((await api(`/runs/${runId}`)).run.custody).toMatchObject({ role: "moved" });
      const types = await page.locator("#journal tr").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset["type"]));
      expect(types.filter((t) => t === "run.moved")).toHaveLength(2);
      expect(types).toContain("approval.resolved");
      await page.screenshot({ path: `${ARTIFACTS}/move-taken-offline.png`, fullPage: true });

      // Offline: the service worker keeps the app, IndexedDB the run.
      await page.waitForFunction(() => document.body.dataset["sw"] === "registered");
      await page.evaluate(() => navigator.serviceWorker.ready);
      await context.setOffline(true);
      await page.reload();
      await ready(page);
      await page.waitForSelector(`#runs li[data-run="${runId}"][data-status="completed"]`);
      await context.setOffline(false);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  // Issue 27, finding 5: after "Continue in the cloud" the page showed the
  // run waiting and read-only with no word that it is now approved in the
  // console; "1 of 1 runs up to date" sat beside 3 listed runs; long run ids
  // ran out of their cards at 1280 px. (And finding 3 where it was seen: the
  // console offered Approve on the edge's read-only mirror.)
  it("after Continue in the cloud: says the run is now answered in the console, with a link there; counts what it lists; fits at 1280 and 400 px", async () => {
    const browser = await launch();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      const operator = await context.newPage();
      await consoleLogin(operator, base, token);
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${base}/app/?writeDelayMs=100`);
      await ready(page);
      await page.locator("#edge").waitFor();
      // Three runs in the tab: one to move, one completed here, one left waiting here.
      const moving = await startWaitingRun(page);
      const next = async (): Promise<string> => {
        const before = await page.locator("#runs li").count();
        await page.click("#start");
        await page.waitForFunction((n) => document.querySelectorAll("#runs li").length === n + 1, before);
        const id = (await page.locator("#runs li.selected").getAttribute("data-run"))!;
        await page.waitForSelector(`#approvals .approval button.approve`);
        return id;
      };
      const done = await next();
      await page.locator("#approvals .approval button.approve").click();
      await page.waitForSelector(`#runs li[data-run="${done}"][data-status="completed"]`);
      const waiting = await next();
      for (const id of [moving, done, waiting]) await until(`run ${id} to be mirrored`, async () => (await api(`/runs/${id}`)).run?.custody?.role === "mirror");

      // The console offers nothing to press on a mirror (finding 3, as the trial met it), and says why.
      await operator.goto(`${base}/?run=${waiting}`);
      await operator.waitForSelector("body[data-ready=yes]", { state: "attached" });
      await operator.waitForFunction(() => !document.getElementById("blocked")!.hidden);
      expect(await operator.locator("#blocked").textContent()).toBe("Read-only here: this is a mirror of a run owned elsewhere, which answers and cancels it.");
      expect(await operator.locator("#run button:visible:enabled").allTextContents()).toEqual(["Verify hash chain"]);
      expect(await operator.locator("section.approval button.approve").isDisabled()).toBe(true);

      // Continue in the cloud.
      await page.click(`#runs li[data-run="${moving}"]`);
      await page.waitForSelector(`#continue[data-run="${moving}"]:not([hidden])`);
      await page.click("#continue");
      await page.waitForSelector(`body[data-moved="${moving}"]`, { state: "attached" });
      await until(`run ${moving} to wait at the edge`, async () => (await api(`/runs/${moving}`)).run.status === "waiting");
      // The page says where it is answered now, with a link to it there.
      await page.waitForFunction(() => document.getElementById("edge-hint")!.dataset["edgeStatus"] === "waiting");
      expect(await page.locator("#edge-hint").textContent()).toBe(`${moving} continues at the edge, where it waits for an approval: answer it in the console. Open it in the console`);
      expect(await page.locator("#edge-hint a").getAttribute("href")).toBe(`/?run=${moving}`);
      // The count says what it counts, and adds up to the list: two runs owned here (both mirrored), one moved away.
      await page.waitForFunction(() => /^mirrored to the edge: 2 of 2 runs owned here up to date/.test(document.getElementById("mirror")!.textContent!));
      expect(await page.locator("#mirror").textContent()).toMatch(/^mirrored to the edge: 2 of 2 runs owned here up to date(, last lag \d+ ms)?; 1 moved away, not mirrored$/);
      expect(await page.locator("#runs li").count()).toBe(3);
      expect(await page.locator("#runs li").evaluateAll((lis) => lis.map((li) => [li.getAttribute("data-run"), li.getAttribute("data-mirror")]))).toEqual(
        expect.arrayContaining([
          [moving, "moved away"],
          [done, "up to date"],
          [waiting, "up to date"],
        ]),
      );
      // Nothing is wider than the window, or than its card.
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/example-continued-1280.png`, fullPage: true });
      await page.setViewportSize({ width: 400, height: 860 });
      await page.waitForFunction(() => document.documentElement.clientWidth === 400);
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/example-continued-400.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // The link opens the run in the console, where it is approved; the tab hears it completed at the edge.
      const [tab] = await Promise.all([context.waitForEvent("page"), page.click("#edge-hint a")]);
      await tab!.waitForSelector("body[data-ready=yes]", { state: "attached" });
      await tab!.waitForFunction((id) => document.getElementById("run-title")!.textContent === `${id}: waiting`, moving);
      await tab!.locator("section.approval button.approve").click();
      await until(`run ${moving} to complete at the edge`, async () => (await api(`/runs/${moving}`)).run.status === "completed");
      await page.waitForFunction(() => document.getElementById("edge-hint")!.dataset["edgeStatus"] === "completed");
      expect(await page.locator("#edge-hint").textContent()).toBe(`${moving} continues at the edge, where it completed: take it offline to bring it back here. Open it in the console`);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  for (const point of ["after_import", "after_seal"] as const) {
    it(`settles a move cut by killing the tab (SIGKILL, ${point}): after a relaunch on its profile, the run has one owner, who finishes it`, async () => {
      const profile = mkdtempSync(join(tmpdir(), "isoagent-move-profile-"));
      try {
        let { group, page } = await chromiumOn(profile, await loginLink(base, token));
        await page.waitForURL(`${base}/`);
        await page.goto(`${base}/app/?writeDelayMs=100&movePause=${point}`);
        await ready(page);
        const runId = await startWaitingRun(page);
        await page.click("#continue");
        await page.waitForSelector(`body[data-move-paused="${point}"]`, { state: "attached" });
        // The tab dies mid-move.
        await killAll(group, profile);
        // The edge holds a copy it does not own (in transit, or the mirror it had, already up to date); the tab still owns the run (before the seal) or sealed it (after).
        expect(["in_transit", "mirror"]).toContain((await api(`/runs/${runId}`)).run.custody.role);
        // Back on its profile (logged in again: a killed browser may not have written the session's cookie to disk).
        ({ group, page } = await chromiumOn(profile, await loginLink(base, token)));
        await page.waitForURL(`${base}/`);
        await page.goto(`${base}/app/`);
        await page.waitForSelector("body[data-settled=yes]", { state: "attached" });
        const tab = await page.locator(`#runs li[data-run="${runId}"]`).getAttribute("data-custody");
        const edge = (await api(`/runs/${runId}`)).run.custody;
        if (point === "after_import") {
          // Rolled back: the tab owns it; the edge keeps a mirror.
          expect([tab, edge?.role]).toEqual(["owner", "mirror"]);
          await page.click(`#runs li[data-run="${runId}"]`);
          await page.locator(".approval button.approve").click();
          await page.waitForSelector(`#runs li[data-run="${runId}"][data-status="completed"]`);
        } else {
          // Completed: the seal reached the edge when the tab came back.
          expect([tab, edge]).toEqual(["moved", null]);
          // Asked again at the edge (it trusts no tab's key), once its object drives the run.
          await until(`run ${runId} to be asked again at the edge`, async () => (await api(`/runs/${runId}`)).run.approvals.length === 1);
          const [a] = (await api(`/runs/${runId}`)).run.approvals;
          await api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: { decision: "approve", requestHash: a.requestHash, by: "e2e" } });
          await until(`run ${runId} to complete at the edge`, async () => (await api(`/runs/${runId}`)).run.status === "completed");
        }
        await killAll(group, profile);
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    });
  }
});

/** Chromium on a persistent profile, in its own process group (so it can be killed whole), on `url`. */
async function chromiumOn(profile: string, url: string): Promise<{ group: Group; browser: Browser; page: Page }> {
  const args = [
    ...CHROMIUM.args,
    "--headless",
    "--disable-crash-reporter",
    "--disable-breakpad",
    `--user-data-dir=${profile}`,
    "--remote-debugging-port=0",
    "--remote-debugging-address=127.0.0.1",
    "about:blank",
  ];
  const { group, match } = await startGroup(CHROMIUM.executablePath, args, /DevTools listening on (ws:\/\/\S+)/, { timeoutMs: scaled(60_000) });
  groups.push(group);
  const browser = await chromium.connectOverCDP(match[1]!, { timeout: scaled(60_000) });
  const context = browser.contexts()[0]!;
  context.setDefaultTimeout(scaled(60_000));
  const page = await context.newPage();
  await page.goto(url);
  return { group, browser, page };
}

async function killAll(group: Group, profile: string): Promise<void> {
  await group.kill();
  await until("every process on the profile to be gone", () => !processesRunning(`--user-data-dir=${profile}`), { timeoutMs: 10_000 });
}
