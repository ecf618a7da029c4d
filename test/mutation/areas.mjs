// @ts-check
/**
 * The scope of `npm run mutate` (issue 21), in areas. Each area's mutants
 * are tested against the tests of that area only (Stryker's `testFiles`):
 * the tests that should kill them, and few enough that a mutant that
 * survives costs seconds, not the whole suite. Each area keeps its own
 * incremental results, so `npm run mutate -- <area>` reruns one.
 *
 * The session (src/driver/session.ts and its layers) is in scope only
 * where it writes its journal, stops, recovers and executes calls: the
 * line ranges of those methods, found by name when the config loads.
 */
import { readFileSync } from "node:fs";

/**
 * Stryker mutation ranges (`file:start-end`) of a class's methods, by name:
 * from the line that declares each to the first line after it that closes a
 * member at the same indentation.
 */
function methods(file, names) {
  const lines = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8").split("\n");
  return names.map((name) => {
    const start = lines.findIndex((l) => new RegExp(`^  (?:(?:private|protected|static|async|readonly) )*${name}\\(`).test(l));
    if (start < 0) throw new Error(`${file} has no method ${name}`);
    const end = lines.findIndex((l, k) => k > start && l === "  }");
    return `${file}:${start + 1}-${end + 1}`;
  });
}

export const AREAS = {
  json: {
    what: "the strict JSON boundary, canonical JSON, SHA-256",
    mutate: ["src/json/**/*.ts", "!src/json/index.ts"],
    tests: ["test/json/**/*.test.ts", "test/schema/compile.test.ts", "test/tools/check-args.test.ts"],
  },
  schema: {
    what: "the fast schema evaluator (src/schema/fast.ts, and the modules it was split into: fast-core, fast-objects, fast-values, fast-support)",
    mutate: ["src/schema/fast.ts", "src/schema/fast-core.ts", "src/schema/fast-objects.ts", "src/schema/fast-values.ts", "src/schema/fast-support.ts"],
    tests: ["test/schema/**/*.test.ts", "test/tools/**/*.test.ts", "test/testkit/fuzz.test.ts"],
  },
  policy: {
    what: "policy: rulesPolicy, allOf, evaluatePolicy, workspacePolicy, pathScopePolicy, globs, and the one path rule they share with the tools and the shell (src/paths.ts)",
    mutate: ["src/policy/**/*.ts", "!src/policy/index.ts", "src/paths.ts"],
    tests: ["test/policy/**/*.test.ts", "test/gate/**/*.test.ts", "test/toolkit/**/*.test.ts"],
  },
  store: {
    what: "the Store port's shared checks and the memory store",
    mutate: ["src/store/**/*.ts", "!src/store/index.ts"],
    // loadState (store/load.ts since issue 28) is exercised by the driver's snapshot and compaction tests; the
    // import and abandon rules (store/copies.ts) by the moves' tests.
    tests: [
      "test/store/**/*.test.ts",
      "test/driver/lease-race.test.ts",
      "test/testkit/crash.test.ts",
      "test/driver/snapshots.test.ts",
      "test/driver/compaction.test.ts",
      "test/move/move.test.ts",
      "test/move/bundle.test.ts",
      "test/move/handover.test.ts",
    ],
  },
  driver: {
    what: "the gate, recovery, execution (src/call/: gate.ts, execute.ts, classify.ts, invoke.ts; src/driver/: recovery.ts, and the session where it executes and recovers)",
    mutate: [
      "src/call/gate.ts",
      "src/driver/recovery.ts",
      "src/call/execute.ts",
      // the classification of a call's outcome (split out of execute.ts, shared with isoagent/mcp's server)
      "src/call/classify.ts",
      // one call of a tool under its timeout (split out of execute.ts)
      "src/call/invoke.ts",
      // the session: the journal writer's replay after a conflict, how a drive
      // stops and its last flush, recovering a started call, executing calls
      ...methods("src/driver/journal-writer.ts", ["flush", "replayOnto"]),
      ...methods("src/driver/session.ts", ["drive"]),
      ...methods("src/driver/session-calls.ts", ["recoverCall", "execute", "fault", "answerFor"]),
    ],
    tests: ["test/driver/**/*.test.ts", "test/gate/**/*.test.ts", "test/testkit/crash.test.ts", "test/http/**/*.test.ts"],
  },
};
