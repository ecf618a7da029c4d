import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";

import { CHROMIUM } from "./test/helpers/chromium.js";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**", "test/browser/**", "test/e2e/**"],
          environment: "node",
          globalSetup: ["test/setup/announce.ts"],
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
        // Pages in headless Chromium driven by playwright-core: killed at a
        // boundary, racing, the example app end to end.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
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
