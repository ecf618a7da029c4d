import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { regionOf } from "../helpers/package-imports.js";

/**
 * "A newcomer's program written from the README alone, with builder schemas,
 * typechecks with no annotations" (issue 15): the programs beside this file
 * are the README's examples, checked here to be shown verbatim in README.md
 * (with "isoagent" for the import path). tsc type-checks them in
 * `npm run typecheck` (tsconfig.test.json includes test/), and this test runs
 * them.
 */
const readmeRegion = (file: string): string => regionOf(new URL(file, import.meta.url));

// The driver's example is the README's first program; the tools' example opens docs/gate.md.
const pages = { "./newcomer-tools.ts": "../../docs/gate.md", "./newcomer-driver.ts": "../../README.md" } as const;

describe("the README's examples, as a newcomer copies them", () => {
  it("are shown verbatim in README.md", () => {
    for (const [file, page] of Object.entries(pages)) {
      const code = readmeRegion(file);
      expect(code.length, file).toBeGreaterThan(500);
      expect(readFileSync(new URL(page, import.meta.url), "utf8").includes("```ts\n" + code + "```\n"), `${file} is not in ${page} as it stands`).toBe(true);
    }
  });

  it("the tool example checks arguments as the README says", async () => {
    const { ok, r, readFile } = await import("./newcomer-tools.js");
    expect(ok).toEqual({ valid: true, args: { path: "notes.md", limit: null } });
    expect(r.valid).toBe(false);
    if (!r.valid) {
      expect(r.failure).toBe("invalid_json");
      expect(r.text).toBe(
        'Error: invalid arguments for read_file: the arguments are not valid JSON: duplicate key "path" at line 1, column 13\n' +
          "[Next: Call read_file again with its arguments as one JSON object that matches its input schema.]\n" +
          "[Recovery: Strict JSON only: no comments, trailing commas, repeated keys or unpaired surrogates. If you cannot write the arguments that way, stop and say why.]",
      );
    }
    const signal = new AbortController().signal;
    const context = { runId: "r", step: 1, callId: "c", attempt: 1, idempotencyKey: "k", fencingToken: 1, signal } as unknown as Parameters<typeof readFile.call>[1];
    expect(await readFile.call({ path: "notes.md", limit: 2 }, context)).toBe("# Notes\n- milk");
  });

  it("the driver example runs to completion after the approval", async () => {
    const { files, outcome } = await import("./newcomer-driver.js");
    expect(outcome.status).toBe("completed");
    expect(files.get("a.md")).toBe("hi");
  });
});
