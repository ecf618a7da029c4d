/**
 * A rule written once (issue 28, item 6): each has one named home, and no
 * other file of src/ or adapters/ writes it again. The test data of the
 * testkit's conformance suites (journals of older versions, on purpose) is
 * not a writer.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, isSource } from "../scripts/lib/files.js";
import { ID_PATTERN, ID_PATTERN_SOURCE, isId, NOT_ID_CHARS, parseRunId } from "../src/ids.js";

const root = resolve(import.meta.dirname, "..");

const files = [...filesUnder(join(root, "src"), isSource), ...filesUnder(join(root, "adapters"), isSource)].map((f) => ({ file: relative(root, f), text: readFileSync(f, "utf8") }));

/** The files that write a rule (by a pattern of its text), but its home. */
const elsewhere = (pattern: RegExp, home: string, exempt: (file: string) => boolean = () => false) =>
  files.filter((f) => f.file !== home && !exempt(f.file) && pattern.test(f.text)).map((f) => f.file);

describe("rules written once", () => {
  it("the id pattern lives in src/ids.ts", () => {
    expect(files.length).toBeGreaterThan(200);
    expect(elsewhere(/A-Za-z0-9_\.:-/, "src/ids.ts")).toEqual([]);
    expect(files.find((f) => f.file === "src/ids.ts")!.text).toMatch(/A-Za-z0-9_\.:-/);
  });

  it("the id pattern's RegExp, its source and its complement say the same", () => {
    expect(ID_PATTERN.source).toBe(ID_PATTERN_SOURCE);
    for (const id of ["r", "run_1.a:b-c", "x".repeat(128)]) expect([isId(id), ID_PATTERN.test(id), parseRunId(id)]).toEqual([true, true, id]);
    for (const id of ["", "x".repeat(129), "a b", "é", "a/b", 7, null]) expect(isId(id)).toBe(false);
    expect("a b/é:c".replace(NOT_ID_CHARS, "_")).toBe("a_b__:c");
    expect(isId("a b/é:c".replace(NOT_ID_CHARS, "_"))).toBe(true);
  });

  it("events are written at JOURNAL_VERSION, never at a literal version", () => {
    const conformanceData = (f: string) => f.startsWith("src/testkit/");
    expect(elsewhere(/\bv: [0-9]+, at\b/, "src/journal/events.ts", conformanceData)).toEqual([]);
  });

  it("a path's segments are walked in src/paths.ts only: one rule for tools, policies and the shell", () => {
    const walk = /split\("\/"\)[\s\S]{0,120}"\.\."/;
    expect(elsewhere(walk, "src/paths.ts")).toEqual([]);
    expect(files.find((f) => f.file === "src/paths.ts")!.text).toMatch(walk);
  });

  it("a run's view starts from runSummary (src/journal/summary.ts): the driver's outcome, the HTTP API's run and the MCP run tool's", () => {
    const fields = /\brunId: s\.runId,\s*status: s\.status,\s*seq: s\.seq/;
    // The Durable Object's check is not a view of the run: what its storage holds beside it (lease, alarm, hosting).
    const objectCheck = (f: string) => f === "adapters/durable-object/check.ts";
    expect(elsewhere(fields, "src/journal/summary.ts", objectCheck)).toEqual([]);
    for (const f of ["src/driver/outcome.ts", "src/http/wire.ts", "src/mcp/server/runs.ts"]) expect(files.find((x) => x.file === f)!.text).toMatch(/\.\.\.runSummary\(s\)/);
  });

  it("the artifacts a journal names are read in src/journal/artifacts.ts: the run's state, what it may serve, what a bundle carries", () => {
    const reading = /\b(truncated|elided)\??\.artifact\b/;
    expect(elsewhere(reading, "src/journal/artifacts.ts", (f) => f === "src/driver/compaction.ts")).toEqual([]);
    expect(files.find((f) => f.file === "src/journal/artifacts.ts")!.text).toMatch(reading);
  });

  it("the error contract's text is written in src/tools/contract.ts: every refusal and failure is built with contract()", () => {
    const written = /\\n\[(Next|Recovery): /;
    expect(elsewhere(written, "src/tools/contract.ts")).toEqual([]);
    expect(files.find((f) => f.file === "src/tools/contract.ts")!.text).toMatch(written);
  });

  it("how often a write that met JOURNAL_CONFLICT is tried again is said in src/store/conflict.ts", () => {
    const counted = /JOURNAL_CONFLICT"\)\s*(\|\||&&)\s*attempt\s*[<>]=?\s*\d/;
    // An import judges the whole bundle again after a conflict: a rule of its own, with its own count.
    expect(elsewhere(counted, "src/store/conflict.ts", (f) => f === "src/move/import.ts")).toEqual([]);
    for (const f of ["src/driver/journal-writer.ts", "src/driver/operator.ts", "src/move/place.ts"]) expect(files.find((x) => x.file === f)!.text).toMatch(/triesAgain\(e, attempt\)/);
  });

  it("the base64 alphabet is written in src/base64.ts, with the core's encoder", () => {
    const alphabet = /ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\+\//;
    expect(elsewhere(alphabet, "src/base64.ts")).toEqual([]);
    expect(files.find((f) => f.file === "src/base64.ts")!.text).toMatch(alphabet);
  });
});
