import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SideEffect } from "../../src/index.js";
import { SIDE_EFFECTS } from "../../src/tools/index.js";
import { baselineOf, CRASH_POINTS, judge, listScenario, type CrashPoint, type CrashResult, type RunRecord } from "../../src/testkit/index.js";
import { formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { buildPage, launch, serve } from "../helpers/pages.js";

const present = chromiumPresent();
let browser: Browser;
let site: Awaited<ReturnType<typeof serve>>;

beforeAll(async () => {
  if (!present) return;
  site = await serve(await buildPage("test/e2e/pages/index.html", "test/e2e/pages/harness.ts"));
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function open(context: Awaited<ReturnType<Browser["newContext"]>>): Promise<Page> {
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
  return page;
}

/** Crashes a run at `point` by killing its page (reload, or close and reopen), then resumes it in a fresh page. */
async function crashInPage(sideEffect: SideEffect, point: CrashPoint, kill: "reload" | "close"): Promise<{ crashed: boolean; record: RunRecord }> {
  const context = await browser.newContext();
  try {
    let page = await open(context);
    let signal!: (p: string) => void;
    const reached = new Promise<string>((r) => (signal = r));
    await page.exposeFunction("__crashAt", (p: string) => signal(p));
    const running = page
      .evaluate(([s, p]) => window.iso.start(s as SideEffect, p as CrashPoint), [sideEffect, point] as const)
      .then(
        () => "finished",
        () => "killed",
      );
    const first = await Promise.race([reached, running]);
    const crashed = first === point;
    if (kill === "reload") await page.reload();
    else {
      await page.close();
      page = await context.newPage();
      await page.goto(site.url);
    }
    await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
    expect(await running).toBe(crashed ? "killed" : "finished");
    const record = await page.evaluate(([s]) => window.iso.resume("run_1", s as SideEffect), [sideEffect] as const);
    return { crashed, record };
  } finally {
    await context.close();
  }
}

describe.skipIf(!present)("the crash matrix on IndexedDB, where a crash is the page reloaded or closed", () => {
  it("4 side-effect classes x 5 points: no lost step, no unreconciled re-execution, the chain intact", async () => {
    const rows: CrashResult[] = [];
    for (const sideEffect of SIDE_EFFECTS) {
      const context = await browser.newContext();
      const baseline = baselineOf(await (await open(context)).evaluate(([s]) => window.iso.baseline(s as SideEffect), [sideEffect] as const));
      await context.close();
      const scenario = listScenario(sideEffect);
      for (const [k, point] of CRASH_POINTS.entries()) {
        // Alternate how the page dies: reloaded, or closed and opened again.
        const { crashed, record } = await crashInPage(sideEffect, point, k % 2 === 0 ? "reload" : "close");
        rows.push(judge(scenario, point, crashed, baseline, record));
      }
    }
    console.log(formatMatrix(rows));
    expect(rows.length).toBe(20);
    expect(matrixProblems(rows)).toEqual([]);
    for (const r of rows.filter((x) => x.point === "during_effect" || x.point === "after_effect")) {
      expect(r.recovery).toBe(r.scenario === "read_only" ? "runtime" : "operator");
    }
  });
});

describe.skipIf(!present)("the page these tests run in", () => {
  it("has a CSP without 'unsafe-eval': the core runs where code generation is refused", async () => {
    const context = await browser.newContext();
    const page = await open(context);
    expect(await page.getAttribute("body", "data-codegen")).toBe("refused: EvalError");
    await context.close();
  });
});

describe.skipIf(!present)("two pages racing for the same runs", () => {
  it("one driver at a time: every run completes, every call executes once", async () => {
    const context = await browser.newContext();
    const [a, b] = [await open(context), await open(context)];
    await a.evaluate(() => window.iso.createRuns(12));
    const [fromA, fromB] = await Promise.all([a.evaluate(() => window.iso.driveUntilDone()), b.evaluate(() => window.iso.driveUntilDone())]);
    const report = await a.evaluate(() => window.iso.raceReport());
    const owners = [await a.evaluate(() => window.iso.owner()), await b.evaluate(() => window.iso.owner())];
    await context.close();
    expect(report.runs.length).toBe(12);
    expect(report.runs.filter((r) => r.status !== "completed")).toEqual([]);
    // Both pages drove runs.
    expect(fromA.length).toBeGreaterThan(0);
    expect(fromB.length).toBeGreaterThan(0);
    expect(new Set(report.runs.flatMap((r) => r.owners))).toEqual(new Set(owners));
    // 12 runs x 5 calls, each executed exactly once.
    expect(Object.keys(report.executions).length).toBe(60);
    expect(Object.values(report.executions).every((n) => n === 1)).toBe(true);
  });
});
