// The lint npm test runs (issue 28, item 7): the typed rules that catch
// durability bugs no test may happen to see (an append, a release or a
// close nobody awaits; a promise where a boolean or a callback's result is
// read; a switch over a union that misses a case), with TypeScript's type
// information. Formatting is not linted: the formatter owns it.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "coverage/**", "node_modules/**", "bench/**", ".data/**", ".stryker-tmp/**", "reports/**", "**/*.js", "**/*.mjs"] },
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      parser: tseslint.parser,
      // The programs npm run typecheck checks that hold every linted file,
      // each with its own platform's types; a file is read in the first that
      // has it, and a program is built only when a file needs it. The test
      // program holds src/, the Node and DOM adapters, test/ and scripts/;
      // the Workers program the Durable Object adapter and the example
      // Worker; then the browser example and the console. The adapters' own
      // programs hold nothing more: listed, they were built for nothing
      // (10 programs built: 66 s of CPU; these 4: 46 s). A file in none of
      // them fails the lint.
      parserOptions: {
        project: ["tsconfig.test.json", "test/workerd/workers/tsconfig.json", "examples/browser/tsconfig.json", "console/tsconfig.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      // Two of ESLint's own: a control character in a pattern, and a hole in an array literal, are each said where meant.
      "no-control-regex": "error",
      "no-sparse-arrays": "error",
    },
  },
);
