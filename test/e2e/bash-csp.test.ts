/**
 * bash in Chromium under the example's CSP (no 'unsafe-eval'): the page
 * is bundled with code splitting (just-bash a lazily loaded chunk, node:zlib
 * aliased to isoagent's stub, as an application bundles it) and served by
 * the static server that sends the CSP with every file. The shell runs over
 * IndexedDB; the page reports every CSP violation it saw.
 */
import { build } from "esbuild";
import { copyFileSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_ZLIB } from "../../scripts/lib/bundle.js";
import { chromiumPresent } from "../helpers/chromium.js";
import { launch, serve } from "../helpers/pages.js";

const present = chromiumPresent();
let browser: Browser;
let site: Awaited<ReturnType<typeof serve>>;
let chunks: string[] = [];

beforeAll(async () => {
  if (!present) return;
  const dir = mkdtempSync(join(tmpdir(), "isoagent-bash-page-"));
  copyFileSync("test/e2e/pages/bash/index.html", join(dir, "index.html"));
  await build({
    entryPoints: { harness: "test/e2e/pages/bash/harness.ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: dir,
    alias: NO_ZLIB.alias!,
    logLevel: "silent",
  });
  chunks = readdirSync(dir).filter((f) => f.endsWith(".js"));
  site = await serve(dir);
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe.skipIf(!present)("bash in Chromium under a CSP without 'unsafe-eval'", () => {
  it("loads just-bash lazily from a chunk of its own and runs over IndexedDB: pipelines, commits, refusals, the deadline; no CSP violation", async () => {
    expect(chunks.length).toBeGreaterThan(1);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const loaded0 = new Set<string>();
    page.on("request", (r) => loaded0.add(new URL(r.url()).pathname.slice(1)));
    const res = await page.goto(site.url);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    expect(res?.headers()["content-security-policy"]).not.toContain("unsafe-eval");
    // The page runs the commands itself, in its own tasks: a test's evaluate is not held to the page's CSP.
    await page.waitForSelector("body[data-done]", { state: "attached", timeout: 60_000 });
    expect(await page.evaluate(() => document.body.dataset["done"])).toBe("yes");
    const out = (await page.evaluate(() => window.result))!;
    expect(out.texts).toEqual([
      "exit code: 0\n--- stdout ---\n2\nb.txt\nnotes\n--- stderr ---\n(empty)\n[Committed 1 file change: created b.txt (+1 -0).]",
      "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\nbash: /etc/passwd: Permission denied\n[The shell stopped the command at that failed write; what it printed before was lost.]\n[Refused by the shell: write /etc/passwd (outside the workspace).]\n[No files changed.]",
      "Error: the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed\n[Next: Make it finish sooner: no endless loops, fewer files or smaller inputs per call.]\n[Recovery: If the work cannot be made smaller, stop and say so.]",
      "exit code: 0\n--- stdout ---\nB\n--- stderr ---\n(empty)\n[No files changed.]",
    ]);
    expect(out.files).toEqual({ "b.txt": "x\n", "notes/a.md": "one\ntwo\n" });
    // The page refuses eval, and its listener saw that refusal: so no violation after it means bash caused none.
    expect(out.evalProbe).toEqual({ refused: true, reported: ["script-src: eval"] });
    expect(out.violations).toEqual([]);
    expect(errors).toEqual([]);
    // The page fetched the shell's runner and just-bash's browser build as chunks of their own (on the first command).
    expect([...loaded0].filter((f) => /^(run|browser)-[A-Z0-9]+\.js$/.test(f)).length).toBe(2);
    console.log(`bash in Chromium: first command ${out.firstMs.toFixed(0)} ms (lazy load included); chunks ${chunks.join(", ")}; fetched: ${[...loaded0].join(", ")}`);
  });
});
