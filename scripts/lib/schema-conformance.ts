/**
 * Runs the schema compiler over a checkout of the JSON Schema Test Suite laid
 * out as upstream: `tests/<draft>/*.json`, required files only (not
 * `optional/`). `remotes/` is never read: a schema that reaches it is refused.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { compileSchema, SchemaError, type SchemaDraft } from "../../src/schema/index.js";

const DRAFT_DIRS: Record<string, SchemaDraft> = {
  draft4: "draft-04",
  draft6: "draft-06",
  draft7: "draft-07",
  "draft2019-09": "2019-09",
  "draft2020-12": "2020-12",
};

export interface CaseFailure {
  readonly file: string;
  readonly caseDescription: string;
  readonly testDescription: string;
  readonly expected: boolean;
}

export interface CaseRefusal {
  readonly file: string;
  readonly caseDescription: string;
  readonly tests: number;
  readonly rule: string;
  readonly message: string;
}

export interface DraftReport {
  readonly dir: string;
  readonly draft: SchemaDraft | undefined;
  passed: number;
  failed: CaseFailure[];
  refused: CaseRefusal[];
  /** Tests refused, counted by rule. */
  readonly refusedByRule: Record<string, number>;
}

interface SuiteCase {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

export function runSchemaConformance(suiteDir: string): DraftReport[] {
  const testsDir = join(suiteDir, "tests");
  if (!existsSync(testsDir)) throw new Error(`no tests/ folder in ${suiteDir}`);
  const reports: DraftReport[] = [];
  for (const dir of readdirSync(testsDir).sort()) {
    if (!statSync(join(testsDir, dir)).isDirectory()) continue;
    const draft = DRAFT_DIRS[dir];
    const report: DraftReport = { dir, draft, passed: 0, failed: [], refused: [], refusedByRule: {} };
    reports.push(report);
    if (draft === undefined) continue;
    const files = readdirSync(join(testsDir, dir))
      .filter((f) => f.endsWith(".json"))
      .sort();
    for (const file of files) {
      const cases = JSON.parse(readFileSync(join(testsDir, dir, file), "utf8")) as SuiteCase[];
      for (const c of cases) {
        let compiled;
        try {
          compiled = compileSchema(c.schema, { defaultDraft: draft });
        } catch (e) {
          if (!(e instanceof SchemaError)) throw e;
          report.refused.push({ file, caseDescription: c.description, tests: c.tests.length, rule: e.rule, message: e.message });
          report.refusedByRule[e.rule] = (report.refusedByRule[e.rule] ?? 0) + c.tests.length;
          continue;
        }
        for (const t of c.tests) {
          const valid = compiled.validate(t.data as never).valid;
          if (valid === t.valid) report.passed++;
          else report.failed.push({ file, caseDescription: c.description, testDescription: t.description, expected: t.valid });
        }
      }
    }
  }
  return reports;
}

/** One format file of `optional/format/` run with formats asserted. */
export interface FormatFileReport {
  readonly file: string;
  passed: number;
  failed: CaseFailure[];
  refused: CaseRefusal[];
}

/** The `optional/format/` tests of one draft folder. */
export interface FormatDraftReport {
  readonly dir: string;
  readonly draft: SchemaDraft;
  readonly files: FormatFileReport[];
}

/**
 * Runs `tests/<draft>/optional/format/*.json` with `assertFormats: true`, as
 * tool schemas are compiled: every answer is a format checker's, and a
 * standard format that cannot be checked exactly is refused, never guessed.
 */
export function runFormatConformance(suiteDir: string): FormatDraftReport[] {
  const testsDir = join(suiteDir, "tests");
  if (!existsSync(testsDir)) throw new Error(`no tests/ folder in ${suiteDir}`);
  const reports: FormatDraftReport[] = [];
  for (const dir of readdirSync(testsDir).sort()) {
    const draft = DRAFT_DIRS[dir];
    const formatDir = join(testsDir, dir, "optional", "format");
    if (draft === undefined || !existsSync(formatDir)) continue;
    const report: FormatDraftReport = { dir, draft, files: [] };
    reports.push(report);
    for (const file of readdirSync(formatDir)
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const r: FormatFileReport = { file, passed: 0, failed: [], refused: [] };
      report.files.push(r);
      for (const c of JSON.parse(readFileSync(join(formatDir, file), "utf8")) as SuiteCase[]) {
        let compiled;
        try {
          compiled = compileSchema(c.schema, { defaultDraft: draft, assertFormats: true });
        } catch (e) {
          if (!(e instanceof SchemaError)) throw e;
          r.refused.push({ file, caseDescription: c.description, tests: c.tests.length, rule: e.rule, message: e.message });
          continue;
        }
        for (const t of c.tests) {
          if (compiled.validate(t.data as never).valid === t.valid) r.passed++;
          else r.failed.push({ file, caseDescription: c.description, testDescription: t.description, expected: t.valid });
        }
      }
    }
  }
  return reports;
}
