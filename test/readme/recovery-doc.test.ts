import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { regionOf } from "../helpers/package-imports.js";

/**
 * docs/recovery.md's example is a real program: shown verbatim on the page
 * (with "isoagent" for the import path), type-checked by `npm run
 * typecheck`, and run here.
 */
const region = (file: string): string => regionOf(new URL(file, import.meta.url));

describe("docs/recovery.md's example", () => {
  it("is shown verbatim on the page", () => {
    const page = readFileSync(new URL("../../docs/recovery.md", import.meta.url), "utf8");
    const code = region("./recovery-example.ts");
    expect(code.length).toBeGreaterThan(500);
    expect(page.includes("```ts\n" + code + "```\n"), "the example is not in docs/recovery.md as it stands").toBe(true);
  });

  it("runs as its comments say: asked after 2 interruptions, each answer one more run, then completed", async () => {
    const { ask, again, outcome, runs } = await import("./recovery-example.js");
    expect(ask!.request).toMatchObject({ kind: "interrupted_side_effect", attempt: 2, interrupted: { cause: "lease_expired", limit: 2 } });
    expect(again).toMatchObject({ status: "waiting" });
    expect(again.approvals[0]!.request.attempt).toBe(3);
    expect(outcome.status).toBe("completed");
    expect(runs).toBe(4);
  });
});
