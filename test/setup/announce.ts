/**
 * Says, at the start of `npm test`, which tests it skips and why: the
 * third-party suites when they are not beside the project, Chromium when it
 * is not installed. (CI requires both: ISOAGENT_REQUIRE_SUITES=1 and
 * ISOAGENT_REQUIRE_BROWSER=1 make them failures instead.)
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CHROMIUM } from "../helpers/chromium.js";

export default function announce(): void {
  const base = resolve(process.env["ISOAGENT_SUITES"] ?? "../shared/suites");
  const missing = ["JSON-Schema-Test-Suite", "JSONTestSuite"].filter((s) => !existsSync(resolve(base, s)));
  if (missing.length > 0) {
    console.log(
      `isoagent: skipping the tests that read ${missing.map((s) => `${base}/${s}`).join(" and ")}: not found (third-party suites, see docs/testing.md, "Conformance suites"; CI requires them)`,
    );
  }
  if (!existsSync(CHROMIUM.executablePath)) {
    console.log(`isoagent: skipping the Chromium tests (browser, e2e): ${CHROMIUM.executablePath} not found (apt-get install -y chromium; CI requires it)`);
  }
}
