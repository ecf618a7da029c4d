/**
 * Runs the strict JSON boundary over a JSONTestSuite `test_parsing` folder,
 * reading every file as bytes (some are invalid UTF-8 or UTF-16 on purpose).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tryParseJson } from "../../src/json/index.js";

/** The two `y_` files that hold a repeated key: refused by design. */
export const EXPECTED_Y_REFUSALS = new Set(["y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"]);

export interface FileOutcome {
  readonly file: string;
  readonly accepted: boolean;
  /** The refusal's code and message, when refused. */
  readonly refusal?: string;
}

export interface JsonConformanceReport {
  readonly classes: Record<"y" | "n" | "i", { accepted: FileOutcome[]; rejected: FileOutcome[] }>;
  /** y_ files refused other than the expected two, and n_ files accepted. */
  readonly violations: string[];
}

export function runJsonConformance(dir: string): JsonConformanceReport {
  const files = readdirSync(dir)
    .filter((f) => /^[yni]_.*\.json$/.test(f))
    .sort();
  if (files.length === 0) throw new Error(`no y_, n_ or i_ files in ${dir}`);
  const classes: JsonConformanceReport["classes"] = {
    y: { accepted: [], rejected: [] },
    n: { accepted: [], rejected: [] },
    i: { accepted: [], rejected: [] },
  };
  const violations: string[] = [];
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const r = tryParseJson(bytes);
    const outcome: FileOutcome = r.ok ? { file, accepted: true } : { file, accepted: false, refusal: `${r.error.code}: ${r.error.message}` };
    const cls = file[0] as "y" | "n" | "i";
    (r.ok ? classes[cls].accepted : classes[cls].rejected).push(outcome);
    if (cls === "y" && !r.ok && !EXPECTED_Y_REFUSALS.has(file)) violations.push(`${file} must be accepted (${outcome.refusal})`);
    if (cls === "n" && r.ok) violations.push(`${file} must be refused`);
  }
  for (const file of EXPECTED_Y_REFUSALS) {
    if (classes.y.accepted.some((o) => o.file === file)) violations.push(`${file} must be refused (repeated key)`);
  }
  return { classes, violations };
}
