/**
 * What the testkit's conformance suites share (the store's, the OTel
 * cursor's): the skips a user may ask for, each with its reason; the failure
 * a check throws; and the registration of a suite's cases with the user's
 * test runner, each case on a fresh thing under test, disposed of after it.
 */
import { IsoagentError } from "../errors.js";

/** Tests to skip, and why. A skip without a reason fails the suite. */
export interface ConformanceSkip {
  readonly tests: readonly string[];
  readonly reason: string;
}

/** A check of the suite that failed. Code `CONFORMANCE_FAILED`. */
export class ConformanceFailure extends IsoagentError {
  constructor(message: string) {
    super("CONFORMANCE_FAILED", message);
    this.name = "ConformanceFailure";
  }
}

/** What a suite's runner is given (see `StoreConformanceOptions`). */
interface SuiteOptions<T> {
  readonly name: string;
  readonly create: () => T | Promise<T>;
  readonly skip?: readonly ConformanceSkip[];
  readonly test: (name: string, fn: () => Promise<void>) => void;
}

/**
 * Registers every case of `cases` with `options.test`: a skip names a real
 * case and gives a reason, or `runner` (the suite's function, named in the
 * error) throws before any case is registered.
 */
export function registerCases<T extends { dispose?(): Promise<void> }>(runner: string, options: SuiteOptions<T>, cases: Readonly<Record<string, (t: T) => Promise<void>>>): void {
  const skipped = new Map<string, string>();
  for (const s of options.skip ?? []) {
    if (typeof s.reason !== "string" || s.reason.trim() === "") {
      throw new Error(`${runner}(${options.name}): a skip without a reason (${s.tests.join(", ")})`);
    }
    for (const t of s.tests) {
      if (!(t in cases)) throw new Error(`${runner}(${options.name}): no case named ${JSON.stringify(t)} to skip`);
      skipped.set(t, s.reason);
    }
  }
  for (const [name, run] of Object.entries(cases)) {
    const reason = skipped.get(name);
    if (reason !== undefined) {
      options.test(`${options.name}: ${name} (skipped: ${reason})`, async () => {});
      continue;
    }
    options.test(`${options.name}: ${name}`, async () => {
      const t = await options.create();
      try {
        await run(t);
      } finally {
        await t.dispose?.();
      }
    });
  }
}
