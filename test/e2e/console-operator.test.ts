/**
 * The operator console as operators would want it (issue 15, finding 5), in
 * real Chromium: the run list (task's first line, status, times, lease
 * holder; filtered by status, by page), a run started from a form, a
 * journal row opened to its whole event and the artifacts it names, a
 * denial that asks why, decided approvals kept with their diff, the hash
 * chain verified by the server, and the layout at 1280 and 400 px
 * (screenshots in test-results/).
 */
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { Miniflare } from "miniflare";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, type Tool } from "../../src/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { consoleLogin, launch } from "../helpers/pages.js";
import { until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";
import { DEMO_TASK } from "../../examples/notes-agent.js";

const present = chromiumPresent();
const ARTIFACTS = "test-results";
const TOKEN = "console-operator-token-0123456789";
let mf: Miniflare;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!present) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  mf = await startWorker("examples/worker/index.ts", { ...RUN_OBJECTS, bindings: { ISOAGENT_TOKEN: TOKEN }, host: "127.0.0.1", port: 0 });
  base = (await mf.ready).toString().replace(/\/$/, "");
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await mf?.dispose();
});

const watch = (page: Page): string[] => {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(m.text());
  });
  return problems;
};

/** Nothing of the page is wider than the window: no sideways scrolling, every button within reach. */
async function fits(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  for (const b of await page.locator("#run button:visible, nav button:visible").all()) {
    const box = (await b.boundingBox())!;
    expect(box.x + box.width, (await b.textContent())!).toBeLessThanOrEqual(width);
  }
}

describe.skipIf(!present)("the console, as operators would want it (the Worker on Durable Objects)", () => {
  it("starts a run from its form, lists it, opens an event, verifies the chain, asks a reason to deny, and keeps the decided diff; at 1280 and 400 px", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await consoleLogin(page, base, TOKEN);

    // A form starts a run; the page selects it.
    await page.fill("#task", DEMO_TASK);
    await page.click("#start");
    await page.waitForFunction(() => /: (running|waiting)$/.test(document.getElementById("run-title")!.textContent!));
    const runId = (await page.locator("#run-title").textContent())!.split(":")[0]!;
    expect(await page.inputValue("#task")).toBe("");

    // The list shows the task's first line, the status, when it started and was updated.
    const item = page.locator(`li[data-run="${runId}"]`);
    await item.waitFor();
    expect(await item.locator(".title").textContent()).toBe("Summarise notes/todo.md into notes/summary.md");
    expect(await item.locator(".started").textContent()).toMatch(/^started \d/);
    expect(await item.locator(".updated").textContent()).toMatch(/^updated \d/);
    expect(await item.locator(".id").textContent()).toBe(runId);
    await page.waitForSelector(`li[data-run="${runId}"][data-status=waiting] .badge.waiting`);

    // The approval, in full, with its diff.
    const approval = page.locator("section.approval[data-kind=call]");
    await approval.waitFor();
    expect(await approval.locator("pre.preview").textContent()).toContain("+- renew the passport");

    // A journal row opens its whole event, as the API stores it.
    const events = ((await (await fetch(`${base}/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { events: { seq: number; type: string; activity?: string }[] })
      .events;
    const listed = events.find((e) => e.type === "call.finished" && e.activity === "List notes/")!;
    await page.click(`#journal tr.row[data-seq="${listed.seq}"]`);
    expect(JSON.parse((await page.locator(`#journal tr.event[data-seq="${listed.seq}"] pre.event-json`).textContent())!)).toEqual(listed);

    // The server verifies the whole hash chain.
    await page.click("#verify");
    await page.waitForSelector("#verified.ok");
    expect(await page.locator("#verified").textContent()).toBe(`hash chain verified: ${events.length} events, head ${(events.at(-1) as unknown as { hash: string }).hash.slice(0, 16)}…`);

    await page.screenshot({ path: `${ARTIFACTS}/console-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 400, height: 860 });
    await fits(page, 400);
    await page.screenshot({ path: `${ARTIFACTS}/console-400.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // Deny asks why first: nothing is sent without a reason.
    await approval.locator("button.deny", { hasText: "Deny…" }).click();
    const reason = approval.locator("input.reason");
    await reason.waitFor();
    expect(await approval.locator("button.approve").isDisabled()).toBe(true);
    await approval.locator("button.confirm-deny").click();
    expect(await reason.getAttribute("class")).toContain("missing");
    expect(((await (await fetch(`${base}/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { run: { status: string } }).run.status).toBe("waiting");
    await reason.fill("the summary belongs in the wiki, not in notes/");
    await approval.locator("button.confirm-deny").click();
    await page.waitForSelector("#run:not([data-status=waiting]):not([data-status=running])");
    await page.waitForSelector('#journal tr[data-type="approval.resolved"]');
    expect(await page.locator('#journal tr[data-type="approval.resolved"] td:nth-child(3)').textContent()).toBe("deny by console: the summary belongs in the wiki, not in notes/");
    const resolved = ((await (await fetch(`${base}/runs/${runId}/events`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { events: { type: string; reason?: string }[] }).events.find(
      (e) => e.type === "approval.resolved",
    )!;
    expect(resolved.reason).toBe("the summary belongs in the wiki, not in notes/");

    // The decided approval stays, with the diff it showed and who decided.
    const decided = page.locator("#history details.decided.deny");
    await decided.waitFor();
    expect(await decided.locator(".verdict").textContent()).toBe("denied by console: the summary belongs in the wiki, not in notes/");
    await decided.locator("summary").click();
    expect(await decided.locator("pre.preview").textContent()).toContain("+- renew the passport");
    expect(await page.locator("section.approval").count()).toBe(0);

    // Another run, approved: its diff is kept after the approval too.
    await page.fill("#task", DEMO_TASK);
    await page.click("#start");
    await page.locator("section.approval[data-kind=call] button.approve").click();
    await page.waitForSelector("#run[data-status=completed]");
    const approved = page.locator("#history details.decided.approve");
    await approved.waitFor();
    expect(await approved.locator(".verdict").textContent()).toBe("approved by console");
    await approved.locator("summary").click();
    expect(await approved.locator("pre.preview").textContent()).toContain("+++ b/notes/summary.md");
    await page.screenshot({ path: `${ARTIFACTS}/console-history-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 400, height: 860 });
    await fits(page, 400);
    await page.screenshot({ path: `${ARTIFACTS}/console-history-400.png`, fullPage: true });

    // The list filters by status.
    await page.selectOption("#filter", "waiting");
    await page.waitForFunction(() => [...document.querySelectorAll("#runs li[data-run]")].every((li) => li.getAttribute("data-status") === "waiting"));
    await page.selectOption("#filter", "completed");
    await page.waitForSelector(`#runs li[data-run="${runId}"]`);
    expect(await page.locator("#runs li[data-run]").evaluateAll((lis) => lis.map((li) => li.getAttribute("data-status")))).not.toContain("waiting");
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!present)("the console over a driver in Node (driverBackend)", () => {
  let server: ServerType;
  let at: string;
  const NODE_TOKEN = "console-node-token-0123456789";
  beforeAll(async () => {
    if (!present) return;
    // Each run's one call says more than 16 bytes: the rest is kept as an artifact its journal names.
    const say = defineTool({
      name: "say",
      description: "Say a lot.",
      inputSchema: strictObject({}),
      sideEffect: "read_only",
      timeoutMs: 1000,
      outputPolicy: { maxVisibleBytes: 16 },
      call: () => "the whole output, which the model saw only the end of",
    }) as Tool<never, unknown>;
    const driver = createDriver({ store: memoryStore(), agent: scriptedAgent((v) => (v.step === 1 ? calls({ name: "say", args: "{}" }) : final("said"))), tools: [say] });
    const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [NODE_TOKEN] });
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
    await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
    at = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (let k = 1; k <= 25; k++) {
      await fetch(`${at}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${NODE_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ task: `task number ${k}\nwith a second line` }),
      });
    }
    await until(
      "the 25 runs to complete",
      async () => ((await (await fetch(`${at}/runs?status=completed`, { headers: { authorization: `Bearer ${NODE_TOKEN}` } })).json()) as { runs: unknown[] }).runs.length === 25,
    );
  });
  afterAll(async () => {
    await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  });

  it("pages the list, and opens an artifact the run's journal names", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await consoleLogin(page, at, NODE_TOKEN);
    const ids = () => page.locator("#runs li[data-run]").evaluateAll((lis) => lis.map((li) => li.getAttribute("data-run")!));
    await page.waitForFunction(() => document.querySelectorAll("#runs li[data-run]").length === 20);
    const first = await ids();
    expect(await page.locator("#page").textContent()).toBe("page 1");
    expect(await page.isDisabled("#newer")).toBe(true);
    expect(await page.locator("#runs li[data-run] .title").first().textContent()).toMatch(/^task number \d+$/);
    await page.click("#older");
    await page.waitForFunction(() => document.getElementById("page")!.textContent === "page 2");
    await page.waitForFunction(() => document.querySelectorAll("#runs li[data-run]").length === 5);
    const second = await ids();
    expect(await page.isDisabled("#older")).toBe(true);
    expect(new Set([...first, ...second]).size).toBe(25);
    await page.click("#newer");
    await page.waitForFunction(() => document.getElementById("page")!.textContent === "page 1");

    // The call's event names the artifact its output was kept in; the link serves it through the run.
    await page.click(`li[data-run="${first[3]}"]`);
    await page.waitForSelector("#run[data-status=completed]");
    await page.waitForSelector('#journal tr.row[data-type="call.finished"]');
    await page.click('#journal tr.row[data-type="call.finished"]');
    const link = page.locator("#journal tr.event a.artifact");
    await link.waitFor();
    const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
    await tab!.waitForLoadState();
    expect(await tab!.locator("body").textContent()).toBe("the whole output, which the model saw only the end of");
    await page.click("#verify");
    await page.waitForSelector("#verified.ok");
    expect(problems).toEqual([]);
    await context.close();
  });
});
