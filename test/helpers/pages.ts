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

/** A console login link with a fresh one-time code (`POST /login/code` with an operator token), as `npm start` prints one. */
export async function loginLink(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/login/code`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 201) throw new Error(`POST /login/code answered ${res.status}: ${await res.text()}`);
  return `${base}/login#code=${((await res.json()) as { code: string }).code}`;
}

/**
 * Logs a page into the console by a login link (`/login#code=...`, a fresh
 * one-time code), and waits for the console to be ready on `/`.
 */
export async function consoleLogin(page: import("playwright-core").Page, base: string, token: string): Promise<void> {
  await page.goto(await loginLink(base, token));
  await page.waitForURL(`${base}/`);
  await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
}

/**
 * What is wider than the window: the page itself when it scrolls sideways
 * (scrollWidth past clientWidth), and every element whose content overflows
 * its box (a long id in a card), but those that scroll on purpose (overflow
 * auto or scroll) and inline ones. Empty when everything fits.
 */
export function overflowing(page: import("playwright-core").Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const d = document.documentElement;
    if (d.scrollWidth > d.clientWidth) out.push(`the page: ${d.scrollWidth} > ${d.clientWidth}`);
    for (const e of document.querySelectorAll<HTMLElement>("body *")) {
      const style = getComputedStyle(e);
      if (style.display === "inline" || style.display === "none" || style.overflowX === "auto" || style.overflowX === "scroll" || e.clientWidth === 0) continue;
      if (e.scrollWidth > e.clientWidth + 1) out.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.className ? `.${e.className}` : ""}: ${e.scrollWidth} > ${e.clientWidth}`);
    }
    return out;
  });
}
