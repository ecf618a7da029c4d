/**
 * The browser example's traces (issue 20), in Chromium: off until a
 * collector is set on the page; then a run's spans reach the collector
 * (a local one, deduping by id), each once, and a reload sends nothing
 * again (the export cursor is in IndexedDB); offline, nothing is tried, and
 * coming back online sends what waited.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBrowserExample } from "../../scripts/lib/example-browser.js";
import { serveStatic, type StaticSite } from "../../scripts/lib/static-server.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { startCollector, type Collector } from "../helpers/collector.js";
import { launch } from "../helpers/pages.js";
import { until } from "../helpers/time.js";

const present = chromiumPresent();
let browser: Browser;
let site: StaticSite;
let collector: Collector;

beforeAll(async () => {
  if (!present) return;
  collector = await startCollector();
  const built = await buildBrowserExample(mkdtempSync(join(tmpdir(), "isoagent-example-otel-")));
  // The page's CSP lets it connect to the collector, as a deployment's would.
  site = await serveStatic(built, 0, { connect: [new URL(collector.url).origin] });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await collector?.close();
});

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
}

/** Runs the demo task to its end from the page (it asks once, before writing). */
async function runOnce(page: Page): Promise<void> {
  const before = await page.locator("#runs li[data-status=completed]").count();
  await page.click("#start");
  await page.locator(".approval button.approve").click();
  await page.waitForFunction((n) => document.querySelectorAll("#runs li[data-status=completed]").length > n, before);
}

/** Deliveries the collector took, all spans counted. */
const spansAt = (): number => [...collector.seen.values()].reduce((n, k) => n + k, 0);
const roots = (): string[] => [...collector.names].filter(([, name]) => name.startsWith("invoke_agent")).map(([id]) => id);

describe.skipIf(!present)("examples/browser's traces in Chromium", () => {
  it("are off until a collector is set; then a run's spans arrive each once, a reload sends none again, and offline they wait for the network", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${site.url}?sw=off&writeDelayMs=0`);
    await ready(page);
    expect(await page.getAttribute("#traces-status", "data-traces")).toBe("off");
    await runOnce(page);
    expect(collector.seen.size).toBe(0);

    // A collector, with an API key: the run that ended before is exported too.
    await page.locator("#traces summary").click();
    await page.fill("#traces-form [name=endpoint]", collector.url);
    await page.fill("#traces-form [name=headers]", "x-api-key=key%201");
    await Promise.all([page.waitForEvent("load"), page.click("#traces-form button")]);
    await ready(page);
    expect(await page.getAttribute("#traces-status", "data-traces")).toBe("on");
    await runOnce(page);
    let shown = "";
    await until(
      () => `both runs' root spans at the collector (the page says: ${shown}; the collector has ${collector.seen.size} spans, ${roots().length} roots)`,
      async () => {
        shown = (await page.locator("#traces-status").textContent()) ?? "";
        // The page counts a batch as sent once the collector answered and its
        // cursor is saved: a reload before that would send the batch again
        // (at least once; a collector dedupes by id), so wait for it.
        return roots().length === 2 && Number(/(\d+) spans sent/.exec(shown)?.[1]) === spansAt();
      },
    );
    expect(collector.lastHeaders?.["x-api-key"]).toBe("key 1");
    expect(new Set(collector.traceIds).size).toBe(2);
    const names = [...collector.names.values()];
    expect(names.filter((n) => n.startsWith("execute_tool")).length).toBeGreaterThan(0);
    expect(names.filter((n) => n.startsWith("chat")).length).toBeGreaterThan(0);
    expect([...collector.seen.values()].every((n) => n === 1)).toBe(true);

    // A reload: the cursor in IndexedDB says everything went; an export round sends nothing.
    const accepted = collector.answered.accepted;
    await page.reload();
    await ready(page);
    await page.waitForFunction(() => Number(document.getElementById("traces-status")!.dataset["rounds"] ?? 0) >= 1);
    expect(collector.answered.accepted).toBe(accepted);

    // Offline: a run goes on, its spans wait; online again, they go at once.
    await context.setOffline(true);
    await runOnce(page);
    await page.waitForFunction(() => document.getElementById("traces-status")!.textContent!.includes("offline: waiting"));
    expect(roots()).toHaveLength(2);
    await context.setOffline(false);
    await until("the offline run's root span at the collector", () => roots().length === 3);
    expect([...collector.seen.values()].every((n) => n === 1)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
