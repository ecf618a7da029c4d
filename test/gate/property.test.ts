/**
 * A property test of the gate (issue 12): random workspaces x random deny
 * globs x every workspace tool with random arguments, and bash (issue 19)
 * with commands that name a file, hide it from the command analysis, or
 * reach files only through listings, globs and copies, through a real
 * driver (the gate, the approval with its dry-run preview, execution, the
 * journal).
 *
 * - No result, error, preview, activity line, artifact, journal event or
 *   permission reason contains a denied file's content.
 * - None names a denied path the model did not itself name in its arguments
 *   (a denial names the path the model asked for, as seed 002 wants).
 * - No denied file is changed.
 *
 * Every file carries a secret marker on its second line that no argument
 * ever quotes, and a name token no other file shares, so a substring search
 * finds a leak exactly. At least 30% of the cases must really touch a denied
 * file (a named path that is denied, or a folder scope that holds one), so
 * the test cannot pass without testing.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, final, memoryStore, rulesPolicy, scriptedAgent, workspacePolicy, type JournalEvent, type Policy } from "../../src/index.js";
import { globMatch } from "../../src/policy/index.js";
import { memoryWorkspace, workspaceTools, type Workspace } from "../../src/toolkit/index.js";
import { bashTool } from "../../src/toolkit/bash/index.js";
import { rng } from "../helpers/rng.js";

const CASES = Number(process.env["ISOAGENT_GATE_CASES"] ?? 2000);
const SEED = Number(process.env["ISOAGENT_GATE_SEED"] ?? 20261201);

interface FileSpec {
  readonly path: string;
  /** The token only this file's name has. */
  readonly token: string;
  readonly marker: string;
  readonly secret: string;
  readonly content: string;
}

interface Case {
  readonly files: FileSpec[];
  readonly globs: string[];
  readonly policy: Policy;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly writePermission: "allow" | "ask";
  readonly touchesDenied: boolean;
}

const FOLDERS = ["", "docs", "secrets", "src", "src/lib", "notes/old"];

function makeCase(r: () => number): Case {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const tok = (prefix: string): string =>
    `${prefix}${Math.floor(r() * 36 ** 8)
      .toString(36)
      .padStart(8, "0")}`;
  const files: FileSpec[] = [];
  const count = 3 + Math.floor(r() * 7);
  for (let k = 0; k < count; k++) {
    const token = tok("n");
    const folder = pick(FOLDERS);
    const name = r() < 0.15 ? `${token}.env` : `${token}.${pick(["md", "txt", "ts"])}`;
    const path = folder === "" ? name : `${folder}/${name}`;
    const marker = tok("m");
    const secret = tok("s");
    files.push({ path, token, marker, secret, content: `alpha ${marker}\nbeta ${secret}\ngamma\n` });
  }
  const globs: string[] = [];
  for (let k = 1 + Math.floor(r() * 2); k > 0; k--) {
    const f = pick(files);
    globs.push(pick([f.path, "**/*.env", "secrets/**", `**/${f.path.split("/").at(-1)!}`, f.path.includes("/") ? `${f.path.slice(0, f.path.lastIndexOf("/"))}/**` : "*.md", "src/**/*.ts"]));
  }
  const policy: Policy = r() < 0.5 ? rulesPolicy(globs.map((match) => ({ resource: { kind: "path", match }, permission: "deny" as const }))) : workspacePolicy({ deny: globs });
  const denied = (path: string): boolean => globs.some((g) => globMatch(g, path));
  const target = pick(files);
  const folder = pick(FOLDERS);
  const under = (prefix: string): boolean => files.some((f) => (prefix === "" || f.path.startsWith(`${prefix}/`)) && denied(f.path));
  const tool = pick(["read_file", "write_file", "edit_file", "apply_patch", "list_files", "search_files", "bash"]);
  let args: Record<string, unknown>;
  let touchesDenied: boolean;
  switch (tool) {
    case "read_file":
      args = { path: r() < 0.9 ? target.path : `${target.path}.missing` };
      touchesDenied = denied(args["path"] as string);
      break;
    case "write_file":
      args = { path: target.path, content: "replaced\n" };
      touchesDenied = denied(target.path);
      break;
    case "edit_file":
      args = { path: target.path, old_text: `alpha ${target.marker}`, new_text: "alpha edited" };
      touchesDenied = denied(target.path);
      break;
    case "apply_patch": {
      const other = pick(files);
      const section = (f: FileSpec) => `--- a/${f.path}\n+++ b/${f.path}\n@@ -1,1 +1,1 @@\n-alpha ${f.marker}\n+alpha patched\n`;
      const sections = other === target ? [target] : [target, other];
      args = { patch: sections.map(section).join("") };
      touchesDenied = sections.some((f) => denied(f.path));
      break;
    }
    case "list_files":
      args = { ...(folder === "" && r() < 0.5 ? {} : { path: folder }), ...(r() < 0.3 ? { pattern: pick(["**", "**/*.env", "*.md", "**/*.ts"]) } : {}) };
      touchesDenied = under(folder);
      break;
    case "bash": {
      // Commands that name the target, hide it from the analysis, or reach
      // denied files only through listings, globs and copies.
      const dir = folder === "" ? "." : folder;
      const named = denied(target.path);
      const commands: [string, boolean][] = [
        [`cat ${target.path}`, named],
        [`cat "$(echo ${target.path})"`, named],
        [`ls -R ${dir}`, under(folder)],
        [`grep -rn alpha ${dir}; true`, under(folder)],
        [`find ${dir} -type f | sort | xargs cat`, under(folder)],
        [`cat ${dir}/* 2>/dev/null; true`, under(folder)],
        [`cp -r ${dir} backup 2>&1; ls -R backup; cat backup/* 2>/dev/null; true`, under(folder)],
        [`du -a ${dir}; tree ${dir}`, under(folder)],
        [`for f in $(find . -type f); do head -n 2 $f; done`, under("")],
        [`sed -i 's/alpha/omega/' ${target.path}`, named],
        [`echo more >> ${target.path}`, named],
        [`rm -f ${target.path}`, named],
        [`rm -rf ${dir}/* 2>&1; ls -R`, under(folder)],
      ];
      const [command, touches] = pick(commands);
      args = { command };
      touchesDenied = touches;
      break;
    }
    default:
      args = { query: pick(["alpha", "beta", "gamma", target.marker, "^be.a", "[0-9]"]), ...(pick(["alpha", "beta"]) === "beta" ? { regex: true } : {}), ...(r() < 0.5 ? { path: folder } : {}) };
      touchesDenied = under(typeof args["path"] === "string" ? (args["path"] as string) : "");
      break;
  }
  return { files, globs, policy, tool, args, writePermission: r() < 0.5 ? "allow" : "ask", touchesDenied };
}

/** Everything the run produced for people and the model (its events but the agent's own decision and the arguments it wrote), and the artifacts it names. */
async function outputs(events: JournalEvent[], store: ReturnType<typeof memoryStore>): Promise<string> {
  const parts: string[] = [];
  for (const e of events) {
    if (e.type === "step.decided") continue;
    if (e.type === "approval.requested") {
      const { args: _a, argsHash: _h, ...request } = e.request;
      parts.push(JSON.stringify(request));
      continue;
    }
    parts.push(JSON.stringify(e));
  }
  const text = parts.join("\n");
  for (const sha of text.match(/[0-9a-f]{64}/g) ?? []) {
    const bytes = await store.getArtifact(sha);
    if (bytes !== null) parts.push(new TextDecoder().decode(bytes));
  }
  return parts.join("\n");
}

async function runCase(c: Case): Promise<{ leaks: string[] }> {
  const ws: Workspace = memoryWorkspace(Object.fromEntries(c.files.map((f) => [f.path, f.content])));
  const store = memoryStore();
  const tools = [...workspaceTools(ws, { writePermission: c.writePermission }).tools, bashTool({ workspace: ws, artifacts: store, requireApproval: c.writePermission === "ask", maxLines: 20 }).tool];
  const driver = createDriver({ store, tools: tools as never, policy: c.policy, agent: scriptedAgent([calls(call(c.tool, c.args as never)), final("done")]) });
  let outcome = await driver.start("t");
  for (let k = 0; outcome.status === "waiting" && k < 3; k++) {
    const a = outcome.approvals[0]!;
    await driver.approve(outcome.runId, a.approvalId, { requestHash: a.requestHash, by: "property" });
    outcome = await driver.resume(outcome.runId);
  }
  const text = await outputs(await store.read(outcome.runId), store);
  const named = JSON.stringify(c.args);
  const leaks: string[] = [];
  for (const f of c.files) {
    if (!c.globs.some((g) => globMatch(g, f.path))) continue;
    if (text.includes(f.secret)) leaks.push(`content of denied ${f.path}`);
    if (!named.includes(f.token) && text.includes(f.token)) leaks.push(`name of denied ${f.path}`);
    const now = await ws.read(f.path);
    if (now === undefined || new TextDecoder().decode(now) !== f.content) leaks.push(`denied ${f.path} was changed`);
  }
  return { leaks };
}

describe("a property test of the gate", () => {
  it(`${CASES} random workspaces x deny globs x workspace tools: no denied content or unnamed denied path anywhere, no denied file changed (seed ${SEED})`, async () => {
    const r = rng(SEED);
    let touching = 0;
    const byTool: Record<string, number> = {};
    const failures: string[] = [];
    for (let k = 0; k < CASES; k++) {
      const c = makeCase(r);
      if (c.touchesDenied) touching++;
      byTool[c.tool] = (byTool[c.tool] ?? 0) + 1;
      const { leaks } = await runCase(c);
      if (leaks.length > 0 && failures.length < 5) failures.push(`case ${k}: ${c.tool} ${JSON.stringify(c.args)} with deny ${JSON.stringify(c.globs)}: ${leaks.join("; ")}`);
    }
    console.log(`gate property: ${CASES} cases (seed ${SEED}), ${touching} touching a denied file, by tool ${JSON.stringify(byTool)}`);
    expect(failures).toEqual([]);
    expect(touching / CASES).toBeGreaterThanOrEqual(0.3);
    for (const tool of ["read_file", "write_file", "edit_file", "apply_patch", "list_files", "search_files", "bash"]) expect(byTool[tool] ?? 0, tool).toBeGreaterThan(CASES / 12);
  }, 120_000);
});
