/**
 * bash in workerd without nodejs_compat (plain miniflare: workerd refuses
 * code generation from strings, and there is no `process`): just-bash's
 * browser build, bundled as a Worker bundles it (node:zlib aliased to
 * isoagent's stub), runs commands over a workspace in memory and over a
 * Durable Object's SQLite storage; and the crash matrix for bash, where a
 * crash is the run object's reset and its workspace lives in that object.
 */
import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "../../src/index.js";
import { baselineOf, CRASH_POINTS, judge, type CrashResult, type Execution, type RunRecord } from "../../src/testkit/index.js";
import { bashScenario } from "../../scripts/lib/bash-crash.js";
import { formatMatrix, matrixProblems } from "../../scripts/lib/crash-matrix.js";
import { RUN_OBJECTS, startWorker, WORKERD_INSTRUMENTED } from "../helpers/workerd.js";
import type { Workspace } from "../../src/toolkit/index.js";
import { bashCases } from "../toolkit/bash-cases.js";
import { inThreadLimits } from "../../src/toolkit/bash/index.js";

const TOKEN = "workerd-bash-token-0123456789";
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("test/workerd/workers/bash-entry.ts", {
    durableObjects: { ...RUN_OBJECTS.durableObjects, SHELLS: { className: "ShellObject", useSQLite: true }, WORKSPACES: { className: "WorkspaceObject", useSQLite: true } },
    bindings: { ISOAGENT_TOKEN: TOKEN },
  });
});
afterAll(async () => {
  await mf?.dispose();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const api = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  } as never);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
};
const post = (path: string, body: unknown) => api(path, { method: "POST", body: JSON.stringify(body) });

describe("bash in workerd, no nodejs_compat", () => {
  it("runs pipelines, commits changes, refuses paths outside the workspace, stops an endless loop at its deadline; eval refused, no process", async () => {
    const { body } = await post("/bash/memory", { commands: ["cat notes/a.md | wc -l; echo x > b.txt; ls", "p=/etc; echo x > $p/passwd", "while true; do sleep 0.05; done"], timeoutMs: 1500 });
    expect(body.platform).toEqual({ process: "undefined", codegen: "refused: Code generation from strings disallowed for this context" });
    expect(body.texts).toEqual([
      "exit code: 0\n--- stdout ---\n2\nb.txt\nnotes\n--- stderr ---\n(empty)\n[Committed 1 file change: created b.txt (+1 -0).]",
      "exit code: 1\n--- stdout ---\n(empty)\n--- stderr ---\nbash: /etc/passwd: Permission denied\n[The shell stopped the command at that failed write; what it printed before was lost.]\n[Refused by the shell: write /etc/passwd (outside the workspace).]\n[No files changed.]",
      "Error: the command did not finish within its time limit (1,500 ms) and was stopped; nothing was changed\n[Next: Make it finish sooner: no endless loops, fewer files or smaller inputs per call.]\n[Recovery: If the work cannot be made smaller, stop and say so.]",
    ]);
    expect(body.files).toEqual({ "b.txt": "x\n", "notes/a.md": "one\ntwo\n" });
  });

  it("runs inside a Durable Object over its SQLite storage", async () => {
    const { body } = await post("/bash/sqlite", { commands: ["sed -i 's/two/2/' notes/a.md && mkdir -p d && cp notes/a.md d/copy.md && cat d/copy.md"] });
    expect(body.texts).toEqual(["exit code: 0\n--- stdout ---\none\n2\n--- stderr ---\n(empty)\n[Committed 2 file changes: created d/copy.md (+2 -0), notes/a.md (+1 -1).]"]);
    expect(body.files).toEqual({ "d/copy.md": "one\n2\n", "notes/a.md": "one\n2\n" });
  });
});

describe("finding 2 in workerd (no threads): the limits derived from the timeout", () => {
  const TIMEOUT_TEXT =
    "Error: the command did not finish within its time limit (3,000 ms) and was stopped; nothing was changed\n[Next: Make it finish sooner: no endless loops, fewer files or smaller inputs per call.]\n[Recovery: If the work cannot be made smaller, stop and say so.]";
  it("a loop that waits is stopped at its deadline (failure \"timeout\", the isolate's timers firing during it); loops that never yield end at the shell's limits, derived from the timeout; the run keeps its lease under leaseTtlMs 6000", async () => {
    const commands = [
      "while true; do sleep 0.05; done",
      "echo a | sed ':a; s/a/aa/; ba'",
      `echo ${"a".repeat(130)} | sed ':a; s/a/aa/; ba'`,
      `awk 'BEGIN { s = "a"; while (1) gsub(/a/, "aa", s) }'`,
      "while true; do :; done",
    ];
    const { status, body } = await post("/bash/deadline", { commands, timeoutMs: 3000 });
    expect(status).toBe(200);
    const limits = inThreadLimits(3000);
    const [sleeping, sed, sed130, awk, loop] = body.results as {
      observation: { type: string; failure?: string; error?: string; content?: string };
      fired: number;
      status: string;
      stopped: string | null;
    }[];
    for (const o of body.results as { status: string; stopped: string | null }[]) expect([o.status, o.stopped]).toEqual(["completed", null]);
    expect(sleeping!.observation).toEqual({ type: "tool_error", failure: "timeout", error: TIMEOUT_TEXT });
    // It waits between iterations: the isolate's loop runs on (a blocked loop would fire none during the call).
    expect(sleeping!.fired).toBeGreaterThanOrEqual(10);
    // Each ends at its limit, which the limits derived from the timeout make come before it. Only
    // in a coverage run (instrumented code, several times slower) may the deadline just-bash checks
    // between statements (maxExecutionTimeMs) come first instead.
    const endedAt = (o: { observation: { type: string; failure?: string; error?: string; content?: string } }, limit: RegExp): void => {
      if (WORKERD_INSTRUMENTED && o.observation.failure === "timeout") expect(o.observation).toEqual({ type: "tool_error", failure: "timeout", error: TIMEOUT_TEXT });
      else expect(o.observation.content).toMatch(limit);
    };
    const escape = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const o of [sed!, sed130!]) endedAt(o, new RegExp(escape(`sed: sed: command execution exceeded maximum iterations (${limits["maxSedIterations"]})`)));
    endedAt(awk!, new RegExp(escape(`awk: string size limit exceeded (${limits["maxStringLength"]} bytes)`)));
    endedAt(loop!, new RegExp(`too many commands executed \\(>${limits["maxCommandCount"]}\\)|too many iterations \\(${limits["maxLoopIterations"]}\\)`));
  });
});

function encode(v: unknown): unknown {
  if (v instanceof Uint8Array) return { __bytes: Buffer.from(v).toString("base64") };
  if (Array.isArray(v)) return v.map(encode);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  return v;
}
function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o["__bytes"] === "string") return new Uint8Array(Buffer.from(o["__bytes"], "base64"));
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}

/** A Workspace whose every call reaches a Durable Object's sqlWorkspace over RPC. */
function remoteWorkspace(name: string): Workspace {
  const call =
    (method: string) =>
    async (...args: unknown[]) => {
      const res = await mf.dispatchFetch(`http://localhost/test/workspace/${name}/${method}`, { method: "POST", body: JSON.stringify(encode(args)) });
      return decode(((await res.json()) as { value: unknown }).value) ?? undefined;
    };
  return { read: call("read"), list: call("list"), commit: call("commit"), receipt: call("receipt") } as unknown as Workspace;
}

let workspaces = 0;
describe("bash's cases on a Durable Object's SQLite storage (the shell in Node, the workspace in workerd)", () => {
  bashCases({ name: "durable object", make: async () => remoteWorkspace(`bash-ws-${++workspaces}`) }, (name, fn) => it(name, fn, 60_000));
});

/** Hosts a bash run that crashes (its object reset) at `point`, and waits for its alarm to bring it home. */
async function crashRun(runId: string, point: string | null): Promise<{ crashed: boolean; record: RunRecord }> {
  if (point !== null) await post(`/test/run/${runId}/plan`, { point });
  const hosted = await post(`/test/run/${runId}/host`, { task: { goal: runId } });
  expect(hosted.body, JSON.stringify(hosted)).toMatchObject({ ok: true });
  let run: any;
  for (let k = 0; k < 600; k++) {
    run = (await api(`/runs/${runId}`)).body.run;
    if (run.status === "completed" || run.status === "failed") break;
    for (const a of run.approvals ?? []) {
      if (a.request.kind === "interrupted_side_effect") await post(`/runs/${runId}/reconcile`, { approvalId: a.approvalId, requestHash: a.requestHash, resolution: "run_again", by: "test-operator" });
    }
    await sleep(50);
  }
  const events = (await api(`/runs/${runId}/events`)).body.events as JournalEvent[];
  const { world, log, crashed } = (await api(`/test/run/${runId}/world`)).body as { world: RunRecord["world"]; log: Execution[]; crashed: boolean };
  return { crashed, record: { status: run.status, output: run.output, events, log, world } };
}

describe("the crash matrix covers bash in a run object (a crash is the object's reset)", () => {
  it("bash over the object's own SQLite workspace, crashed at 5 points: no lost step, no unreconciled re-execution, the workspace as the uncrashed run left it", async () => {
    const base = await crashRun("bash_plain", null);
    expect(base.record.world).toEqual({ "list.txt": "a\nb\n" });
    const baseline = baselineOf(base.record);
    const rows: CrashResult[] = [];
    for (const point of CRASH_POINTS) {
      const { crashed, record } = await crashRun(`bash_crash_${point}`, point);
      rows.push(judge(bashScenario(), point, crashed, baseline, record));
    }
    console.log(formatMatrix(rows));
    expect(matrixProblems(rows)).toEqual([]);
    expect(rows.every((r) => r.status === "completed" && r.finalEqual === true)).toBe(true);
    // From the call's start on, an interrupted call is settled by bash's hook, from the receipt the reset kept or lost.
    expect(rows.map((r) => r.recovery)).toEqual(["none", "hook", "hook", "hook", "hook"]);
  }, 180_000);
});
