import { existsSync } from "node:fs";

/**
 * Debian's Chromium, never a browser a test tool downloads. These flags keep
 * it from reaching out to Google's services on a closed network.
 */
export const CHROMIUM = {
  executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
};

/**
 * Whether Chromium is here. CI sets ISOAGENT_REQUIRE_BROWSER=1, which makes a
 * missing browser a failure instead of a skip.
 */
export function chromiumPresent(): boolean {
  const present = existsSync(CHROMIUM.executablePath);
  if (!present && process.env["ISOAGENT_REQUIRE_BROWSER"] === "1") throw new Error(`Chromium is missing at ${CHROMIUM.executablePath} (ISOAGENT_REQUIRE_BROWSER=1)`);
  return present;
}
