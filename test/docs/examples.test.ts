/**
 * Every code example in the README and docs/ is a tested program (issue 27,
 * finding 7). Each TypeScript or JavaScript block is a region of a program
 * in the repository, shown verbatim (with the package's import paths):
 * `npm run typecheck` type-checks the program (tsconfig.test.json includes
 * test/ and examples/), and a test runs it. A program marks each region it
 * shows with `// DOCS: begin` and `// DOCS: end` (`// README: begin` and
 * `// README: end` in test/readme/); what it sets up before a region and
 * asserts after it stays out of the docs.
 *
 * - test/docs/*.example.ts: run here, one test each, by importing them (they
 *   assert with node:assert, and a failed assertion fails the test);
 * - test/readme/*.ts, test/docs/http-session.ts: run by their own tests;
 * - examples/**: the example apps, run by their own tests (the Worker in
 *   workerd, the browser app in Chromium).
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { filesUnder, isMarkdown } from "../../scripts/lib/files.js";
import { regions } from "../helpers/package-imports.js";
import { scaled } from "../helpers/time.js";

const root = resolve(import.meta.dirname, "../..");

type Block = { where: string; code: string };

const LANGUAGES = new Set(["ts", "js", "tsx", "mjs", "typescript", "javascript"]);

/** The TypeScript and JavaScript blocks of a Markdown file, with the line each starts on. */
export function codeBlocks(markdown: string, file: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (LANGUAGES.has(open[1]!)) blocks.push({ where: `${file}:${start + 1}`, code: body.map((l) => `${l}\n`).join("") });
  }
  return blocks;
}

const docs = [join(root, "README.md"), ...filesUnder(join(root, "docs"), isMarkdown)];
const programs = [
  ...filesUnder(join(root, "test/docs"), (n) => n.endsWith(".ts") && !n.endsWith(".test.ts")),
  ...filesUnder(join(root, "test/readme"), (n) => n.endsWith(".ts") && !n.endsWith(".test.ts")),
  ...filesUnder(join(root, "examples"), (n) => /\.(ts|js|mjs)$/.test(n)),
];
const shown = new Map<string, string>(); // region -> the program that holds it
for (const p of programs) for (const r of regions(readFileSync(p, "utf8"))) shown.set(r, relative(root, p));
const blocks = docs.flatMap((d) => codeBlocks(readFileSync(d, "utf8"), relative(root, d)));

describe("the docs' code examples", () => {
  it("are read from every page (a check that found none would check nothing)", () => {
    expect(blocks.length).toBeGreaterThan(20);
    expect(shown.size).toBeGreaterThan(3);
  });

  it("each is a region of a tested program, shown verbatim", () => {
    const untested = blocks.filter((b) => !shown.has(b.code)).map((b) => `${b.where}: ${b.code.split("\n")[0]}`);
    expect(untested).toEqual([]);
  });

  it("each region a program marks is shown on some page (none left behind when a page changes)", () => {
    const all = new Set(blocks.map((b) => b.code));
    const stale = [...shown].filter(([r]) => !all.has(r)).map(([r, p]) => `${p}: ${r.split("\n")[0]}`);
    expect(stale).toEqual([]);
  });

  it("the reader's helpers read blocks and regions as written", () => {
    expect(codeBlocks("a\n```ts\nx\n\ny\n```\n```sh\nz\n```\n", "f.md")).toEqual([{ where: "f.md:2", code: "x\n\ny\n" }]);
    expect(regions('q\n// DOCS: begin\nimport { a } from "../../src/index.js";\n// DOCS: end\nr\n  // DOCS: begin\n  b\n  // DOCS: end\n')).toEqual(['import { a } from "isoagent";\n', "  b\n"]);
  });
});

describe("the docs' example programs run", () => {
  // A program that stands in for the network or works in a folder of its own
  // puts them back when it ends; if it fails first, this does, so that the
  // next program starts as the first did.
  const cwd = process.cwd();
  const fetch = globalThis.fetch;
  afterEach(() => {
    process.chdir(cwd);
    globalThis.fetch = fetch;
  });
  for (const p of programs.filter((f) => f.endsWith(".example.ts"))) {
    it(
      relative(root, p),
      async () => {
        await import(pathToFileURL(p).href);
      },
      scaled(30_000),
    );
  }
});
