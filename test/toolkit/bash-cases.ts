/**
 * bash's cases, run on every backend (memory in Node, IndexedDB in
 * Chromium, a Durable Object's SQLite from workerd): each call goes through
 * a real driver (the gate, the approval with its dry-run preview, the
 * journal), and the model-facing texts are pinned by exact value. Seed 004's
 * shell cases are here: dangerous commands, an endless loop cancelled at the
 * timeout, a non-zero exit, very large output, control characters, binary
 * output, a command that is not available.
 */
import { expect } from "vitest";
import { call, calls, createDriver, final, memoryStore, scriptedAgent, workspacePolicy, type JournalEvent, type Policy, type Tool } from "../../src/index.js";
import type { Observation } from "../../src/journal/index.js";
import type { Workspace } from "../../src/toolkit/index.js";
import { bashTool, BASH_COMMANDS, inThreadLimits, THREAD_LIMITS, type BashToolOptions } from "../../src/toolkit/bash/index.js";
import { callTool, type Backend } from "./cases.js";
import { testContext } from "../helpers/context.js";

type Test = (name: string, fn: () => Promise<void>) => void;

const enc = new TextEncoder();
const dec = new TextDecoder();
const err = (summary: string, next: string, recovery = "If the same error comes back, stop and report it instead of retrying."): string =>
  `Error: ${summary}\n[Next: ${next}]\n[Recovery: ${recovery}]`;

async function seed(ws: Workspace, files: Record<string, string | Uint8Array>): Promise<void> {
  if (Object.keys(files).length > 0) await ws.commit(Object.entries(files).map(([path, c]) => ({ path, bytes: typeof c === "string" ? enc.encode(c) : c })));
}

/** Every file of a workspace, as text. */
async function snapshot(ws: Workspace): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await ws.list("")) out[f.path] = dec.decode((await ws.read(f.path))!);
  return out;
}

/** The shell's commands as the not-available notice lists them. */
export const LISTED = [...BASH_COMMANDS, "yes"].sort().join(", ");

/**
 * The cases over backend `b`; `shell` adds options to every tool (a runner:
 * the interpreter in a thread of its own), and `inThread` says whether the
 * interpreter runs in the calling thread, under the limits derived from
 * the timeout (limits.ts), or in a thread stopped from outside.
 */
export function bashCases(b: Backend, test: Test, shell: { options?: Partial<BashToolOptions>; inThread?: boolean } = {}): void {
  const inThread = shell.inThread ?? true;
  const setup = async (files: Record<string, string | Uint8Array> = {}, options: Partial<BashToolOptions> = {}) => {
    const ws = await b.make();
    await seed(ws, files);
    const store = memoryStore();
    const bash = bashTool({ workspace: ws, artifacts: store, ...shell.options, ...options });
    const tools = [bash.tool] as Tool<never, unknown>[];
    return { ws, store, bash, run: (command: string, policy?: Policy) => callTool(tools, "bash", { command }, policy) };
  };

  test(`${b.name}: bash runs a pipeline over the workspace files; exit code, stdout and stderr labelled; the dry run's preview before approval`, async () => {
    const { run } = await setup({ "notes/a.md": "one\ntwo\nthree\n", "notes/b.md": "four\n" });
    expect(await run("cat notes/*.md | wc -l; ls notes; echo oops >&2")).toEqual({
      ok: true,
      text: "exit code: 0\n--- stdout ---\n4\na.md\nb.md\n--- stderr ---\noops\n[No files changed.]",
      preview: "$ cat notes/*.md | wc -l; ls notes; echo oops >&2\nDry run on a copy of the workspace, without network: exit code 0.\nIt changes no files.",
      activity: "Ran cat notes/*.md | wc -l; ls notes; echo oops >&2 (exit 0)",
    });
  });

  test(`${b.name}: bash commits a command's changes as one change with a receipt; the preview shows what it will change`, async () => {
    const { ws, run } = await setup({ "notes/a.md": "one\ntwo\n", "old.txt": "bye\n" });
    const r = await run("sed -i 's/two/2/' notes/a.md && mkdir -p notes/new && printf 'x\\ny\\n' > notes/new/c.md && rm old.txt");
    expect(r).toEqual({
      ok: true,
      text: "exit code: 0\n--- stdout ---\n(empty)\n--- stderr ---\n(empty)\n[Committed 3 file changes: notes/a.md (+1 -1), created notes/new/c.md (+2 -0), deleted old.txt (+0 -1).]",
      preview: [
        "$ sed -i 's/two/2/' notes/a.md && mkdir -p notes/new && printf 'x\\ny\\n' > notes/new/c.md && rm old.txt",
        "Dry run on a copy of the workspace, without network: exit code 0.",
        "It would change 3 files: notes/a.md (+1 -1), created notes/new/c.md (+2 -0), deleted old.txt (+0 -1).",
        "--- a/notes/a.md\n+++ b/notes/a.md\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
        "--- /dev/null\n+++ b/notes/new/c.md\n@@ -0,0 +1,2 @@\n+x\n+y\n",
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
      ].join("\n"),
      activity: "Ran sed -i 's/two/2/' notes/a.md && mkdir -p notes/new && print… (exit 0, 3 files changed)",
    });
    expect(await snapshot(ws)).toEqual({ "notes/a.md": "one\n2\n", "notes/new/c.md": "x\ny\n" });
  });

  test(`${b.name}: seed 004, a non-zero exit is a normal result with its code; a command that fails half-way commits nothing`, async () => {
    const { ws, run } = await setup({ "a.txt": "keep\n" });
    expect(await run("echo changed > a.txt; echo new > b.txt; grep missing a.txt")).toEqual({
      ok: true,
      text: "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\n(empty)\n[Not committed: the command exited with code 1, so its changes to 2 files were dropped: a.txt (+1 -1), created b.txt (+1 -0).]",
      preview:
        "$ echo changed > a.txt; echo new > b.txt; grep missing a.txt\nDry run on a copy of the workspace, without network: exit code 1.\nNothing would be committed (it exits 1); its changes would be: a.txt (+1 -1), created b.txt (+1 -0).\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-keep\n+changed\n\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new\n",
      activity: "Ran echo changed > a.txt; echo new > b.txt; grep missing a.txt (exit 1)",
    });
    expect(await snapshot(ws)).toEqual({ "a.txt": "keep\n" });
  });

  test(`${b.name}: commit "always" keeps what succeeded, whatever the exit code`, async () => {
    const { ws, run } = await setup({ "a.txt": "keep\n" }, { commit: "always", requireApproval: false });
    expect((await run("echo new > b.txt; exit 3")).text).toBe("exit code: 3\n--- stdout ---\n(empty)\n--- stderr ---\n(empty)\n[Committed 1 file change: created b.txt (+1 -0).]");
    expect(await snapshot(ws)).toEqual({ "a.txt": "keep\n", "b.txt": "new\n" });
  });

  test(`${b.name}: the same call run again after a crash answers from its receipt, without acting twice`, async () => {
    const { ws, bash } = await setup({ "n.txt": "1\n" }, { requireApproval: false });
    const ctx = testContext({ callId: "c1" });
    const first = await bash.tool.call({ command: "echo $(( $(cat n.txt) + 1 )) > n.txt; cat n.txt" }, ctx);
    expect(first).toBe("exit code: 0\n--- stdout ---\n2\n--- stderr ---\n(empty)\n[Committed 1 file change: n.txt (+1 -1).]");
    expect(await ws.receipt("r:1:c1")).toBe(first);
    // The attempt after a crash: same key, so it answers from the receipt and the file is incremented once.
    expect(await bash.tool.call({ command: "echo $(( $(cat n.txt) + 1 )) > n.txt; cat n.txt" }, { ...ctx, attempt: 2 })).toBe(first);
    expect(await snapshot(ws)).toEqual({ "n.txt": "2\n" });
    expect(await bash.reconcile({ runId: "r" as never, step: 1, callId: "c1" as never, tool: "bash", sideEffect: "local_mutation", args: {}, attempt: 1, idempotencyKey: "r:1:c1" })).toEqual({
      action: "record_result",
      content: first,
    });
    expect(await bash.reconcile({ runId: "r" as never, step: 2, callId: "c1" as never, tool: "bash", sideEffect: "local_mutation", args: {}, attempt: 1, idempotencyKey: "r:2:c1" })).toEqual({
      action: "run_again",
    });
  });

  test(`${b.name}: seed 004, dangerous commands named in the command are refused before anything runs or anyone is asked`, async () => {
    const { ws, run } = await setup({ "a.txt": "x\n" });
    const outside = (verb: string, p: string) =>
      err(
        `the command ${verb} outside the workspace: ${p}`,
        "Use paths inside the workspace: relative ones, or absolute ones under /workspace/.",
        "If the task needs a file outside the workspace, stop and say so: this shell cannot reach it.",
      );
    expect(await run("rm -rf /")).toEqual({ ok: false, text: outside("deletes", "/") });
    expect(await run("rm -rf ~")).toEqual({
      ok: false,
      text: err(
        "the command would remove the workspace root (/workspace)",
        "Remove the files or folders in it by name instead.",
        "If the task really is to empty the whole workspace, stop and ask the person you work for.",
      ),
    });
    expect(await run("echo pwned > /etc/passwd")).toEqual({ ok: false, text: outside("writes", "/etc/passwd") });
    expect(await run("cp a.txt ../../tmp/x")).toEqual({ ok: false, text: outside("writes", "../../tmp/x") });
    expect(await run("cat a.txt > /dev/sda")).toEqual({
      ok: false,
      text: err("the command writes a device: /dev/sda; this shell has /dev/null only", "Write to a file in the workspace, or to /dev/null to discard output."),
    });
    expect(await snapshot(ws)).toEqual({ "a.txt": "x\n" });
  });

  test(`${b.name}: seed 004, dangerous commands the analysis cannot see are refused inside the interpreter, nothing changed`, async () => {
    const { ws, run } = await setup({ "a.txt": "x\n", "notes/b.md": "y\n" }, { requireApproval: false });
    expect((await run('d=/; rm -rf $d; echo "rm said $?"')).text).toBe(
      "exit code: 0\n--- stdout ---\nrm said 0\n--- stderr ---\n(empty)\n[Refused by the shell: delete / (outside the workspace).]\n[No files changed.]",
    );
    expect((await run("h=~; rm -rf $h; ls")).text).toBe(
      "exit code: 0\n--- stdout ---\na.txt\nnotes\n--- stderr ---\n(empty)\n[Refused by the shell: delete /workspace (the workspace root itself).]\n[No files changed.]",
    );
    expect((await run("p=/etc; echo pwned > $p/passwd; echo after")).text).toBe(
      "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\nbash: /etc/passwd: Permission denied\n[The shell stopped the command at that failed write; what it printed before was lost.]\n[Refused by the shell: write /etc/passwd (outside the workspace).]\n[No files changed.]",
    );
    expect((await run("dev=/dev/sda; echo x > $dev")).text).toBe(
      "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\nbash: /dev/sda: Permission denied\n[The shell stopped the command at that failed write; what it printed before was lost.]\n[Refused by the shell: write /dev/sda (not a device this shell has).]\n[No files changed.]",
    );
    expect((await run("cd ..; cat ../etc/hostname; ls")).text).toBe(
      "exit code: 0\n--- stdout ---\nworkspace\n--- stderr ---\ncat: ../etc/hostname: No such file or directory\n[Refused by the shell: read /etc/hostname (outside the workspace).]\n[No files changed.]",
    );
    expect((await run("t=/tmp/x; cp a.txt $t; ln -s /etc/passwd link; echo done > /dev/null")).ok).toBe(true);
    expect(await snapshot(ws)).toEqual({ "a.txt": "x\n", "notes/b.md": "y\n" });
  });

  test(`${b.name}: seed 004, a CPU-bound endless loop is stopped by whichever comes first, the deadline or the command cap; nothing committed`, async () => {
    const { ws, run } = await setup({ "a.txt": "x\n" }, { timeoutMs: 3000, requireApproval: false });
    const r = await run("echo changed > a.txt; while true; do :; done");
    // A fast machine reaches the command cap before the deadline; a slow one the deadline first (and a Worker's clock may not move during CPU work).
    // In the calling thread the cap is derived from the timeout; in a thread of its own it is 1,000,000.
    const cap = (inThread ? inThreadLimits(3000) : THREAD_LIMITS)["maxLoopIterations"]!;
    expect([
      err(
        "the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed",
        "Make it finish sooner: no endless loops, fewer files or smaller inputs per call.",
        "If the work cannot be made smaller, stop and say so.",
      ),
      `exit code: 126\n--- stdout ---\n(empty)\n--- stderr ---\nbash: while loop: too many iterations (${cap}) (the shell's limit)\n[Not committed: the command exited with code 126, so its changes to 1 file were dropped: a.txt (+1 -1).]`,
      `exit code: 126\n--- stdout ---\n(empty)\n--- stderr ---\nbash: too many commands executed (>${(inThread ? inThreadLimits(3000) : THREAD_LIMITS)["maxCommandCount"]}) (the shell's limit)\n[Not committed: the command exited with code 126, so its changes to 1 file were dropped: a.txt (+1 -1).]`,
    ]).toContain(r.text);
    expect(await snapshot(ws)).toEqual({ "a.txt": "x\n" });
  });

  test(`${b.name}: seed 004, an endless loop (sleeping) is stopped at the timeout, nothing committed`, async () => {
    const { ws, run } = await setup({ "a.txt": "x\n" }, { timeoutMs: 3000, requireApproval: false });
    const started = Date.now();
    expect(await run("echo changed > a.txt; while true; do sleep 0.05; done")).toEqual({
      ok: false,
      text: err(
        "the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed",
        "Make it finish sooner: no endless loops, fewer files or smaller inputs per call.",
        "If the work cannot be made smaller, stop and say so.",
      ),
    });
    // Its deadline: half the timeout in the calling thread (limits.ts), the timeout less a fifth (less loading) in a thread of its own.
    expect(Date.now() - started).toBeGreaterThanOrEqual(inThread ? 1500 : 2000);
    expect(await snapshot(ws)).toEqual({ "a.txt": "x\n" });
  });

  test(`${b.name}: seed 004, very large output (from yes | head -c): the tail, a notice with the counts, the full output as an artifact`, async () => {
    const { store, run } = await setup({}, { requireApproval: false });
    // 10 MB in a thread of its own; in the calling thread strings (and yes) are capped by the timeout (750 KB at 30 s: limits.ts).
    const bytes = inThread ? 700_000 : 10_000_000;
    const r = await run(`yes | head -c ${bytes}`);
    const sha = /artifact sha256:([0-9a-f]{64})/.exec(r.text)?.[1];
    expect(sha).toBeDefined();
    expect(r.text).toBe(
      `exit code: 0\n--- stdout ---\n[stdout cut: showing the last 1,000 of ${(bytes / 2).toLocaleString("en-US")} lines (2,000 of ${bytes.toLocaleString("en-US")} bytes); the full stdout is artifact sha256:${sha}]\n${"y\n".repeat(1000).slice(0, -1)}\n--- stderr ---\n(empty)\n[No files changed.]`,
    );
    const full = await store.getArtifact(sha!);
    expect(full?.length).toBe(bytes);
    expect(dec.decode(full!.subarray(0, 6))).toBe("y\ny\ny\n");
  });

  test(`${b.name}: output caps: lines and bytes both apply (the stricter wins), for each stream; head when asked`, async () => {
    const { run } = await setup({}, { requireApproval: false, maxLines: 3, maxBytes: 10, artifacts: false });
    // 5 lines of 2 bytes: the 3-line cap wins (6 bytes).
    expect((await run("seq 5")).text).toBe(
      "exit code: 0\n--- stdout ---\n[stdout cut: showing the last 3 of 5 lines (6 of 10 bytes); the rest was not kept]\n3\n4\n5\n--- stderr ---\n(empty)\n[No files changed.]",
    );
    // Each stream on its own: 8 bytes of stdout fit; 1 line of 12 bytes of stderr: the 10-byte cap wins, mid-line.
    expect((await run("echo aaaaaaa; echo bbbbbbbbbbb >&2")).text).toBe(
      "exit code: 0\n--- stdout ---\naaaaaaa\n--- stderr ---\n[stderr cut: showing the last 1 of 1 line (10 of 12 bytes); the rest was not kept]\nbbbbbbbbb\n[No files changed.]",
    );
    const head = await setup({}, { requireApproval: false, maxLines: 2, strategy: "head", artifacts: false });
    expect((await head.run("seq 4")).text).toBe(
      "exit code: 0\n--- stdout ---\n1\n2\n[stdout cut: showing the first 2 of 4 lines (4 of 8 bytes); the rest was not kept]\n--- stderr ---\n(empty)\n[No files changed.]",
    );
  });

  test(`${b.name}: seed 004, control characters and terminal escapes are cleaned once, by the driver, with its notice`, async () => {
    const { run } = await setup({}, { requireApproval: false });
    expect((await run("printf '\\033[31mred\\033[0m \\033]0;title\\007bell\\a\\n'")).text).toBe(
      "exit code: 0\n--- stdout ---\nred bell\uFFFD\n--- stderr ---\n(empty)\n[No files changed.]\n[Cleaned: 3 terminal escape sequences removed, 1 control character replaced.]",
    );
  });

  test(`${b.name}: seed 004, binary output is described, not shown, and kept as an artifact`, async () => {
    const { store, run } = await setup({ "img.bin": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0xfe]) }, { requireApproval: false });
    const r = await run("cat img.bin");
    const sha = /sha256:([0-9a-f]{64})/.exec(r.text)?.[1];
    expect(r.text).toBe(`exit code: 0\n--- stdout ---\n[stdout is binary data (9 bytes), not shown; it is artifact sha256:${sha}.]\n--- stderr ---\n(empty)\n[No files changed.]`);
    expect([...(await store.getArtifact(sha!))!]).toEqual([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0xfe]);
  });

  test(`${b.name}: ls given a pattern the shell left unexpanded (quoted, or matching nothing) says there is no such file, as bash does, on every platform`, async () => {
    const { run } = await setup({ "a.md": "x\n", "notes/b.md": "y\n" }, { requireApproval: false });
    expect((await run("ls '*.md'; ls *.xyz; ls *.md")).text).toBe(
      "exit code: 0\n--- stdout ---\na.md\n--- stderr ---\nls: *.md: No such file or directory\nls: *.xyz: No such file or directory\n[No files changed.]",
    );
  });

  test(`${b.name}: seed 004, a command that is not available says so, with the commands that are`, async () => {
    const { run } = await setup({}, { requireApproval: false });
    expect((await run("git status; python3 -c 'print(1)'")).text).toBe(
      `exit code: 127\n--- stdout ---\n(empty)\n--- stderr ---\nbash: git: command not found\nbash: python3: command not found\n[Not available in this shell: git, python3. This is a simulated bash with these commands only: ${LISTED}.]\n[No files changed.]`,
    );
  });

  test(`${b.name}: policy: a denied path is refused inside the interpreter even when no analysis could see it; listings never show it`, async () => {
    const { ws, run } = await setup({ "notes/a.md": "a\n", "secrets/key.env": "TOKEN=s3cr3t\n", "b.env": "X=1\n" }, { requireApproval: false });
    const policy = workspacePolicy({ deny: ["secrets/**", "**/*.env"] });
    const r = await run("ls -R; f=secrets; cat $f/key.env; grep -r TOKEN . ; find . -type f; echo hi > $f/new.txt", policy);
    expect(r.text).toBe(
      "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\nbash: /workspace/secrets/new.txt: Permission denied\n[The shell stopped the command at that failed write; what it printed before was lost.]\n[Refused by policy: 2 other paths. Do not try to reach them another way.]\n[Policy hid 2 files from this command: listings and globs leave them out.]\n[No files changed.]",
    );
    expect((await run("ls -R; cat notes/*; find . -type f | sort", policy)).text).toBe(
      "exit code: 0\n--- stdout ---\n.:\nnotes\n\n./notes:\na.md\na\n./notes/a.md\n--- stderr ---\n(empty)\n[Policy hid 2 files from this command: listings and globs leave them out.]\n[No files changed.]",
    );
    // Named in the command, a denied path is named in the notice.
    expect((await run("cat secrets/key.env", policy)).text).toBe(
      err(
        "permission denied: bash is not allowed for `cat secrets/key.env`, `secrets/key.env` (denied by the workspace policy).",
        "Do not call bash with these arguments again.",
        "If the task cannot be done without it, stop and say which permission is missing.",
      ),
    );
    expect(await snapshot(ws)).toEqual({ "notes/a.md": "a\n", "secrets/key.env": "TOKEN=s3cr3t\n", "b.env": "X=1\n" });
  });
}
