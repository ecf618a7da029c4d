import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "../../src/index.js";
import { findStranded } from "../../src/testkit/index.js";
import { scaled, until } from "../helpers/time.js";
import { RUN_OBJECTS, startWorker } from "../helpers/workerd.js";
import { remoteStore } from "../helpers/remote-store.js";

// Issue 13, finding 1: a hosted run stranded for good after an operator's
// answer. hostApprove/hostDeny/hostSettle appended, then started a drive,
// without an alarm armed first; a reset (or a killed process) after the
// append left the run `running` with no lease and no alarm, and the index
// still listing it `waiting`. Here the run's object is reset at every await
// point of every operator operation; each run must end completed (or
// cancelled, for a cancel), or wait with a pending approval, with nothing
// stranded and the index agreeing with the run. On the old code (no alarm
// before the append, a drive asked for while one finished joining it) the
// runs reset at "appended", "reported" and "driving" of an approve, a deny
// or a settle stay running with no lease and no alarm.

const TOKEN = "workerd-operator-crash-token-0123456789";
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("test/workerd/workers/do-entry.ts", {
    durableObjects: { ...RUN_OBJECTS.durableObjects, WORLD: { className: "World", useSQLite: true } },
    // No sweep within the test: what brings each run home is its own object's alarm.
    bindings: { ISOAGENT_TOKEN: TOKEN, ISOAGENT_INDEX_SWEEP_MS: "3600000" },
  });
});
afterAll(async () => {
  await mf?.dispose();
});

const api = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...(init.headers as Record<string, string>) },
  } as never);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text };
};
const post = (path: string, body: unknown) => api(path, { method: "POST", body: JSON.stringify(body) });

const POINTS = ["begin", "armed", "appended", "reported", "driving"] as const;

/** An operator's answer, the operation it is in the run object, and what the run waits on first. */
interface Variant {
  readonly name: string;
  readonly op: "approve" | "deny" | "settle" | "cancel";
  /** A call asking for approval, or an interrupted side effect (the run's object reset during the effect). */
  readonly waitsOn: "call" | "interrupted_side_effect";
  answer(runId: string, a: { approvalId: string; requestHash: string }): Promise<{ status: number }>;
}

const decide = (decision: "approve" | "deny") => (runId: string, a: { approvalId: string; requestHash: string }) =>
  post(`/runs/${runId}/approvals/${a.approvalId}`, { decision, requestHash: a.requestHash, by: "test-operator" });
const reconcile = (resolution: string, content?: unknown) => (runId: string, a: { approvalId: string; requestHash: string }) =>
  post(`/runs/${runId}/reconcile`, { approvalId: a.approvalId, requestHash: a.requestHash, resolution, by: "test-operator", ...(content === undefined ? {} : { content }) });

const VARIANTS: readonly Variant[] = [
  { name: "approve_call", op: "approve", waitsOn: "call", answer: decide("approve") },
  { name: "deny_call", op: "deny", waitsOn: "call", answer: decide("deny") },
  { name: "cancel", op: "cancel", waitsOn: "call", answer: (runId) => post(`/runs/${runId}/cancel`, { by: "test-operator" }) },
  { name: "approve_interrupted", op: "approve", waitsOn: "interrupted_side_effect", answer: decide("approve") },
  { name: "settle_run_again", op: "settle", waitsOn: "interrupted_side_effect", answer: reconcile("run_again") },
  { name: "settle_record_result", op: "settle", waitsOn: "interrupted_side_effect", answer: reconcile("record_result", { size: 1 }) },
  { name: "settle_record_failure", op: "settle", waitsOn: "interrupted_side_effect", answer: reconcile("record_failure") },
];

interface Case {
  readonly runId: string;
  readonly variant: Variant;
  readonly point: (typeof POINTS)[number];
}

/** Hosts the case's run and waits until it waits on what the variant answers. */
async function prepare(c: Case): Promise<{ approvalId: string; requestHash: string }> {
  if (c.variant.waitsOn === "interrupted_side_effect") await post(`/test/run/${c.runId}/plan`, { point: "during_effect" });
  await post(`/test/run/${c.runId}/plan`, { point: `${c.variant.op}/${c.point}` });
  const task = c.variant.waitsOn === "call" ? "ask local_mutation" : { goal: c.runId };
  const hosted = await post(`/test/run/${c.runId}/host`, { task });
  expect(hosted.body, JSON.stringify(hosted)).toMatchObject({ ok: true });
  return until(`${c.runId} to wait on a ${c.variant.waitsOn}`, async () => {
    const run = (await api(`/runs/${c.runId}`)).body.run;
    return run?.status === "waiting" ? run.approvals.find((a: any) => a.request.kind === c.variant.waitsOn) : undefined;
  });
}

/** Where a run may rest: ended, or waiting with a pending approval. */
function resting(run: any): boolean {
  return run.status === "completed" || run.status === "cancelled" || run.status === "failed" || (run.status === "waiting" && run.approvals.length > 0);
}

describe("crash injection at every await point of an operator's operation on a hosted run (the object reset there)", () => {
  it(
    "approve, deny, settle (run_again, record_result, record_failure) and cancel: every run ends or waits with a pending approval; nothing is stranded; the index agrees",
    async () => {
      const cases: Case[] = VARIANTS.flatMap((variant) =>
        POINTS.map((point) => ({ runId: `opcrash_${variant.name}_${point}${variant.waitsOn === "interrupted_side_effect" ? "_local_mutation" : ""}`, variant, point })),
      );
      const pending = await Promise.all(cases.map(prepare));
      // Every operator answers at once; each run's object is reset at its point.
      const answered = await Promise.all(cases.map((c, k) => c.variant.answer(c.runId, pending[k]!)));
      for (const [k, c] of cases.entries()) {
        // Answered (200), or the reset reached the caller (500, before the reply left).
        expect([c.runId, [200, 500].includes(answered[k]!.status)]).toEqual([c.runId, true]);
      }
      const ends = await Promise.all(
        cases.map(async (c) => {
          let last: unknown;
          const run = await until(
            () => `${c.runId} to end or wait with a pending approval (last: ${JSON.stringify(last)})`,
            async () => {
              const r = (await api(`/runs/${c.runId}`)).body.run;
              last = { status: r.status, seq: r.seq, lease: r.lease, approvals: r.approvals.length };
              return resting(r) ? r : undefined;
            },
            { timeoutMs: 60_000 },
          );
          const { operatorCrashed } = (await api(`/test/run/${c.runId}/world`)).body as { operatorCrashed: boolean };
          return { c, run, operatorCrashed };
        }),
      );
      const summary = ends.map(({ c, run, operatorCrashed }) => `${c.variant.name} at ${c.point}: ${run.status}${operatorCrashed ? " (reset)" : ""}`);
      console.log(summary.join("\n"));
      for (const { c, run, operatorCrashed } of ends) {
        // Every planned reset happened.
        expect([c.runId, operatorCrashed]).toEqual([c.runId, true]);
        if (c.variant.op === "cancel") expect([c.runId, ["cancelled", "waiting"].includes(run.status)]).toEqual([c.runId, true]);
        else expect([c.runId, run.status === "cancelled"]).toEqual([c.runId, false]);
        // A reset once the index has heard of the answer loses nothing: the
        // report left the object through its output gate, so the append before
        // it was confirmed. (A reset right after the append, before anything
        // left, may roll it back: the operator got an error, and the run still
        // waits on the same approval.)
        if (c.point === "reported" || c.point === "driving") {
          const events = (await api(`/runs/${c.runId}/events`)).body.events as JournalEvent[];
          const answeredIn = events.some((e) => (c.variant.op === "cancel" ? e.type === "run.cancelled" : e.type === "approval.resolved"));
          expect([c.runId, answeredIn]).toEqual([c.runId, true]);
        }
      }
      // The index agrees with each run (status and seq) within a sweep.
      await until("the index to agree with every run", async () => {
        const listed = new Map(((await api("/runs?limit=500")).body.runs as { runId: string; status: string; seq: number }[]).map((r) => [r.runId, r]));
        for (const { c } of ends) {
          const run = (await api(`/runs/${c.runId}`)).body.run;
          const row = listed.get(c.runId);
          if (row === undefined || row.status !== run.status || row.seq !== run.seq) return false;
        }
        return true;
      });
      // Nothing stranded: by the index's check (lease, alarm, each run's own status), and by the testkit's, through the Store port.
      const report = (await api("/test/index/stranded?grace=0")).body as { stranded: unknown[]; unreachable: unknown[] };
      expect(report.stranded).toEqual([]);
      expect(report.unreachable).toEqual([]);
      expect(
        await findStranded(
          remoteStore((path, body) => mf.dispatchFetch(`http://localhost${path}`, { method: "POST", body } as never)),
          Date.now(),
          { grace: 0 },
        ),
      ).toEqual([]);
    },
    scaled(180_000),
  );
});

describe("an answer that comes while the drive before it is finishing", () => {
  // Issue 13, finding 1: drive() joined a drive still finishing
  // (`this.driving ??=`), which had read the journal before the answer, so
  // nothing drove the run on. Here the drive is held once it has finished
  // its pass (the run waiting), the operator approves, the object's alarm is
  // dropped (as a lost one would be), and the drive is let go: it must go
  // round again and take the approved call. On the old code it ends, and
  // the run stays running with no lease and no alarm.
  it("makes the finishing drive go round again: the approved call runs without any alarm", async () => {
    const runId = "finishing_drive";
    await post(`/test/run/${runId}/hold`, {});
    await post(`/test/run/${runId}/host`, { task: "ask local_mutation" });
    const first = await until("the run to wait on its first approval", async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return run?.status === "waiting" ? run.approvals[0] : undefined;
    });
    expect((await post(`/runs/${runId}/approvals/${first.approvalId}`, { decision: "approve", requestHash: first.requestHash, by: "test-operator" })).status).toBe(200);
    await post(`/test/run/${runId}/drop-alarm`, {});
    await post(`/test/run/${runId}/release`, {});
    const next = await until("the approved call to run and the run to wait on its second approval", async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return run.status === "waiting" && run.approvals[0]?.approvalId !== first.approvalId ? run : undefined;
    });
    expect(next.approvals[0].request.args).toEqual({ item: "b" });
  });
});

describe("the index's sweep", () => {
  // The second line: a hosted run stranded anyway (its alarm lost, as
  // workerd's "alarm overdue ... AlarmManager mismatch" after a kill
  // suggests can happen) is found by the index's check, and re-armed by its
  // sweep, which also tells the index what it missed.
  it("finds a hosted run stranded with its alarm lost, re-arms it, and the run goes on", async () => {
    const runId = "swept";
    await post(`/test/run/${runId}/plan`, { point: "approve/reported" });
    await post(`/test/run/${runId}/host`, { task: "ask local_mutation" });
    const first = await until("the run to wait on its first approval", async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return run?.status === "waiting" ? run.approvals[0] : undefined;
    });
    // The object is reset once the answer is journaled and reported, before any drive; then its alarm is lost.
    expect((await post(`/runs/${runId}/approvals/${first.approvalId}`, { decision: "approve", requestHash: first.requestHash, by: "test-operator" })).status).toBe(500);
    await post(`/test/run/${runId}/drop-alarm`, {});
    const found = (await api("/test/index/stranded?grace=0")).body as { stranded: { runId: string; status: string; alarmAt: number | null; hosted: boolean; lease: unknown }[] };
    expect(found.stranded.filter((s) => s.runId === runId)).toMatchObject([{ runId, status: "running", alarmAt: null, hosted: true, lease: null }]);
    const swept = (await api("/test/index/sweep")).body as { healed: { runId: string; healed: string[] }[] };
    expect(swept.healed.find((h) => h.runId === runId)?.healed).toContain("armed");
    await until("the swept run to go on to its second approval", async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return run.status === "waiting" && run.approvals[0]?.approvalId !== first.approvalId;
    });
    expect((await api("/test/index/stranded?grace=0")).body.stranded).toEqual([]);
  });
});

describe("a hosted run its deployment can no longer resume", () => {
  // Issue 12: a changed tool shape keeps the rule (the run is not resumed,
  // TOOL_SHAPE_CHANGED naming the tool), and the operator sees why: the run
  // object keeps the last drive's failure, which the API's view shows.
  it("shows the operator TOOL_SHAPE_CHANGED, naming the tool, and runs nothing", async () => {
    const runId = "reshaped_run";
    await post(`/test/run/${runId}/host`, { task: "ask local_mutation" });
    const first = await until("the run to wait on its approval", async () => {
      const run = (await api(`/runs/${runId}`)).body.run;
      return run?.status === "waiting" ? run.approvals[0] : undefined;
    });
    await post(`/test/run/${runId}/reshape`, {});
    const answered = await post(`/runs/${runId}/approvals/${first.approvalId}`, { decision: "approve", requestHash: first.requestHash, by: "test-operator" });
    expect(answered, JSON.stringify(answered.body)).toMatchObject({ status: 200 });
    const run = await until("the run's view to show why it is not driven", async () => {
      const r = (await api(`/runs/${runId}`)).body.run;
      return r.problem !== undefined ? r : undefined;
    });
    expect(run.status).toBe("running");
    expect(run.problem).toEqual({
      code: "TOOL_SHAPE_CHANGED",
      message: `run ${runId} was not offered tool "erase", which this driver offers (register tools conditionally; never change a tool's shape under a live run)`,
    });
    const world = (await api(`/test/run/${runId}/world`)).body as { log: { tool: string }[] };
    expect(world.log).toEqual([]);
  });
});
