import { build } from "esbuild";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { CSP, serveStatic } from "../../scripts/lib/static-server.js";
import { CHROMIUM } from "./chromium.js";
import { scaled } from "./time.js";

export { CSP };

/** Bundles a page's script for the browser next to a copy of its HTML, in a fresh folder. */
export async function buildPage(html: string, entry: string, out = "harness.js"): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "isoagent-page-"));
  copyFileSync(html, join(dir, "index.html"));
  await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "browser", target: "es2022", outfile: join(dir, out), logLevel: "silent" });
  return dir;
}

/** Serves a folder on 127.0.0.1 with a CSP that forbids code generation. */
export const serve = (dir: string) => serveStatic(dir);

/**
 * Launches Debian's Chromium. Every context it opens waits (for a selector,
 * a navigation) up to 60 s, scaled by ISOAGENT_TEST_TIMEOUT_SCALE: a
 * deadline against a hang, which a loaded machine does not reach.
 */
export async function launch(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args: Parameters<Browser["newContext"]>) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(scaled(60_000));
    context.setDefaultNavigationTimeout(scaled(60_000));
    return context;
  };
  return browser;
}

/**
 * Logs a page into the console by the printed link (`/login#token=...`), and
 * waits for the console to be ready on `/`.
 */
export async function consoleLogin(page: import("playwright-core").Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/login#token=${token}`);
  await page.waitForURL(`${base}/`);
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
}
