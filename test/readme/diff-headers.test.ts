import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, isMarkdown } from "../../scripts/lib/files.js";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { lineDiff } from "../../src/tools/index.js";

/**
 * Issue 27, finding 6: a new file's diff header read `--- a/notes.md` where
 * the convention (diff -u, git, patch, apply_patch) is `--- /dev/null`.
 * lineDiff writes /dev/null for a side that does not exist, given as
 * `undefined`; the README's example of a preview passed `readFile(path) ??
 * ""`, an empty file that exists, and a program written from it showed a
 * new file as a change to an empty one. The docs now pass the file's
 * absence through, and the headers are pinned here by exact value.
 */
const ROOT = new URL("../../", import.meta.url).pathname;

describe("a diff's headers", () => {
  it("every lineDiff in the README and docs/ passes a missing file as undefined, not as an empty text", () => {
    const calls: string[] = [];
    for (const file of ["README.md", ...filesUnder(join(ROOT, "docs"), isMarkdown).map((p) => relative(ROOT, p))]) {
      for (const [k, line] of readFileSync(join(ROOT, file), "utf8").split("\n").entries()) {
        if (!line.includes("lineDiff(")) continue;
        calls.push(`${file}:${k + 1}`);
        expect(/\?\?\s*(""|''|``)/.test(line), `${file}:${k + 1}: ${line.trim()}`).toBe(false);
      }
    }
    // The README shows one (and some page of docs/ may show more): the check saw it.
    expect(calls.length).toBeGreaterThan(0);
  });

  it("a new file is --- /dev/null, a deleted one +++ /dev/null, an existing empty one a/ and b/ (exact values)", () => {
    expect(lineDiff("notes/new.md", undefined, "one\ntwo\n")).toBe("--- /dev/null\n+++ b/notes/new.md\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    expect(lineDiff("notes/old.md", "bye\n", undefined)).toBe("--- a/notes/old.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n");
    // An empty file created, or deleted: the headers say so, with no hunk (nothing to show line by line).
    expect(lineDiff("e.md", undefined, "")).toBe("--- /dev/null\n+++ b/e.md\n");
    expect(lineDiff("e.md", "", undefined)).toBe("--- a/e.md\n+++ /dev/null\n");
    // A file that exists and is empty is not a new file.
    expect(lineDiff("e.md", "", "x\n")).toBe("--- a/e.md\n+++ b/e.md\n@@ -0,0 +1 @@\n+x\n");
    expect(lineDiff("n.md", undefined, "no newline")).toBe("--- /dev/null\n+++ b/n.md\n@@ -0,0 +1 @@\n+no newline\n\\ No newline at end of file\n");
  });

  it("the documented preview (readFile: undefined for a missing file) shows the operator a new file as created from /dev/null", async () => {
    const files = new Map<string, string>([["notes/todo.md", "- milk\n"]]);
    const readFile = (path: string): string | undefined => files.get(path);
    const writeFile = defineTool<{ path: string; content: string }>({
      name: "write_file",
      description: "Write a file.",
      inputSchema: strictObject({ path: string(), content: string() }),
      sideEffect: "local_mutation",
      permission: "ask",
      timeoutMs: 1000,
      preview: (a) => lineDiff(a.path, readFile(a.path), a.content),
      call: (a) => (files.set(a.path, a.content), "written"),
    }) as Tool<never, unknown>;
    const driver = createDriver({
      store: memoryStore(),
      tools: [writeFile],
      agent: scriptedAgent([
        calls(call("write_file", { path: "notes/summary.md", content: "# Summary\n" }), call("write_file", { path: "notes/todo.md", content: "- milk\n- eggs\n" })),
        final("done"),
      ]),
    });
    const outcome = await driver.start("t");
    expect(outcome.status).toBe("waiting");
    const previews = outcome.status === "waiting" ? outcome.approvals.map((a) => a.request.preview) : [];
    expect(previews).toEqual(["--- /dev/null\n+++ b/notes/summary.md\n@@ -0,0 +1 @@\n+# Summary\n", "--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1 +1,2 @@\n - milk\n+- eggs\n"]);
  });
});
