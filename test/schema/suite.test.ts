import { describe, expect, it } from "vitest";
import { runSchemaConformance } from "../../scripts/lib/schema-conformance.js";
import { loadFullSchemaSupport } from "../../src/index.js";
import { suiteDir } from "../helpers/suites.js";

// The suite needs full schema support (unevaluated*, formats, metaschemas).
await loadFullSchemaSupport();

const { dir, present } = suiteDir("JSON-Schema-Test-Suite");

describe.skipIf(!present)("JSON Schema Test Suite, required tests (../shared/suites)", () => {
  const reports = present ? runSchemaConformance(dir) : [];
  const byDir = Object.fromEntries(reports.map((r) => [r.dir, r]));

  it("gives no wrong answer: every test passes or its schema is refused with a reason", () => {
    for (const r of reports) expect(r.failed, r.dir).toEqual([]);
  });

  it("refuses only what refers outside itself or what the validator cannot evaluate", () => {
    for (const r of reports) {
      for (const c of r.refused) expect(["refers outside itself", "unsupported keyword"], `${c.file}: ${c.message}`).toContain(c.rule);
    }
  });

  it("draft7: 904 pass, the 11 remote cases (23 tests) are refused as external", () => {
    const r = byDir["draft7"]!;
    expect(r.passed).toBe(904);
    expect(r.refusedByRule).toEqual({ "refers outside itself": 23 });
    expect(r.refused.length).toBe(11);
  });

  it("draft2020-12: 1,246 pass; remotes refused as external; one truly dynamic $dynamicRef refused", () => {
    const r = byDir["draft2020-12"]!;
    expect(r.passed).toBe(1246);
    expect(r.refusedByRule).toEqual({ "refers outside itself": 49, "unsupported keyword": 4 });
    expect(r.refused.filter((c) => c.rule === "unsupported keyword").map((c) => c.caseDescription)).toEqual(["multiple dynamic paths to the $dynamicRef keyword"]);
  });
});

describe("the conformance runner on other drafts (a fixture laid out as upstream)", () => {
  const reports = runSchemaConformance("test/fixtures/schema-suite");
  it("maps draft4 and draft2019-09 folders to their drafts, and skips unknown folders", () => {
    expect(reports.map((r) => [r.dir, r.draft ?? null])).toEqual([
      ["draft-next", null],
      ["draft2019-09", "2019-09"],
      ["draft4", "draft-04"],
    ]);
  });
  it("evaluates them with their draft's rules", () => {
    const byDir = Object.fromEntries(reports.map((r) => [r.dir, r]));
    expect(byDir["draft4"]).toMatchObject({ passed: 5, failed: [], refusedByRule: { "refers outside itself": 1 } });
    expect(byDir["draft2019-09"]).toMatchObject({ passed: 4, failed: [], refusedByRule: {} });
  });
});
