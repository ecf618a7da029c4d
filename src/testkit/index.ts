/**
 * isoagent/testkit, for tool and adapter authors: the store and export
 * cursor conformance suites, argument fuzzing, crash tests around a tool's
 * effect and the driver's fault hooks they use (`Crash`, `Faults`), and a
 * manual clock and sequential ids for tests and demos.
 *
 * @module
 */
export { runStoreConformance, STORE_CASES, type ConformanceSkip, type StoreCase, type StoreConformanceOptions, type StoreUnderTest } from "./store-conformance.js";
export { runCursorConformance, CURSOR_CASES, type CursorCase, type CursorConformanceOptions, type CursorUnderTest } from "./cursor-conformance.js";
export { manualClock, type ManualClock } from "../clock.js";
export { sequentialIds } from "../ids.js";
export { fuzz, seededRandom, type FuzzOptions, type FuzzReport, type FuzzSample, type SampleKind } from "./fuzz.js";
export {
  baselineOf,
  CRASH_POINTS,
  crashTest,
  judge,
  type Baseline,
  type CrashPoint,
  type CrashResult,
  type CrashScenario,
  type CrashTestOptions,
  type Execution,
  type RunRecord,
  type ScenarioWorld,
} from "./crash.js";
export { listScenario, type WorldStorage } from "./scenarios.js";
export { verifyRun, type RunVerification } from "./verify.js";
export { findStranded, type FindStrandedOptions, type StrandedRun } from "./stranded.js";
export { Crash, isCrash, type FaultPoint, type Faults } from "../driver/types.js";
