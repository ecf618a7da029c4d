import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";

// Debian's Chromium, never a browser a test tool downloads. These flags keep
// it from reaching out to Google's services on a closed network.
export const CHROMIUM = {
  executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**", "test/browser/**"],
          environment: "node",
        },
      },
      {
        // Runs the built core inside workerd (plain miniflare, where code
        // generation from strings is refused), driven from Node.
        test: {
          name: "workerd",
          include: ["test/workerd/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real IndexedDB in headless Chromium.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          testTimeout: 60_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: CHROMIUM }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
