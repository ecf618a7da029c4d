/**
 * Issue 27, finding 3: the console acted on runs it cannot change. On a
 * read-only mirror, Approve, Deny and Cancel were enabled; Approve got
 * `409 RUN_MIRROR` and the page showed nothing (an alert at best). Once, a
 * second run clicked right after load showed the first run's header over
 * its own journal. In real Chromium, over a driver in Node with runs in
 * every status and custody (test/helpers/console-node.ts):
 *
 * - the buttons follow custody and status;
 * - every API error of every action is shown on the page, code and message;
 * - a response that comes back after the operator picked another run (or
 *   another filter) never paints over the current one.
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPresent } from "../helpers/chromium.js";
import { consoleNode, type ConsoleNode } from "../helpers/console-node.js";
import { consoleLogin, launch } from "../helpers/pages.js";
import type { RunId } from "../../src/index.js";

const present = chromiumPresent();
const ARTIFACTS = "test-results";
const TOKEN = "console-custody-token-0123456789";
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

const watch = (page: Page): string[] => {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("dialog", (d) => {
    problems.push(`a dialog: ${d.message()}`);
    void d.dismiss();
  });
  return problems;
};

async function open(page: Page, runId: string, status: string): Promise<void> {
  await page.click(`#runs li[data-run="${runId}"]`);
  await page.waitForFunction((title) => document.getElementById("run-title")!.textContent === title, `${runId}: ${status}`);
}

const buttons = (page: Page, state: "enabled" | "disabled") => page.locator(`#run button:visible:${state}`).allTextContents();

describe.skipIf(!present)("the console's buttons follow custody and status", () => {
  it("offers only what applies: answers and cancel on a run owned here that is not over, nothing but verify on a copy or an ended run, and says why", async () => {
    const cancelled = await node.create("ask");
    expect((await node.api(`/runs/${cancelled}/cancel`, { method: "POST", body: { by: "test" } })).status).toBe(200);
    const runs: [label: string, runId: RunId, status: string][] = [
      ["waiting", await node.create("ask"), "waiting"],
      ["running", await node.create("hold"), "running"],
      ["completed", await node.create("done"), "completed"],
      ["failed", await node.create("fail"), "failed"],
      ["cancelled", cancelled, "cancelled"],
      ["mirror", await node.copy("mirror"), "waiting"],
      ["in transit", await node.copy("in_transit"), "waiting"],
      ["moved", await node.movedAway(), "waiting"],
    ];
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await consoleLogin(page, node.origin, TOKEN);
    const seen: Record<string, { enabled: string[]; disabled: string[]; blocked: string; titles: (string | null)[] }> = {};
    for (const [label, runId, status] of runs) {
      await open(page, runId, status);
      const approvals = (await node.api(`/runs/${runId}`)).body.run.approvals.length;
      // A run cancelled while it waited still lists what it asked (never answered now).
      expect([label, approvals]).toEqual([label, ["waiting", "cancelled", "mirror", "in transit", "moved"].includes(label) ? 1 : 0]);
      seen[label] = {
        enabled: await buttons(page, "enabled"),
        disabled: await buttons(page, "disabled"),
        blocked: await page.evaluate(() => {
          const b = document.getElementById("blocked");
          return b === null || b.hidden ? "" : b.textContent!;
        }),
        titles: await page.locator("#run button:visible:disabled").evaluateAll((bs) => bs.map((b) => b.getAttribute("title"))),
      };
    }
    const readOnly = (why: string) => ({ enabled: ["Verify hash chain"], disabled: ["Cancel run", "Approve", "Deny…"], blocked: why, titles: [why, why, why] });
    expect(seen).toEqual({
      waiting: { enabled: ["Verify hash chain", "Cancel run", "Approve", "Deny…"], disabled: [], blocked: "", titles: [] },
      running: { enabled: ["Verify hash chain", "Cancel run"], disabled: [], blocked: "", titles: [] },
      completed: { enabled: ["Verify hash chain"], disabled: [], blocked: "", titles: [] },
      failed: { enabled: ["Verify hash chain"], disabled: [], blocked: "", titles: [] },
      cancelled: {
        enabled: ["Verify hash chain"],
        disabled: ["Approve", "Deny…"],
        blocked: "This run was cancelled: what it asked can no longer be answered.",
        titles: Array(2).fill("This run was cancelled: what it asked can no longer be answered."),
      },
      mirror: readOnly("Read-only here: this is a mirror of a run owned elsewhere, which answers and cancels it."),
      "in transit": readOnly("Read-only here: this run is in transit, and is driven, answered and cancelled here once its source seals the move."),
      moved: readOnly("Read-only here: this run moved to tab:1, which answers and cancels it."),
    });
    // Screenshots of a mirror as the operator sees it.
    await open(page, runs[5]![1], "waiting");
    await page.screenshot({ path: `${ARTIFACTS}/console-mirror-1280.png`, fullPage: true });
    await page.setViewportSize({ width: 400, height: 860 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/console-mirror-400.png`, fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});

/** Holds the run's live journal open without a word (it would otherwise refresh the run under the test). */
const silentStream = (route: Route) => route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: "retry: 3600000\n\n" });

describe.skipIf(!present)("every API error is shown, in words", () => {
  it("a run that moved away after the page showed it: Approve is answered 409 RUN_MOVED, the page says so, and then offers nothing", async () => {
    const runId = await node.create("ask");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await page.route(new RegExp(`/runs/${runId}/events$`), silentStream);
    await consoleLogin(page, node.origin, TOKEN);
    await open(page, runId, "waiting");
    await page.locator("section.approval button.approve").waitFor();
    // Every read of the run the page sent has been answered (a second one, sent as the run
    // was picked, could otherwise be answered after the move and show it before the click).
    await page.waitForLoadState("networkidle");
    // Meanwhile the run moves to the tab: this place keeps a copy that takes no answer.
    await node.moveAway(runId);
    const [a] = (await node.api(`/runs/${runId}`)).body.run.approvals;
    const refusal = await node.api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: { decision: "approve", requestHash: a.requestHash, by: "test" } });
    expect(refusal.status).toBe(409);
    await page.click("section.approval button.approve");
    await page.waitForFunction(() => document.getElementById("run-error")!.textContent !== "");
    expect(await page.locator("#run-error").textContent()).toBe(`Could not approve: ${refusal.body.error.code}: ${refusal.body.error.message}`);
    expect(refusal.body.error.code).toBe("RUN_MOVED");
    // The run is read again after the refusal: what it shows now offers nothing to press.
    await page.waitForFunction(() => document.getElementById("blocked")!.textContent!.startsWith("Read-only here"));
    expect(await buttons(page, "enabled")).toEqual(["Verify hash chain"]);
    expect(await page.locator("#run-error").textContent()).toBe(`Could not approve: RUN_MOVED: ${refusal.body.error.message}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an answer given elsewhere meanwhile: Approve is answered 409, shown with its code and message", async () => {
    const runId = await node.create("ask");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    await page.route(new RegExp(`/runs/${runId}/events$`), silentStream);
    await consoleLogin(page, node.origin, TOKEN);
    await open(page, runId, "waiting");
    await page.waitForLoadState("networkidle");
    const [a] = (await node.api(`/runs/${runId}`)).body.run.approvals;
    const answer = { decision: "deny", requestHash: a.requestHash, by: "someone else", reason: "not today" };
    expect((await node.api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: answer })).status).toBe(200);
    const again = await node.api(`/runs/${runId}/approvals/${a.approvalId}`, { method: "POST", body: answer });
    expect(again.status).toBe(409);
    await page.click("section.approval button.approve");
    await page.waitForFunction(() => document.getElementById("run-error")!.textContent !== "");
    expect(await page.locator("#run-error").textContent()).toBe(`Could not approve: ${again.body.error.code}: ${again.body.error.message}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("each action's refusal (answers, settlements, cancel, verify, a new run, the list, the run, logging out) is shown with its code and message", async () => {
    const now = Date.now();
    const request = (over: object) => ({ runId: "errors_demo", step: 1, attempt: 1, argsHash: "b".repeat(64), resources: [], sideEffect: "local_mutation", ...over });
    const approvals = [
      { approvalId: "apr.1.s1c1.1", requestHash: "1".repeat(64), status: "pending", request: request({ kind: "call", callId: "s1c1", tool: "write_file", args: { path: "a.md", content: "x" } }) },
      {
        approvalId: "apr.1.s1c2.1",
        requestHash: "2".repeat(64),
        status: "pending",
        request: request({ kind: "call", callId: "s1c2", tool: "ask_user", args: { question: "Which list?" }, sideEffect: "read_only", wantsAnswer: true }),
      },
      { approvalId: "apr.1.s1c3.1", requestHash: "3".repeat(64), status: "pending", request: request({ kind: "interrupted_side_effect", callId: "s1c3", tool: "add_item", args: { item: "a" } }) },
    ];
    const run = { runId: "errors_demo", status: "waiting", seq: 9, step: 1, createdAt: now, updatedAt: now, task: "t", traceId: "0".repeat(32), approvals, lease: null, custody: null };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    let listFails = false;
    await page.route(/\/runs\?limit=\d+$/, (route) =>
      listFails
        ? route.fulfill({ status: 503, json: { error: { code: "STORE_UNAVAILABLE", message: "the index did not answer" } } })
        : route.fulfill({ json: { runs: [{ runId: "errors_demo", status: "waiting", createdAt: now, updatedAt: now, seq: 9, lease: null }] } }),
    );
    await page.route(/\/runs\/errors_demo$/, (route) => route.fulfill({ json: { run } }));
    await page.route(/\/runs\/errors_demo\/events$/, (route) => route.fulfill({ status: 204, body: "" }));
    // Every write the page makes is refused, each with its own code, so each message is told apart.
    const refusals: string[] = [];
    await page.route(/\/(runs\/errors_demo\/(approvals\/.+|reconcile|cancel|verify)|runs|logout)$/, (route) => {
      const r = route.request();
      if (r.method() === "GET" && !r.url().endsWith("/verify")) return route.fallback();
      const code = `REFUSED_${refusals.length + 1}`;
      refusals.push(`${r.method()} ${new URL(r.url()).pathname} ${r.postData() ?? ""}`);
      return route.fulfill({ status: 409, json: { error: { code, message: `refusal number ${refusals.length}` } } });
    });
    await consoleLogin(page, node.origin, TOKEN);
    await page.goto(`${node.origin}/?run=errors_demo`);
    await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
    await page.locator("section.approval").first().waitFor();
    const shown = async (k: number, verb: string, where = "#run-error"): Promise<void> => {
      const text = `Could not ${verb}: REFUSED_${k}: refusal number ${k}`;
      await page.waitForFunction(([w, t]) => document.querySelector(w!)!.textContent === t, [where, text] as const);
    };
    const call = page.locator('section.approval[data-approval="apr.1.s1c1.1"]');
    const ask = page.locator('section.approval[data-approval="apr.1.s1c2.1"]');
    const interrupted = page.locator('section.approval[data-approval="apr.1.s1c3.1"]');
    await call.locator("button.approve").click();
    await shown(1, "approve");
    await call.locator("button.deny", { hasText: "Deny…" }).click();
    await call.locator("input.reason").fill("no");
    await call.locator("button.confirm-deny").click();
    await shown(2, "deny");
    await ask.locator("input.answer").fill("todo");
    await ask.locator("button.approve").click();
    await shown(3, "answer");
    await ask.locator("button.deny", { hasText: "Decline to answer" }).click();
    await shown(4, "decline to answer");
    await interrupted.locator("button.run-again").click();
    await shown(5, "run it again");
    await interrupted.locator("button.record-result").click();
    await shown(6, "record it as done");
    await interrupted.locator("button.record-failure").click();
    await shown(7, "record it as failed");
    await interrupted.locator("button.mark-unknown").click();
    await shown(8, "mark it unknown");
    await page.click("#cancel");
    await shown(9, "cancel the run");
    await page.click("#verify");
    await shown(10, "verify the hash chain", "#verified");
    await page.fill("#task", "a task");
    await page.click("#start");
    await shown(11, "start the run", "#new-status");
    await page.click("#logout");
    await shown(12, "log out", "#page-error");
    expect(page.url()).toBe(`${node.origin}/?run=errors_demo`);
    // The list, read again every few seconds, says why it could not be.
    listFails = true;
    await page.waitForFunction(() => document.getElementById("status")!.textContent === "Could not load the runs: STORE_UNAVAILABLE: the index did not answer");
    expect(refusals.map((r) => r.split(" ").slice(0, 2).join(" "))).toEqual([
      "POST /runs/errors_demo/approvals/apr.1.s1c1.1",
      "POST /runs/errors_demo/approvals/apr.1.s1c1.1",
      "POST /runs/errors_demo/approvals/apr.1.s1c2.1",
      "POST /runs/errors_demo/approvals/apr.1.s1c2.1",
      "POST /runs/errors_demo/reconcile",
      "POST /runs/errors_demo/reconcile",
      "POST /runs/errors_demo/reconcile",
      "POST /runs/errors_demo/reconcile",
      "POST /runs/errors_demo/cancel",
      "GET /runs/errors_demo/verify",
      "POST /runs",
      "POST /logout",
    ]);
    // A run that cannot be read says so too (and the page goes on).
    await page.unroute(/\/runs\/errors_demo$/);
    await page.route(/\/runs\/errors_demo$/, (route) => route.fulfill({ status: 404, json: { error: { code: "RUN_NOT_FOUND", message: "no run errors_demo" } } }));
    await page.reload();
    await page.waitForFunction(() => document.getElementById("run-error")!.textContent === "Could not load the run: RUN_NOT_FOUND: no run errors_demo");
    // And a server out of reach is said in words, not as a code it never sent.
    await page.unroute(/\/runs\/errors_demo$/);
    await page.route(/\/runs\/errors_demo$/, (route) => route.abort("connectionrefused"));
    await page.reload();
    await page.waitForFunction(() => /^Could not load the run: NETWORK: the server could not be reached \(.+\)$/.test(document.getElementById("run-error")!.textContent!));
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe.skipIf(!present)("switching runs is race-free", () => {
  it("a run's answer that comes back after another run was picked never paints over it (header, approvals, verification); nor a list page of the filter before", async () => {
    const first = await node.create("ask");
    const second = await node.create("done");
    // The newest run is listed first, and the page picks it at load.
    const newest = await node.create("ask");
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Logged in on a page of its own, closed: the page under test makes no request before the route below is in place.
    const login = await context.newPage();
    await consoleLogin(login, node.origin, TOKEN);
    await login.close();
    const page = await context.newPage();
    const problems = watch(page);
    // The newest run's state is slow to come back, once.
    let letGo = (): void => {};
    const gate = new Promise<void>((r) => (letGo = r));
    let held = 0;
    await page.route(new RegExp(`/runs/${newest}$`), async (route) => {
      if (held++ > 0) return route.fallback();
      await gate;
      return route.fallback();
    });
    await page.goto(`${node.origin}/`);
    await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
    await page.waitForFunction(() => document.querySelector("#runs li.selected") !== null);
    expect(await page.locator("#runs li.selected").getAttribute("data-run")).toBe(newest);
    // The operator picks another run at once; it is shown.
    await open(page, first, "waiting");
    await page.locator(`section.approval`).waitFor();
    const stale = await page.evaluate(() => Number(document.body.dataset["stale"] ?? 0));
    letGo();
    // The newest run's answer arrives: dropped (or, as before, painted over the run shown).
    await page.waitForFunction(([id, before]) => document.getElementById("run-title")!.textContent!.startsWith(id!) || Number(document.body.dataset["stale"] ?? 0) > Number(before), [
      newest,
      stale,
    ] as const);
    expect(await page.locator("#run-title").textContent()).toBe(`${first}: waiting`);
    expect(await page.locator("section.approval").getAttribute("data-approval")).toBe((await node.api(`/runs/${first}`)).body.run.approvals[0].approvalId);
    const journal = await page.locator("#journal tr.row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-seq")));
    expect(journal.length).toBe((await node.api(`/runs/${first}/events`)).body.events.length);
    expect(await page.locator("#journal tr.row").first().locator("td").nth(2).textContent()).toBe('task "ask"');

    // A verification asked for one run, answered after the operator moved to another, is not shown on the other.
    let verifyGo = (): void => {};
    const verifyGate = new Promise<void>((r) => (verifyGo = r));
    await page.route(new RegExp(`/runs/${first}/verify$`), async (route) => (await verifyGate, route.fallback()));
    await page.click("#verify");
    await page.waitForFunction(() => document.getElementById("verified")!.textContent === "verifying…");
    await open(page, second, "completed");
    expect(await page.locator("#verified").textContent()).toBe("");
    const staleBefore = await page.evaluate(() => Number(document.body.dataset["stale"] ?? 0));
    verifyGo();
    await page.waitForFunction((before) => document.getElementById("verified")!.textContent !== "" || Number(document.body.dataset["stale"] ?? 0) > before, staleBefore);
    expect(await page.locator("#verified").textContent()).toBe("");
    expect(await page.locator("#run-title").textContent()).toBe(`${second}: completed`);

    // A list page of the filter before, answered after the filter changed, is not shown under the new one.
    let listGo = (): void => {};
    const listGate = new Promise<void>((r) => (listGo = r));
    await page.route(/\/runs\?limit=20&status=waiting$/, async (route) => (await listGate, route.fallback()));
    await page.selectOption("#filter", "waiting");
    await page.selectOption("#filter", "completed");
    await page.waitForFunction(
      () => [...document.querySelectorAll("#runs li[data-run]")].length > 0 && [...document.querySelectorAll("#runs li[data-run]")].every((li) => li.getAttribute("data-status") === "completed"),
    );
    const listStale = await page.evaluate(() => Number(document.body.dataset["stale"] ?? 0));
    listGo();
    await page.waitForFunction(
      (before) => [...document.querySelectorAll("#runs li[data-run]")].some((li) => li.getAttribute("data-status") !== "completed") || Number(document.body.dataset["stale"] ?? 0) > before,
      listStale,
    );
    expect(await page.locator("#runs li[data-run]").evaluateAll((lis) => lis.map((li) => li.getAttribute("data-status")))).not.toContain("waiting");
    expect(problems).toEqual([]);
    await context.close();
  });
});
