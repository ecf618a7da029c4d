/**
 * One case of `npm run bench -- bash-deadline`, in a process of its own (a
 * runaway case is killed from outside): bash's interpreter in this thread,
 * over a memory workspace through isoagent's filesystem, at the limits
 * derived from the timeout (limits.ts) and with its own deadline out of the
 * way, as in workerd, whose clock does not move while code runs: what the
 * limits alone allow. Prints how long the command took and how it ended,
 * as one JSON line.
 *
 * Usage: tsx bench/bash-deadline-case.ts <timeoutMs> <command as JSON>
 */
import { memoryWorkspace } from "../src/toolkit/index.js";
import { BASH_COMMANDS, inThreadLimits } from "../src/toolkit/bash/index.js";
import { WorkspaceFs } from "../src/toolkit/bash/fs.js";
import { interpret } from "../src/toolkit/bash/interpret.js";
import { loadJustBash } from "../src/toolkit/bash/just-bash.js";

const timeoutMs = Number(process.argv[2]);
const command = JSON.parse(process.argv[3]!) as string;
const ws = memoryWorkspace({ "notes/a.md": "one\ntwo\nthree\n", "big.txt": `${"lorem ipsum dolor sit amet ".repeat(38_000)}\n` });
const jb = await loadJustBash();
const job = { command, root: "/workspace", deadlineMs: 100 * timeoutMs, commands: BASH_COMMANDS, network: false, limits: inThreadLimits(timeoutMs) };
const fsFor = async () => new WorkspaceFs(ws, "/workspace", await ws.list(""), { permit: () => true, trusted: (fn) => fn() });
// Warm: just-bash loaded, an interpreter with these limits built.
await interpret(jb, { ...job, command: "true" }, await fsFor(), undefined, undefined);
const fs = await fsFor();
const t = performance.now();
const r = await interpret(jb, job, fs, undefined, undefined);
const ms = performance.now() - t;
const limit = /(?:^|\n)([^\n]{0,160}(?:limit|iterations|maximum|exceeded)[^\n]{0,80})/i.exec(r.stderr)?.[1];
console.log(JSON.stringify({ ms, outcome: `exit ${r.exitCode}${limit === undefined ? "" : `; ${limit}`}` }));
process.exit(0);
