import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**"],
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
    ],
  },
});
