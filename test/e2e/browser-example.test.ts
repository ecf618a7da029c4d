import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBrowserExample } from "../../scripts/lib/example-browser.js";
import { serveStatic, type StaticSite } from "../../scripts/lib/static-server.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { launch, overflowing } from "../helpers/pages.js";

const present = chromiumPresent();
let browser: Browser;
let site: StaticSite;
let built: string;
let offline = false;
const ARTIFACTS = "test-results";

beforeAll(async () => {
  if (!present) return;
  built = await buildBrowserExample(mkdtempSync(join(tmpdir(), "isoagent-example-")));
  site = await serveStatic(built);
  browser = await launch();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  if (!offline) await site?.close();
});

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
}

/** The workspace's receipts of committed changes, read from the page's IndexedDB. */
function writes(page: Page, workspace = "isoagent-example-workspace"): Promise<{ key: string; result: string }[]> {
  return page.evaluate(
    (name) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const req = open.result.transaction("receipts").objectStore("receipts").getAll();
          req.onsuccess = () => {
            resolve(req.result);
            open.result.close();
          };
        };
      }),
    workspace,
  );
}

describe.skipIf(!present)("examples/browser in Chromium", () => {
  it("approves from the page, survives a reload during a tool call without a second effect, and works offline", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${site.url}?writeDelayMs=1500`);
    await ready(page);
    // The page runs under a CSP without 'unsafe-eval'.
    const csp = await page.evaluate(async () => (await fetch(location.href)).headers.get("content-security-policy"));
    expect(csp).toContain("script-src 'self'");
    // It says which agent it uses: no model chosen, the scripted one.
    expect(await page.locator("#agent").textContent()).toBe("agent: the scripted demo agent (set a model below for a real model)");
    expect(csp).not.toContain("unsafe-eval");

    // Start a run; it stops to ask before writing, and the page shows what is asked.
    await page.click("#start");
    const approval = page.locator(".approval");
    await approval.waitFor();
    expect(await approval.locator(".tool").textContent()).toBe("write_file");
    expect(await approval.locator(".side-effect").textContent()).toBe("local_mutation");
    expect(await approval.locator(".resources").textContent()).toBe("path notes/summary.md");
    expect(JSON.parse((await approval.locator(".args").textContent())!)).toMatchObject({ path: "notes/summary.md" });
    // The diff, as the console shows it (issue 15, finding 6): the tool's preview of the write.
    expect(await approval.locator("pre.preview").textContent()).toBe(
      "--- /dev/null\n+++ b/notes/summary.md\n@@ -0,0 +1,6 @@\n+# Summary\n+\n+3 things to do:\n+- buy milk\n+- call Ana about the trip\n+- renew the passport\n",
    );
    // Coloured line by line, as the console colours it (issue 27, finding 6): the file's headers, the hunk, six added lines.
    expect(await approval.locator("pre.preview").evaluate((pre) => [...pre.childNodes].map((n) => (n instanceof HTMLElement ? n.className : "text")))).toEqual([
      "d-file",
      "d-file",
      "d-hunk",
      ...Array(6).fill("d-add"),
    ]);
    const look = await approval
      .locator("pre.preview")
      .evaluate((pre) => ({ added: getComputedStyle(pre.querySelector(".d-add")!).backgroundColor, hunk: getComputedStyle(pre.querySelector(".d-hunk")!).color, text: getComputedStyle(pre).color }));
    expect(look.added).not.toBe("rgba(0, 0, 0, 0)");
    expect(look.hunk).not.toBe(look.text);
    // Nothing is wider than the window, at 1280 px or at 400 (the run's id is 44 characters).
    expect(await overflowing(page)).toEqual([]);
    await page.setViewportSize({ width: 400, height: 860 });
    await page.waitForFunction(() => document.documentElement.clientWidth === 400);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/browser-example-400.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    // And the journal's rows carry the tools' activity lines, as the console's do.
    const rows = await page.locator("#journal tr[data-type='call.finished']").allTextContents();
    expect(rows.some((row) => row.includes("s1c1: List notes/ · result"))).toBe(true);
    expect(rows.some((row) => row.includes("s1c2: Read notes/todo.md · result"))).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/browser-example-approval.png`, fullPage: true });

    // Approve from the page; reload while the (slow) write is running.
    await page.click(".approval button.approve");
    await page.waitForFunction(() => [...document.querySelectorAll("#journal tr[data-type='call.started']")].length >= 3);
    await page.reload();
    await ready(page);
    await page.waitForSelector("#run[data-status=completed]");
    const journal = await page.locator("#journal tr").allTextContents();
    expect(journal.some((row) => row.includes("call.reconciled"))).toBe(true);
    const summaryWrites = (await writes(page)).filter((w) => w.result.startsWith("Created notes/summary.md"));
    expect(summaryWrites.length).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/browser-example.png`, fullPage: true });

    // Offline: the service worker serves the app; a run completes and a reload still works.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null || document.body.dataset["sw"] === "registered");
    await page.evaluate(() => navigator.serviceWorker.ready);
    // Cut the network for real: the server is gone, not just emulated away
    // (Chromium's offline emulation does not reach service workers).
    await context.setOffline(true);
    site.server.closeAllConnections();
    await site.close();
    offline = true;
    await page.reload();
    await ready(page);
    await page.click("#start");
    await page.locator(".approval button.approve").click();
    await page.waitForSelector("#run[data-status=completed]");
    await page.reload();
    await ready(page);
    expect(await page.locator("#runs li[data-status=completed]").count()).toBe(2);
    await context.setOffline(false);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!present)("examples/browser: a run another tab holds", () => {
  // Issue 13, finding 2: a dead tab's lease could not be seen, and its run
  // sat "running" with nothing saying who held it or until when. Here tab A
  // drives a run through a slow write; tab B shows "running in another tab
  // (A) until …"; A is closed mid-write, and B takes the run over when A's
  // lease expires, through its resume loop. On the old code B shows nothing
  // of the lease (there was none to show).
  it("shows who holds it and until when, and takes it over once that tab is gone and its lease expired", async () => {
    // Its own server: the test above takes the first one down to go offline.
    const site = await serveStatic(built);
    const context = await browser.newContext();
    const a = await context.newPage();
    const errors: string[] = [];
    a.on("pageerror", (e) => errors.push(e.message));
    await a.goto(`${site.url}?writeDelayMs=600000&sw=off`);
    await ready(a);
    await a.click("#start");
    await a.locator(".approval button.approve").click();
    await a.waitForFunction(() => [...document.querySelectorAll("#journal tr[data-type='call.started']")].length >= 3);
    const runId = (await a.locator("#run-title").textContent())!.split(":")[0]!;
    const ownerA = /this tab is (tab-[0-9a-f]+)/.exec((await a.locator("#status").textContent())!)![1]!;

    const b = await context.newPage();
    b.on("pageerror", (e) => errors.push(e.message));
    await b.goto(`${site.url}?writeDelayMs=0&sw=off&run=${runId}`);
    await ready(b);
    await b.waitForFunction((who) => document.getElementById("lease")!.textContent!.startsWith(`running in another tab (${who}) until `), ownerA);
    expect(await b.getAttribute(`#runs li[data-run="${runId}"]`, "title")).toContain(`running in another tab (${ownerA}) until `);

    await a.close();
    await b.waitForSelector("#run[data-status=completed]");
    const ownerB = /this tab is (tab-[0-9a-f]+)/.exec((await b.locator("#status").textContent())!)![1]!;
    const journal = await b.locator("#journal tr").allTextContents();
    expect(journal.some((row) => row.includes(`driven by ${ownerB}`))).toBe(true);
    expect(await b.locator("#lease").textContent()).toBe("");
    expect(errors).toEqual([]);
    await context.close();
    await site.close();
  });
});

describe.skipIf(!present)("examples/browser: starting a run, retried", () => {
  it("starts a run once when the start is tried again with its idempotency key (a reload before the tab heard of it), and a new click makes a new run", async () => {
    const site = await serveStatic(built);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // Every load finds the same start pending, as a tab would that reloaded after the create committed but before clearing it.
    await page.addInitScript(() => sessionStorage.setItem("isoagent-example-pending-start", JSON.stringify({ key: "start-once", task: "summarise my notes" })));
    const db = `idem-${Date.now()}`;
    const runIds = () => page.locator("#runs li").evaluateAll((items) => items.map((i) => i.getAttribute("data-run")));
    for (let load = 0; load < 2; load++) {
      await page.goto(`${site.url}?writeDelayMs=0&sw=off&db=${db}&workspace=${db}-ws`);
      await ready(page);
      await page.waitForSelector("#runs li");
      await page.waitForFunction(() => sessionStorage.getItem("isoagent-example-pending-start") === null);
      expect(await runIds()).toHaveLength(1);
    }
    const [first] = await runIds();
    await page.click("#start");
    await page.waitForFunction(() => document.querySelectorAll("#runs li").length === 2);
    expect(await runIds()).toContain(first);
    expect(errors).toEqual([]);
    await context.close();
    await site.close();
  });
});

describe.skipIf(!present)("examples/browser: a conversation", () => {
  // Issue 29: the example gains a message box. A conversation started from the
  // page answers each message as a turn, with an approval in the second, and
  // the transcript shows as bubbles beside the journal; closed, it ends.
  it("talks turn after turn from the message box, answers an approval inside a turn, and closes", async () => {
    const site = await serveStatic(built);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const db = `chat-${Date.now()}`;
    await page.goto(`${site.url}?writeDelayMs=0&sw=off&db=${db}&workspace=${db}-ws`);
    await ready(page);
    await page.click("#start-chat");
    // Idle from its creation: the message box is open, nothing else is.
    await page.waitForSelector("#run[data-status=idle] #chat:not([hidden])");
    expect(await page.locator("#chat-status").textContent()).toBe("Write the first message.");
    expect(await page.locator("#regenerate").isDisabled()).toBe(true);
    const send = async (text: string) => {
      await page.locator("#send:not([disabled])").waitFor();
      await page.fill("#message", text);
      await page.click("#send");
    };
    const agentBubbles = page.locator("#bubbles .bubble.agent:not(.thinking)");
    await send("hello");
    await agentBubbles.first().waitFor();
    expect(await agentBubbles.first().textContent()).toContain("only knows one task");
    await page.waitForSelector("#run[data-status=idle]");
    expect(await page.locator("#chat-status").textContent()).toBe("Your turn.");

    // Turn 2 writes a file: it asks first, and the answer comes once it is approved.
    await send("Summarise notes/todo.md into notes/summary.md");
    await page.locator(".approval button.approve").click();
    await page.waitForFunction(() => document.querySelectorAll("#bubbles .bubble.agent:not(.thinking)").length === 2);
    await page.waitForSelector("#run[data-status=idle]");
    expect(await page.locator("#bubbles .bubble.user").allTextContents()).toEqual(["hello", "Summarise notes/todo.md into notes/summary.md"]);
    expect(await agentBubbles.nth(1).textContent()).toContain("notes/summary.md");
    expect((await writes(page, `${db}-ws`)).filter((w) => w.result.startsWith("Created notes/summary.md"))).toHaveLength(1);
    // Each message is one user.message event, each turn ends answered.
    const types = await page.locator("#journal tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-type")));
    expect(types.filter((t) => t === "user.message")).toHaveLength(2);
    expect(types.filter((t) => t === "turn.ended")).toHaveLength(2);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/browser-example-chat.png`, fullPage: true });

    // A reload shows the same conversation, then closing it ends the run.
    await page.reload();
    await ready(page);
    await page.waitForFunction(() => document.querySelectorAll("#bubbles .bubble.user").length === 2);
    await page.locator("#close-chat:not([disabled])").click();
    await page.waitForSelector("#run[data-status=completed]");
    expect(await page.locator("#chat-status").textContent()).toBe("This conversation has ended.");
    expect(await page.locator("#send").isDisabled()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
    await site.close();
  });
});
