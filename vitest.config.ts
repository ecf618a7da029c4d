import { playwright } from "@vitest/browser-playwright";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

import { CHROMIUM } from "./test/helpers/chromium.js";
import { scaled } from "./test/helpers/time.js";

// Every timeout here is scaled by ISOAGENT_TEST_TIMEOUT_SCALE (default 1):
// a slow or loaded machine sets it instead of editing tests.

const NOT_NODE = ["test/workerd/**", "test/browser/**", "test/e2e/**", "test/kill/**"];

/**
 * The node files that run with modules of their own: each loads full schema
 * support, which stays loaded for the rest of its module graph, or needs the
 * core's module state as a fresh import leaves it (full support not loaded,
 * the canonical writer's buffer at its first size).
 */
const OWN_MODULES = [
  "test/schema/full-support.test.ts",
  "test/schema/fast-values-survivors.test.ts",
  "test/mcp/formats.test.ts",
  "test/json/reference.test.ts",
  "test/schema/fast.test.ts",
  "test/schema/differential.test.ts",
  "test/schema/compile.test.ts",
  "test/schema/suite.test.ts",
  "test/schema/formats.test.ts",
  "test/schema/patterns.test.ts",
  "test/pattern/finding.test.ts",
  "test/tools/schema-lint.test.ts",
  "test/docs/examples.test.ts",
  "test/testkit/fuzz.test.ts",
  "test/toolkit/contract.test.ts",
];

// A deadline against a hang, not a budget: CPU-bound tests (3,000 hashes,
// 10,000 fuzzed arguments) take 6 s on a 2-core machine running two busy
// loops beside the suite.
const NODE_TIMEOUTS = { testTimeout: scaled(60_000), hookTimeout: scaled(60_000) };

export default defineConfig({
  test: {
    // vitest's default is one worker fewer than the cores: one worker on a
    // 2-core machine, where most files wait on a browser, workerd or a
    // child process and two overlap well (measured: 485 s against 513 s).
    maxWorkers: Math.max(2, availableParallelism()),
    // `npm run coverage` (scripts/coverage.ts) turns it on, one project at a
    // time, and merges the projects' reports with the workerd project's
    // (instrumented Worker bundles, test/helpers/workerd.ts).
    coverage: {
      provider: "istanbul",
      include: ["src/**/*.ts", "adapters/**/*.ts"],
      exclude: ["**/*.d.ts"],
      reporter: ["json"],
      reportsDirectory: process.env["ISOAGENT_COVERAGE_DIR"] ?? "coverage/vitest",
    },
    projects: [
      {
        // The files share module graphs: a worker imports the core once, not
        // once a file (a third less CPU). test/setup/shared-modules.ts fails
        // a file that leaves module state or globals changed.
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: [...NOT_NODE, ...OWN_MODULES],
          environment: "node",
          isolate: false,
          globalSetup: ["test/setup/announce.ts"],
          setupFiles: ["test/setup/shared-modules.ts"],
          ...NODE_TIMEOUTS,
        },
      },
      {
        // The node files that need modules of their own (OWN_MODULES).
        test: {
          name: "node-isolated",
          include: OWN_MODULES,
          environment: "node",
          ...NODE_TIMEOUTS,
        },
      },
      {
        // Runs the built core inside workerd (plain miniflare, where code
        // generation from strings is refused), driven from Node.
        test: {
          name: "workerd",
          include: ["test/workerd/**/*.test.ts"],
          environment: "node",
          testTimeout: scaled(120_000),
          hookTimeout: scaled(60_000),
        },
      },
      {
        // Pages in headless Chromium driven by playwright-core: killed at a
        // boundary, racing, the example app end to end.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: scaled(120_000),
          hookTimeout: scaled(60_000),
        },
      },
      {
        // Real process kills: workerd's and Chromium's whole process groups
        // killed with SIGKILL and restarted on their storage (each test
        // bounded by ISOAGENT_KILL_SECONDS, its seed printed).
        test: {
          name: "kill",
          include: ["test/kill/**/*.test.ts"],
          environment: "node",
          testTimeout: scaled(300_000),
          hookTimeout: scaled(60_000),
        },
      },
      {
        // Real IndexedDB in headless Chromium.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          testTimeout: scaled(60_000),
          hookTimeout: scaled(60_000),
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
