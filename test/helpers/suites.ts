import { existsSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The third-party suites live beside the project, in ../shared/suites (never
 * copied in). CI sets ISOAGENT_REQUIRE_SUITES=1, so a missing suite fails
 * there; a developer without them sees the tests skipped, with the reason.
 */
export function suiteDir(...parts: string[]): { dir: string; present: boolean } {
  const dir = resolve(process.env["ISOAGENT_SUITES"] ?? "../shared/suites", ...parts);
  const present = existsSync(dir);
  if (!present && process.env["ISOAGENT_REQUIRE_SUITES"] === "1") {
    throw new Error(`the conformance suite ${dir} is missing (ISOAGENT_REQUIRE_SUITES=1)`);
  }
  return { dir, present };
}
