/**
 * The lint npm test runs (`npm run lint`, eslint.config.js) has its typed
 * rules live (issue 28, item 7): a program with a floating promise, an
 * await of a value that is not a promise, a promise read as a boolean and a
 * switch that misses a case is refused on each, with type information from
 * the project's own tsconfig. (A config that lost its parser or its rules
 * would lint the tree clean and catch nothing.)
 *
 * With CI=true, typescript-eslint infers a "single run" and reads each file
 * of its programs from disk once, so a text linted under a file's name would
 * be linted as that file's disk content (clean): the probe turns that
 * inference off, as an editor's ESLint does, and \`npm run lint\` keeps it.
 */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { scaled } from "./helpers/time.js";

const PROBE = `import type { RunStatus } from "./journal/index.js";
export async function probe(p: Promise<void>, xs: number[], s: RunStatus): Promise<number> {
  p.then(() => undefined);
  await xs[0];
  if (Promise.resolve(true)) return 0;
  switch (s) {
    case "running":
      return 1;
  }
  return 2;
}
`;

describe("the lint", () => {
  it(
    "refuses each durability bug its typed rules are for",
    async () => {
      const eslint = new ESLint({
        cwd: new URL("..", import.meta.url).pathname,
        overrideConfig: { languageOptions: { parserOptions: { disallowAutomaticSingleRunInference: true } } },
      });
      // Linted as if it were a file of src/, so that it is read with src/'s types.
      const [result] = await eslint.lintText(PROBE, { filePath: new URL("../src/clock.ts", import.meta.url).pathname });
      expect(result!.messages.map((m) => m.ruleId).sort()).toEqual([
        "@typescript-eslint/await-thenable",
        "@typescript-eslint/no-floating-promises",
        "@typescript-eslint/no-misused-promises",
        "@typescript-eslint/switch-exhaustiveness-check",
      ]);
    },
    scaled(120_000),
  );
});
