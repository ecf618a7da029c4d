/**
 * Issue 27, finding 6 (the console's small ones), in real Chromium over a
 * driver in Node (test/helpers/console-node.ts):
 *
 * - a preview's diff is coloured: file headers, hunk headers, added and
 *   removed lines, context, the "\ No newline" note (read by the hunks'
 *   counts: a removed "-- x" line is not a file header);
 * - a journal row opened is brought into view with its event;
 * - at 400 px an event type breaks only after a dot ("approval." /
 *   "requested"), never inside a word ("approval.requeste" / "d");
 * - screenshots at 1280 and 400 px (test-results/), no sideways scrolling.
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.js";
import { consoleNode, type ConsoleNode } from "../helpers/console-node.js";
import { consoleLogin, launch, overflowing } from "../helpers/pages.js";

const present = chromiumPresent();
const ARTIFACTS = "test-results";
const TOKEN = "console-details-token-0123456789";
let node: ConsoleNode;
let browser: Browser;

beforeAll(async () => {
  if (!present) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  node = await consoleNode(TOKEN);
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await node?.close();
});

async function openRun(page: Page, runId: string): Promise<void> {
  await page.goto(`${node.origin}/?run=${runId}`);
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
  await page.waitForFunction((id) => document.getElementById("run-title")!.textContent === `${id}: waiting`, runId);
  await page.locator("section.approval").waitFor();
  await page.waitForSelector('#journal tr[data-type="approval.requested"]');
}

describe.skipIf(!present)("the console's details", () => {
  it("colours a preview's diff line by line, by the hunks' counts", async () => {
    const runId = await node.create("edit");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await consoleLogin(page, node.origin, TOKEN);
    await openRun(page, runId);
    const preview = page.locator("section.approval pre.preview");
    const asked = (await node.api(`/runs/${runId}`)).body.run.approvals[0].request.preview as string;
    // The text is the preview's, unchanged.
    expect(await preview.textContent()).toBe(asked);
    const lines = await preview.evaluate((pre) => [...pre.childNodes].map((n) => [n instanceof HTMLElement ? n.className : "", n.textContent!.replace(/\n$/, "")]));
    expect(lines).toEqual([
      ["d-file", "--- a/notes.md"],
      ["d-file", "+++ b/notes.md"],
      ["d-hunk", "@@ -1,5 +1,5 @@"],
      ["d-ctx", " a"],
      // A removed "-- dashes" and an added "++ plus": lines of the hunk, not a file's headers.
      ["d-del", "--- dashes"],
      ["d-add", "+++ plus"],
      ["d-ctx", " b"],
      ["d-ctx", " c"],
      ["d-ctx", " d"],
      ["d-hunk", "@@ -7,4 +7,4 @@"],
      ["d-ctx", " f"],
      ["d-ctx", " g"],
      ["d-ctx", " h"],
      ["d-del", "-last"],
      ["d-note", "\\ No newline at end of file"],
      ["d-add", "+last"],
    ]);
    // And they look different: added and removed lines on their own backgrounds, hunk headers in their own colour.
    const look = await preview.evaluate((pre) => {
      const of = (cls: string) => getComputedStyle(pre.querySelector(`.${cls}`)!);
      const plain = getComputedStyle(pre);
      return { add: of("d-add").backgroundColor, del: of("d-del").backgroundColor, ctx: of("d-ctx").backgroundColor, hunk: of("d-hunk").color, text: plain.color, file: of("d-file").fontWeight };
    });
    expect(look.add).not.toBe(look.ctx);
    expect(look.del).not.toBe(look.ctx);
    expect(look.add).not.toBe(look.del);
    expect(look.hunk).not.toBe(look.text);
    expect(Number(look.file)).toBeGreaterThanOrEqual(600);
    await page.screenshot({ path: `${ARTIFACTS}/console-diff-1280.png`, fullPage: true });
    // A decided approval keeps its diff, coloured the same way.
    await page.locator("section.approval button.approve").click();
    const decided = page.locator("#history details.decided");
    await decided.waitFor();
    await decided.locator("summary").click();
    expect(await decided.locator("pre.preview .d-add").allTextContents()).toEqual(["+++ plus\n", "+last\n"]);
    await context.close();
  });

  it("brings an opened event into view", async () => {
    const runId = await node.create("long");
    const context = await browser.newContext({ viewport: { width: 1280, height: 700 } });
    const page = await context.newPage();
    await consoleLogin(page, node.origin, TOKEN);
    await openRun(page, runId);
    // A row at the foot of the window, its event below the fold.
    const seq = "20";
    const row = page.locator(`#journal tr.row[data-seq="${seq}"]`);
    await page.evaluate((s) => {
      const r = document.querySelector(`#journal tr.row[data-seq="${s}"]`)!.getBoundingClientRect();
      window.scrollBy(0, r.bottom - window.innerHeight + 2);
    }, seq);
    const before = (await row.boundingBox())!;
    expect(before.y + before.height).toBeLessThanOrEqual(700);
    expect(before.y + before.height).toBeGreaterThan(690);
    await row.click();
    const event = page.locator(`#journal tr.event[data-seq="${seq}"]`);
    await event.waitFor();
    const inView = await event.evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: window.innerHeight };
    });
    expect(inView.top).toBeGreaterThanOrEqual(0);
    expect(inView.bottom).toBeLessThanOrEqual(inView.height + 1); // subpixel rows
    await context.close();
  });

  it("at 400 px, breaks an event type only after its dots; nothing is wider than the window at 1280 or 400 px", async () => {
    const runId = await node.create("long");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await consoleLogin(page, node.origin, TOKEN);
    await openRun(page, runId);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/console-details-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 400, height: 860 });
    await page.waitForFunction(() => document.documentElement.clientWidth === 400);
    // Where each type cell's text wraps: the character before each break.
    const breaks = await page.locator("#journal tr.row td:nth-child(2)").evaluateAll((cells) =>
      cells.map((td) => {
        const text = td.textContent!;
        const tops: number[] = [];
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
          for (let k = 0; k < n.textContent!.length; k++) {
            const range = document.createRange();
            range.setStart(n, k);
            range.setEnd(n, k + 1);
            tops.push(Math.round(range.getBoundingClientRect().top));
          }
        }
        const before: string[] = [];
        for (let k = 1; k < tops.length; k++) if (tops[k]! > tops[k - 1]!) before.push(`${text.slice(0, k)}|${text.slice(k)}`);
        return { text, before };
      }),
    );
    const types = new Set(breaks.map((b) => b.text));
    expect(types.has("approval.requested")).toBe(true);
    for (const b of breaks) for (const at of b.before) expect(at, b.text).toMatch(/\.\|/);
    // "approval.requested" does not fit the column on one line at this width: it breaks at its dot.
    expect(breaks.find((b) => b.text === "approval.requested")!.before).toEqual(["approval.|requested"]);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/console-details-400.png`, fullPage: true });
    await context.close();
  });
});
