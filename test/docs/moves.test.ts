import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { regionOf } from "../helpers/package-imports.js";

/**
 * docs/moves.md's example is a real program (test/docs/moves-trust.ts),
 * shown there verbatim with the package's import paths, type-checked by
 * `npm run typecheck` (tsconfig.test.json includes test/) and run here.
 */
const region = (file: string): string => regionOf(new URL(file, import.meta.url));

describe("docs/moves.md's trust example, as a reader copies it", () => {
  it("is shown verbatim in docs/moves.md", () => {
    const code = region("./moves-trust.ts");
    expect(code.length).toBeGreaterThan(1000);
    expect(readFileSync(new URL("../../docs/moves.md", import.meta.url), "utf8").includes("```ts\n" + code + "```\n"), "test/docs/moves-trust.ts is not in docs/moves.md as it stands").toBe(true);
  });

  it("runs as the comments say: asked again at the edge, which trusts no tab; the edge's approval kept at the office, which trusts the edge; the write run once", async () => {
    const { results } = await import("./moves-trust.js");
    expect(results).toEqual({ reopenedAtEdge: 1, atEdge: "waiting", reopenedAtOffice: 0, done: "completed", written: ["notes.md"] });
  });
});
