/**
 * Issue 26, finding 7, end to end in Chromium against `npm start`: the
 * console's login link that `npm start` prints leaves no long-lived secret
 * in the browser's files, and logging out ends the session on the server.
 *
 * Before: the link was `/login#token=<the token>`. The page wiped it from
 * the address bar, but Chromium had already written the link to its
 * History and Sessions files, where the token stayed. And a logout only
 * cleared the cookie in the browser: the same cookie value kept working
 * for 12 hours.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, chromiumPresent } from "../helpers/chromium.js";
import { processesRunning } from "../helpers/processes.js";
import { scaled, until } from "../helpers/time.js";
import { startGroup, type Group } from "../kill/harness.js";

const present = chromiumPresent();
let worker: Group | undefined;
let base = "";
let link = "";
let data = "";

beforeAll(async () => {
  if (!present) return;
  data = mkdtempSync(join(tmpdir(), "isoagent-login-e2e-"));
  const started = await startGroup(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts", "--port", "0", "--data", data], /console:\s+((http:\/\/[^/\s]+)\/login#\S+)/, {
    timeoutMs: scaled(120_000),
  });
  worker = started.group;
  link = started.match[1]!;
  base = started.match[2]!;
}, scaled(150_000));

afterAll(async () => {
  await worker?.kill();
  if (data !== "") rmSync(data, { recursive: true, force: true });
});

/** Every file under a folder. */
function files(at: string): string[] {
  return readdirSync(at).flatMap((name) => {
    const p = join(at, name);
    let s;
    try {
      s = statSync(p);
    } catch {
      return []; // a lock or socket gone meanwhile
    }
    return s.isDirectory() ? files(p) : s.isFile() ? [p] : [];
  });
}

/** A file's bytes, or none when it went meanwhile (Chromium removes its locks and temporary files as it ends). */
function contents(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw e;
  }
}

describe.skipIf(!present)("npm start's login link in Chromium, on a persistent profile", () => {
  it("logs in, and leaves the token nowhere in the profile's files once Chromium has closed; a logout ends the session for every copy of its cookie", async () => {
    const token = readFileSync(join(data, "token"), "utf8").trim();
    const profile = mkdtempSync(join(tmpdir(), "isoagent-login-profile-"));
    try {
      const open = async () => {
        const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM.executablePath, args: CHROMIUM.args, headless: true });
        context.setDefaultTimeout(scaled(60_000));
        return { context, page: context.pages()[0] ?? (await context.newPage()) };
      };
      let { context, page } = await open();
      await page.goto(link);
      await page.waitForURL(`${base}/`);
      await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
      // Logged in: the console lists the demo run npm start made.
      await page.waitForSelector("#runs li[data-run]");
      const cookie = (await context.cookies(base)).find((c) => c.name === "isoagent_session")!;
      expect(cookie.value).not.toContain(token);
      await context.close();
      // Every process on the profile gone, Chromium has written its History, Sessions, Cookies...: the token is in none of them.
      await until("every process on the profile to be gone", () => !processesRunning(`--user-data-dir=${profile}`), { timeoutMs: 10_000 });
      const found = files(profile).filter((f) => contents(f).includes(token));
      expect(found.map((f) => f.slice(profile.length))).toEqual([]);
      // The grep would see it: the profile keeps the link the browser visited.
      expect(files(profile).some((f) => contents(f).includes(`${base}/login`))).toBe(true);

      // Back on the profile: still logged in (the cookie was kept), but the printed link, visited again, logs nobody in: its code was spent.
      ({ context, page } = await open());
      const asCopy = { cookie: `isoagent_session=${cookie.value}` };
      expect((await fetch(`${base}/runs`, { headers: asCopy })).status).toBe(200);
      await page.goto(link);
      await page.waitForSelector("#error:not([hidden])");
      expect(await page.locator("#error").textContent()).toMatch(/used already, or has expired/);
      await page.goto(`${base}/`);
      await page.waitForSelector("body[data-ready=yes]", { state: "attached" });
      // Log out from the page: the cookie's value, sent again from anywhere, is refused at once.
      await page.click("#logout");
      await page.waitForURL(`${base}/login`);
      expect((await fetch(`${base}/runs`, { headers: asCopy })).status).toBe(401);
      await context.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
