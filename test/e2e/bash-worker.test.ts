/**
 * Issue 26, finding 2, in Chromium: isoagent/toolkit/bash as a browser
 * resolves it runs its interpreter in a module Web Worker, terminated at the
 * deadline, under a CSP without 'unsafe-eval' (with `worker-src 'self'`).
 * The page is bundled with esbuild, which does not bundle
 * `new Worker(new URL(...), import.meta.url)` itself: the worker's module is
 * built beside the page's chunks, as docs/tools/bash.md tells esbuild users
 * to do (Vite and webpack 5 do it on their own). A second folder without the
 * worker's module shows what happens when an application forgets it: the
 * shell says so once and runs in the page's thread, under the limits
 * derived from the timeout.
 */
import { build } from "esbuild";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_ZLIB } from "../../scripts/lib/bundle.js";
import { buildWebBashWorker } from "../helpers/bash-worker.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { launch, serve } from "../helpers/pages.js";

const present = chromiumPresent();
let browser: Browser;
const sites: Awaited<ReturnType<typeof serve>>[] = [];

async function page(withWorker: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bash-worker-page-"));
  copyFileSync("test/e2e/pages/bash-worker/index.html", join(dir, "index.html"));
  await build({
    entryPoints: { harness: "test/e2e/pages/bash-worker/harness.ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: dir,
    alias: NO_ZLIB.alias!,
    logLevel: "silent",
  });
  if (withWorker) await buildWebBashWorker(dir);
  const site = await serve(dir);
  sites.push(site);
  return site.url;
}

beforeAll(async () => {
  if (!present) return;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  for (const s of sites) await s.close();
});

type PageResult = {
  outcomes: { observation: { type: string; failure?: string; error?: string; content?: string }; fired: number; status: string; stopped: string | undefined }[];
  files: Record<string, string>;
  violations: string[];
  warnings: string[];
  workers: boolean;
};

async function runPage(url: string): Promise<PageResult> {
  const p = await browser.newPage();
  const errors: string[] = [];
  p.on("pageerror", (e) => errors.push(e.message));
  const res = await p.goto(url);
  expect(res?.headers()["content-security-policy"]).toContain("worker-src 'self'");
  expect(res?.headers()["content-security-policy"]).not.toContain("unsafe-eval");
  await p.waitForSelector("body[data-done]", { state: "attached", timeout: 120_000 });
  expect(await p.evaluate(() => document.body.dataset["done"])).toBe("yes");
  const out = (await p.evaluate(() => (window as unknown as { result: unknown }).result)) as PageResult;
  expect(errors).toEqual([]);
  await p.close();
  return out;
}

const TIMEOUT_TEXT =
  "Error: the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed\n[Next: Make it finish sooner: no endless loops, fewer files or smaller inputs per call.]\n[Recovery: If the work cannot be made smaller, stop and say so.]";

describe.skipIf(!present)("bash in Chromium: the interpreter in a Web Worker", () => {
  it('a sed loop that never yields and a bash loop: failure "timeout", the lease kept, the page\'s timers fired during the calls; files over IndexedDB; no CSP violation', async () => {
    const out = await runPage(await page(true));
    expect(out.workers).toBe(true);
    expect(out.warnings).toEqual([]);
    expect(out.violations).toEqual([]);
    const [pipeline, outside, sed, loop, cut] = out.outcomes;
    expect(pipeline!.observation).toEqual({ type: "result", content: "exit code: 0\n--- stdout ---\n2\nb.txt\nnotes\n--- stderr ---\n(empty)\n[Committed 1 file change: created b.txt (+1 -0).]" });
    expect(outside!.observation.content).toContain("[Refused by the shell: write /etc/passwd (outside the workspace).]");
    for (const o of [sed!, loop!]) {
      expect(o.observation).toEqual({ type: "tool_error", failure: "timeout", error: TIMEOUT_TEXT });
      expect([o.status, o.stopped]).toEqual(["completed", undefined]);
      // The call lasted its deadline (2.4 s): a chain of 20 ms timers ran on meanwhile; a blocked page runs none.
      expect(o.fired).toBeGreaterThanOrEqual(10);
    }
    expect(cut!.observation).toEqual({ type: "result", content: "exit code: 0\n--- stdout ---\nB\n--- stderr ---\n(empty)\n[No files changed.]" });
    // The loop's change was not committed.
    expect(out.files).toEqual({ "b.txt": "x\n", "notes/a.md": "one\ntwo\n" });
  });

  it("without the worker's module beside the page: one warning, and the shell runs in the page's thread under the limits derived from the timeout", async () => {
    const out = await runPage(await page(false));
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toMatch(
      /^isoagent: bash's interpreter could not start in a Web Worker \(.+\); commands run in the page's thread instead, under limits derived from their timeouts \(see docs\/tools\/bash\.md\)$/,
    );
    const [pipeline, , sed, loop] = out.outcomes;
    expect(pipeline!.observation).toMatchObject({ type: "result", content: expect.stringContaining("[Committed 1 file change: created b.txt (+1 -0).]") });
    // In the page's thread the limits stop them (a blocked stretch, within half the timeout by the bench's measure).
    expect(sed!.observation).toMatchObject({ type: "result", content: expect.stringContaining("sed: command execution exceeded maximum iterations") });
    expect(loop!.observation.type === "result" ? loop!.observation.content : loop!.observation.error).toMatch(/too many (iterations|commands)|did not finish within its time limit/);
    expect(out.violations).toEqual([]);
  });
});
