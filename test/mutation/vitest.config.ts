/**
 * The tests `npm run mutate` runs against each mutant: the node project,
 * without the tests that run the code in other processes (`npm start`, the
 * examples: a mutant is switched on in the test's own process only) or that
 * bundle the sources (the platform check would flag Stryker's own
 * instrumentation), or that need a module graph of their own (the core
 * before full schema support is loaded: with one graph for every file,
 * another file may have loaded it first).
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "mutation",
    include: ["test/**/*.test.ts"],
    exclude: ["test/workerd/**", "test/browser/**", "test/e2e/**", "test/examples.test.ts", "test/platform.test.ts", "test/types.test.ts", "test/schema/full-support.test.ts"],
    environment: "node",
    // Instrumented code (every mutant behind a switch) runs several times slower.
    testTimeout: 60_000,
    // One module graph for every test file: each mutant runs its covering
    // tests in several files, and a fresh worker per file (~350 ms each)
    // would cost more than the tests. The suite passes either way.
    isolate: false,
  },
});
