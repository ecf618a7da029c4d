/**
 * The workspace tools' cases, run on every backend (memory in Node,
 * IndexedDB in Chromium, a Durable Object's SQLite in workerd): each call
 * goes through a real driver (the gate, the approval with its preview, the
 * journal), and the model-facing texts are pinned by exact value.
 */
import { expect } from "vitest";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, type JournalEvent, type Policy, type Tool } from "../../src/index.js";
import type { Observation } from "../../src/journal/index.js";
import { workspaceTools, type Workspace } from "../../src/toolkit/index.js";
import { testContext } from "../helpers/context.js";

export interface Backend {
  readonly name: string;
  /** A fresh, empty workspace. */
  make(): Promise<Workspace>;
}

type Test = (name: string, fn: () => Promise<void>) => void;

export interface Outcome {
  /** The result text, or the error text (the error contract). */
  readonly text: string;
  readonly ok: boolean;
  readonly preview?: string;
  readonly activity?: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Calls one tool through a driver, approving what asks (and returning the preview it showed). */
export async function callTool(tools: readonly Tool<never, unknown>[], name: string, args: unknown, policy?: Policy): Promise<Outcome> {
  const driver = createDriver({ store: memoryStore(), tools: [...tools], agent: scriptedAgent([calls(call(name, args as never)), final("done")]), ...(policy === undefined ? {} : { policy }) });
  let outcome = await driver.start("t");
  let preview: string | undefined;
  while (outcome.status === "waiting") {
    const a = outcome.approvals[0]!;
    preview = a.request.preview;
    await driver.approve(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "test" });
    outcome = await driver.resume(outcome.runId);
  }
  const events = await driver.events(outcome.runId);
  const ended = events.find((e) => e.type === "call.finished" || e.type === "call.rejected") as (JournalEvent & { observation: Observation; activity?: string }) | undefined;
  if (ended === undefined) throw new Error(`no outcome for ${name}`);
  const o = ended.observation;
  const text = o.type === "result" ? String(o.content) : o.error;
  return { text, ok: o.type === "result", ...(preview === undefined ? {} : { preview }), ...(ended.activity === undefined ? {} : { activity: ended.activity }) };
}

async function seed(ws: Workspace, files: Record<string, string | Uint8Array>): Promise<void> {
  await ws.commit(Object.entries(files).map(([path, c]) => ({ path, bytes: typeof c === "string" ? enc.encode(c) : c })));
}

const text = async (ws: Workspace, path: string): Promise<string | undefined> => {
  const b = await ws.read(path);
  return b === undefined ? undefined : dec.decode(b);
};

const err = (summary: string, next: string, recovery = "If the same error comes back, stop and report it instead of retrying."): string =>
  `Error: ${summary}\n[Next: ${next}]\n[Recovery: ${recovery}]`;

export function workspaceToolCases(b: Backend, test: Test): void {
  const setup = async (files: Record<string, string | Uint8Array> = {}) => {
    const ws = await b.make();
    await seed(ws, files);
    const t = workspaceTools(ws);
    return { ws, t, run: (name: string, args: unknown) => callTool(t.tools, name, args) };
  };

  // ---- read_file -------------------------------------------------------------
  test(`${b.name}: read_file shows numbered lines under the resolved path, with an activity line`, async () => {
    const { run } = await setup({ "notes/todo.md": "- buy milk\n- call Ana\n" });
    expect(await run("read_file", { path: "notes/todo.md" })).toEqual({ ok: true, text: "notes/todo.md (2 lines)\n     1\t- buy milk\n     2\t- call Ana", activity: "Read notes/todo.md" });
    expect((await run("read_file", { path: "/workspace/notes/todo.md" })).text.split("\n")[0]).toBe("notes/todo.md (2 lines)");
    expect((await run("read_file", { path: "./notes//todo.md" })).ok).toBe(true);
  });

  test(`${b.name}: read_file reads a range, says how to read on, and refuses an offset past the end`, async () => {
    const body = Array.from({ length: 10 }, (_, k) => `line ${k + 1}`).join("\n");
    const { run } = await setup({ "a.txt": body });
    expect((await run("read_file", { path: "a.txt", offset: 4, limit: 2 })).text).toBe(
      "a.txt (10 lines)\n     4\tline 4\n     5\tline 5\n[Lines 4-5 of 10 shown. To read on, call read_file with offset 6.]",
    );
    expect((await run("read_file", { path: "a.txt", offset: 9 })).text).toBe("a.txt (10 lines)\n     9\tline 9\n    10\tline 10\n[Lines 9-10 of 10 shown.]");
    expect((await run("read_file", { path: "a.txt", offset: 11 })).text).toBe(err("offset 11 is past the end of a.txt (10 lines)", "Call read_file with an offset from 1 to 10."));
  });

  test(`${b.name}: read_file: missing file, folder, empty file, binary file, invalid UTF-8, CRLF`, async () => {
    const { run } = await setup({
      "notes/a.md": "x\n",
      "empty.md": "",
      "img.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
      "bad.txt": new Uint8Array([0x61, 0xff, 0x62, 0x0a]),
      "win.txt": "a\r\nb\r\n",
    });
    expect((await run("read_file", { path: "notes/b.md" })).text).toBe(
      err("file not found: notes/b.md", "Call list_files to see which files the folder holds.", "If the file should exist, stop and say it is missing instead of guessing its content."),
    );
    expect((await run("read_file", { path: "notes" })).text).toBe(err("notes is a folder, not a file", "Call list_files with path notes to see its files."));
    expect((await run("read_file", { path: "empty.md" })).text).toBe("empty.md is empty (0 bytes).");
    expect((await run("read_file", { path: "img.png" })).text).toBe("img.png is a binary file (7 bytes): read_file shows text files only.");
    expect((await run("read_file", { path: "bad.txt" })).text).toBe("bad.txt (1 line)\n     1\ta\uFFFDb\n[bad.txt is not valid UTF-8: invalid bytes are shown as \uFFFD.]");
    expect((await run("read_file", { path: "win.txt" })).text).toBe("win.txt (2 lines)\n     1\ta\n     2\tb");
  });

  test(`${b.name}: containment: traversal, absolute paths outside the root, home, drive letters, URLs, backslashes, control characters`, async () => {
    const { run } = await setup({ "a.md": "x" });
    const traversal = err(
      'path traversal is not allowed: "notes/../../etc/passwd"',
      "Name the file by its path from the workspace root, without .. segments.",
      "If the file is outside the workspace, stop and say so: no tool here can reach it.",
    );
    expect((await run("read_file", { path: "notes/../../etc/passwd" })).text).toBe(traversal);
    const outside = (p: string) =>
      err(
        `path outside the workspace: ${JSON.stringify(p)}`,
        "Use a path inside the workspace: relative, such as notes/todo.md, or absolute under /workspace/.",
        "If the task needs a file outside the workspace, stop and say so: no tool here can reach it.",
      );
    for (const p of ["/etc/passwd", "/workspace2/a.md", "~/.ssh/id_rsa", "C:/Windows/win.ini", "file:///etc/passwd"]) expect((await run("read_file", { path: p })).text).toBe(outside(p));
    expect((await run("read_file", { path: "a\\..\\b" })).text).toBe(
      err('invalid path "a\\\\..\\\\b": use / between folders, not \\', "Name the file by its path from the workspace root, such as notes/todo.md."),
    );
    expect((await run("read_file", { path: "a\u0000.md" })).text).toBe(
      err('invalid path "a\\u0000.md": it contains control characters', "Name the file by its path from the workspace root, such as notes/todo.md."),
    );
    expect((await run("write_file", { path: "../x.md", content: "x" })).ok).toBe(false);
    expect((await run("read_file", { path: "/workspace" })).text).toBe(err('"/workspace" is the workspace itself, not a file', "Name a file, such as notes/todo.md."));
  });

  // ---- write_file ----------------------------------------------------------------
  test(`${b.name}: write_file creates a file and its folder, asks first showing the diff, and says what it did`, async () => {
    const { ws, run } = await setup();
    const r = await run("write_file", { path: "notes/new/summary.md", content: "# Sum\n\n- a\n" });
    expect(r).toEqual({
      ok: true,
      text: "Created notes/new/summary.md (+3 -0): 3 lines, 11 bytes, in the new folder notes/new/.",
      preview: "--- /dev/null\n+++ b/notes/new/summary.md\n@@ -0,0 +1,3 @@\n+# Sum\n+\n+- a\n",
      activity: "Write notes/new/summary.md (+3 -0)",
    });
    expect(await text(ws, "notes/new/summary.md")).toBe("# Sum\n\n- a\n");
  });

  test(`${b.name}: write_file overwrites with a preview of the change, and says when nothing changed`, async () => {
    const { ws, run } = await setup({ "a.md": "one\ntwo\n" });
    expect(await run("write_file", { path: "a.md", content: "one\n2\n" })).toEqual({
      ok: true,
      text: "Replaced the content of a.md (+1 -1): now 2 lines, 6 bytes.",
      preview: "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
      activity: "Write a.md (+1 -1)",
    });
    expect(await text(ws, "a.md")).toBe("one\n2\n");
    expect((await run("write_file", { path: "a.md", content: "one\n2\n" })).text).toBe("a.md already had this content (2 lines); nothing changed.");
  });

  test(`${b.name}: write_file refuses binary-looking content and a folder, writing nothing`, async () => {
    const { ws, run } = await setup({ "notes/a.md": "x" });
    expect((await run("write_file", { path: "b.bin", content: "a\u0000b" })).text).toBe(
      err("the content for b.bin looks binary (it contains NUL characters): write_file writes text", "Write text content only.", "If the task needs a binary file, stop and say so."),
    );
    expect(await ws.read("b.bin")).toBeUndefined();
    expect((await run("write_file", { path: "notes", content: "x" })).text).toBe(err("notes is a folder, not a file", "Name a file inside it, such as notes/notes.md."));
  });

  // ---- edit_file ------------------------------------------------------------------
  test(`${b.name}: edit_file replaces the one match, with its diff before and its counts after`, async () => {
    const { ws, run } = await setup({ "notes/todo.md": "- buy milk\n- call Ana\n- renew passport\n" });
    expect(await run("edit_file", { path: "notes/todo.md", old_text: "- call Ana\n", new_text: "- call Ana about the trip\n- book the train\n" })).toEqual({
      ok: true,
      text: "Edited notes/todo.md (+2 -1): 1 place changed.",
      preview: "--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -1,3 +1,4 @@\n - buy milk\n-- call Ana\n+- call Ana about the trip\n+- book the train\n - renew passport\n",
      activity: "Edit notes/todo.md (+2 -1)",
    });
    expect(await text(ws, "notes/todo.md")).toBe("- buy milk\n- call Ana about the trip\n- book the train\n- renew passport\n");
  });

  test(`${b.name}: edit_file: missing text, several matches (with their lines), replace_all, no-op, empty old_text`, async () => {
    const { ws, run } = await setup({ "a.md": "x = 1\ny = 2\nx = 1\n" });
    // Refusals come before the approval: nothing to approve, nothing written.
    expect((await run("edit_file", { path: "a.md", old_text: "z = 3", new_text: "z = 4" })).text).toBe(
      err(
        "old_text was not found in a.md",
        "Read a.md again with read_file and copy the text exactly, spaces and line breaks included, without the line numbers.",
        "If the text is no longer there, the file has changed: decide again from what it says now.",
      ),
    );
    expect((await run("edit_file", { path: "a.md", old_text: "x = 1", new_text: "x = 9" })).text).toBe(
      err("old_text matches 2 places in a.md (lines 1, 3)", "Add neighbouring lines to old_text so that it matches one place, or set replace_all to true to change every place."),
    );
    expect((await run("edit_file", { path: "a.md", old_text: "x = 1", new_text: "x = 9", replace_all: true })).text).toBe("Edited a.md (+2 -2): 2 places changed.");
    expect(await text(ws, "a.md")).toBe("x = 9\ny = 2\nx = 9\n");
    expect((await run("edit_file", { path: "a.md", old_text: "y = 2", new_text: "y = 2" })).text).toBe(
      err(
        "old_text and new_text are the same: the edit would change nothing",
        "Put the changed text in new_text.",
        "If the file already says what you want, the edit is done: go on to the next step.",
      ),
    );
    expect((await run("edit_file", { path: "a.md", old_text: "", new_text: "y" })).text).toBe(
      err("old_text is empty", "Quote the exact text to replace; to create or replace a whole file, use write_file."),
    );
  });

  test(`${b.name}: edit_file keeps a CRLF file's line ends when the edit quotes LF`, async () => {
    const { ws, run } = await setup({ "w.txt": "a\r\nb\r\nc\r\n" });
    expect((await run("edit_file", { path: "w.txt", old_text: "a\nb\n", new_text: "a\nB\nb2\n" })).ok).toBe(true);
    expect(await text(ws, "w.txt")).toBe("a\r\nB\r\nb2\r\nc\r\n");
  });

  // ---- apply_patch ------------------------------------------------------------------
  test(`${b.name}: apply_patch changes a file whose line numbers drifted, creates one in a missing folder, deletes one, all at once`, async () => {
    const { ws, run } = await setup({ "a.md": "0\n1\n2\n3\n4\n", "old.md": "bye\n" });
    const patch = [
      "--- a/a.md",
      "+++ b/a.md",
      "@@ -1,3 +1,3 @@", // really at line 2
      " 1",
      "-2",
      "+two",
      " 3",
      "--- /dev/null",
      "+++ b/new/dir/b.md",
      "@@ -0,0 +1,2 @@",
      "+hello",
      "+world",
      "--- a/old.md",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "",
    ].join("\n");
    const r = await run("apply_patch", { patch });
    expect(r.text).toBe("Patched 3 files (+3 -2): a.md (+1 -1), created new/dir/b.md (+2 -0), deleted old.md (+0 -1).");
    expect(r.activity).toBe("Patch 3 files (+3 -2)");
    expect(r.preview).toBe(
      "--- a/a.md\n+++ b/a.md\n@@ -1,5 +1,5 @@\n 0\n 1\n-2\n+two\n 3\n 4\n" +
        "--- /dev/null\n+++ b/new/dir/b.md\n@@ -0,0 +1,2 @@\n+hello\n+world\n" +
        "--- a/old.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
    );
    expect([await text(ws, "a.md"), await text(ws, "new/dir/b.md"), await ws.read("old.md")]).toEqual(["0\n1\ntwo\n3\n4\n", "hello\nworld\n", undefined]);
  });

  test(`${b.name}: apply_patch refuses stale context (the seed's wording), and applies nothing of a patch that fails in its second file`, async () => {
    const { ws, run } = await setup({ "a.md": "x\ny\n", "b.md": "p\nq\n" });
    const patch = "--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n--- a/b.md\n+++ b/b.md\n@@ -1,2 +1,2 @@\n p\n-QQ\n+R\n";
    expect((await run("apply_patch", { patch })).text).toBe(
      "Error: patch failed: hunk 1 of b.md did not match the file (its context was expected near line 1)\n[Next: Re-read b.md before retrying this patch.]\n[Recovery: The file may have changed or may not have a trailing newline. Re-read exact bytes and retry only if the intended edit is still valid.]",
    );
    expect([await text(ws, "a.md"), await text(ws, "b.md")]).toEqual(["x\ny\n", "p\nq\n"]);
  });

  test(`${b.name}: apply_patch handles a file without a final newline, and says when the marker is missing`, async () => {
    const { ws, run } = await setup({ "n.txt": "a\nb" });
    const noEol = "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
    expect((await run("apply_patch", { patch: noEol })).ok).toBe(true);
    expect(await text(ws, "n.txt")).toBe("a\nc");
    const forgot = "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-c\n+d\n";
    expect((await run("apply_patch", { patch: forgot })).text).toMatch(/^Error: patch failed: hunk 1 of n\.txt did not match the file/);
    expect(await text(ws, "n.txt")).toBe("a\nc");
  });

  test(`${b.name}: apply_patch: a missing file, a file that exists, a path outside, a rename, a patch that is not a diff`, async () => {
    const { run } = await setup({ "a.md": "x\n" });
    expect((await run("apply_patch", { patch: "--- a/nope.md\n+++ b/nope.md\n@@ -1 +1 @@\n-x\n+y\n" })).text).toBe(
      err("patch failed: nope.md does not exist", "Call list_files to find the file; to create it, make the --- line /dev/null.", "If the file should exist, stop and say it is missing."),
    );
    expect((await run("apply_patch", { patch: "--- /dev/null\n+++ b/a.md\n@@ -0,0 +1 @@\n+y\n" })).text).toBe(
      err("patch failed: a.md already exists", "Re-read a.md and patch it with context lines instead of creating it."),
    );
    expect((await run("apply_patch", { patch: "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-x\n+y\n" })).text).toMatch(/^Error: path traversal is not allowed: "\.\.\/x"/);
    expect((await run("apply_patch", { patch: "--- a/a.md\n+++ b/c.md\n@@ -1 +1 @@\n-x\n+y\n" })).text).toBe(
      err("the patch renames a.md to c.md; apply_patch does not rename files", "Create the new file and delete the old one in two file sections."),
    );
    expect((await run("apply_patch", { patch: "please change x to y" })).text).toBe(
      err("the patch has no file headers (a --- line followed by a +++ line)", "Send a unified diff: --- a/path, +++ b/path, then @@ hunks."),
    );
  });

  // ---- list_files and search_files ---------------------------------------------------
  test(`${b.name}: list_files lists under a folder with a glob, sorted, and says when nothing matches`, async () => {
    const { run } = await setup({ "notes/a.md": "aa", "notes/sub/b.md": "b", "notes/c.txt": "c", "other.md": "o" });
    expect(await run("list_files", { path: "notes", pattern: "**/*.md" })).toEqual({
      ok: true,
      text: "2 files under notes/ matching **/*.md:\nnotes/a.md (2 bytes)\nnotes/sub/b.md (1 byte)",
      activity: "List notes/ (**/*.md)",
    });
    expect((await run("list_files", {})).text).toBe("4 files under the workspace matching **:\nnotes/a.md (2 bytes)\nnotes/c.txt (1 byte)\nnotes/sub/b.md (1 byte)\nother.md (1 byte)");
    expect((await run("list_files", { path: "notes", pattern: "*.py" })).text).toBe("No files under notes/ match *.py.");
    expect((await run("list_files", { path: "other.md" })).text).toBe(err("other.md is a file, not a folder", "Call read_file with path other.md to read it."));
  });

  test(`${b.name}: search_files finds text and regular expressions with their lines, skips binary files, caps the matches`, async () => {
    const { run } = await setup({ "notes/a.md": "- buy Milk\n- milk again\n", "notes/b.md": "nothing\n", "bin.dat": new Uint8Array([0, 109, 105, 108, 107]) });
    expect(await run("search_files", { query: "milk" })).toEqual({
      ok: true,
      text: '1 match for "milk" in 1 file under the workspace:\nnotes/a.md:2: - milk again\n[1 binary file skipped.]',
      activity: 'Search the workspace for "milk"',
    });
    expect((await run("search_files", { query: "milk", ignore_case: true, max_results: 1 })).text).toBe(
      '2 matches for "milk" in 1 file under the workspace:\nnotes/a.md:1: - buy Milk\n[1 of 2 matches shown. Narrow the query, the folder or the pattern, or raise max_results.]\n[1 binary file skipped.]',
    );
    expect((await run("search_files", { query: "^- \\w+ again$", regex: true, path: "notes" })).text).toBe(
      '1 match for "^- \\\\w+ again$" (regular expression) in 1 file under notes/:\nnotes/a.md:2: - milk again',
    );
    expect((await run("search_files", { query: "(", regex: true })).text).toBe(
      err("query is not a valid regular expression", "Escape the special characters, or set regex to false to search for the text as it is."),
    );
    expect((await run("search_files", { query: "zebra", path: "notes" })).text).toBe('No matches for "zebra" under notes/.');
    // Linear time (docs/tools/search_files.md): what needs a backtracker is refused, saying why.
    expect((await run("search_files", { query: "(m)\\1", regex: true })).text).toBe(
      err(
        "search_files cannot run this query: it uses a backreference (\\1), which a linear-time matcher cannot run",
        "Search with a regular expression without backreferences or lookaround, or a shorter one; or search for a plain text (regex false) and filter what it finds.",
      ),
    );
    expect((await run("search_files", { query: "^-( \\w+)+$", regex: true })).text).toBe(
      '2 matches for "^-( \\\\w+)+$" (regular expression) in 1 file under the workspace:\nnotes/a.md:1: - buy Milk\nnotes/a.md:2: - milk again\n[1 binary file skipped.]',
    );
    expect((await run("list_files", { pattern: "x".repeat(2000) })).text).toBe(err("pattern is too long to match", "Give a shorter glob (such as **/*.md), or narrow the folder instead."));
  });

  // ---- recovery ---------------------------------------------------------------------------
  test(`${b.name}: a change and its receipt commit together: an attempt run again answers from the receipt; the hook reconciles`, async () => {
    const { ws, t } = await setup({ "a.md": "one\n" });
    const ctx = testContext({ idempotencyKey: "key-1" });
    const first = await t.writeFile.call({ path: "a.md", content: "two\n" }, ctx);
    await ws.commit([{ path: "a.md", bytes: enc.encode("changed by someone\n") }]);
    // The same call again (a crash after the effect): no second write.
    expect(await t.writeFile.call({ path: "a.md", content: "two\n" }, { ...ctx, attempt: 2 })).toBe(first);
    expect(await text(ws, "a.md")).toBe("changed by someone\n");
    const call1 = { runId: "r" as never, step: 1, callId: "c" as never, tool: "write_file", sideEffect: "local_mutation" as const, args: {}, attempt: 1 };
    expect(await t.reconcile({ ...call1, idempotencyKey: "key-1" })).toEqual({ action: "record_result", content: first });
    expect(await t.reconcile({ ...call1, idempotencyKey: "key-2" })).toEqual({ action: "run_again" });
  });
}
