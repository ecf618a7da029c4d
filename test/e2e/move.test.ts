/**
 * One run, many places, end to end: the browser example served by `npm
 * start`'s Worker (workerd), in Chromium. A run started in the tab moves to
 * the Worker ("Continue in the cloud"), is approved in the console, and
 * comes back ("Take offline"); a tab killed with SIGKILL in the middle of a
 * move (before its seal, and after it) comes back on its profile and
 * settles the move, and the run ends with one owner.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, chromiumPresent } from "../helpers/chromium.js";
import { consoleLogin, launch } from "../helpers/pages.js";
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
  const started = await startGroup(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--port", "0", "--data", data], /console:\s+(http:\/\/\S+)\/login#token=(\S+)/, { timeoutMs: scaled(120_000) });
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
  const res = await fetch(`${base}${path}`, { method: init.method ?? "GET", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
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
      const atEdge = (await api(`/runs/${runId}`)).run;
      expect([atEdge.status, atEdge.custody]).toEqual(["waiting", null]);
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

  for (const point of ["after_import", "after_seal"] as const) {
    it(`settles a move cut by killing the tab (SIGKILL, ${point}): after a relaunch on its profile, the run has one owner, who finishes it`, async () => {
      const profile = mkdtempSync(join(tmpdir(), "isoagent-move-profile-"));
      try {
        let { group, page } = await chromiumOn(profile, `${base}/login#token=${token}`);
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
        ({ group, page } = await chromiumOn(profile, `${base}/login#token=${token}`));
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
  const args = [...CHROMIUM.args, "--headless", "--disable-crash-reporter", "--disable-breakpad", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "about:blank"];
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
  await until("every process on the profile to be gone", () => {
    try {
      execFileSync("pgrep", ["-f", "--", `--user-data-dir=${profile}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  }, { timeoutMs: 10_000 });
}
