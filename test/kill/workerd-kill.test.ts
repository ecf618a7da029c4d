import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JournalEvent } from "../../src/index.js";
import { rng } from "../helpers/rng.js";
import { scaled, until } from "../helpers/time.js";
import { bundleWorker } from "../helpers/workerd.js";
import { STEPS, TURNS, TURN_STEPS } from "./agent.js";
import { judgeRuns, judgeTurns, startGroup, startObserver, type Group, type JudgedRun, type Observer } from "./harness.js";

// Real process kills (issue 13): Node running miniflare running workerd, on
// Durable Object storage persisted on disk, is killed with SIGKILL to its
// whole process group at random moments, including right after an
// operator's answer, and restarted on the same storage. The tools' effects
// reach an observer in this process. The judge: journals verify; no lost
// step; no effect of a call that is not read_only repeated without a
// journaled decision; no effect before its start was journaled; no
// stranded run (every run ends, and the index finds none); the index
// agrees with each run. Bounded: ISOAGENT_KILL_SECONDS of kills (default
// 45), then one last start with no kill. ISOAGENT_KILL_SEED replays a seed.
// Conversations are driven through the kills too (issue 29): their
// messages are sent (and sent again, the same id, as a client retries)
// around the kills, and each is in the journal once and answered once.

const SECONDS = Number(process.env["ISOAGENT_KILL_SECONDS"] ?? 45);
const SEED = Number(process.env["ISOAGENT_KILL_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
/** Runs kept going at once during the kills, and the most created in all. */
const ACTIVE = 4;
const MAX_RUNS = 40;
const TOKEN = "kill-test-token-0123456789abcdef";
/** Conversations among the runs (each sent TURNS messages, answered by agent.ts). */
const CHATS = 3;

let dir: string | undefined;
let observer: Observer | undefined;
let current: Group | undefined;

afterAll(async () => {
  await current?.kill();
  await observer?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function start(script: string, store: string, sweepMs: number): Promise<{ group: Group; base: string }> {
  const { group, match } = await startGroup(process.execPath, ["test/kill/workerd-child.mjs", script, store, observer!.url, TOKEN, String(sweepMs)], /READY (http:\/\/\S+)/, {
    timeoutMs: scaled(60_000),
  });
  current = group;
  return { group, base: match[1]!.replace(/\/$/, "") };
}

describe("workerd killed with SIGKILL (its whole process group) and restarted on its storage", () => {
  it(
    `loses no step, repeats no effect, strands no run; the index agrees (seed ${SEED})`,
    async () => {
      console.log(`workerd kill test: seed ${SEED} (ISOAGENT_KILL_SEED=${SEED} replays it), ${SECONDS} s of kills`);
      const random = rng(SEED);
      dir = mkdtempSync(join(tmpdir(), "isoagent-kill-workerd-"));
      const script = join(dir, "worker.mjs");
      writeFileSync(script, await bundleWorker("test/workerd/workers/kill-entry.ts"));
      const store = join(dir, "do");
      observer = await startObserver();

      const known = new Set<string>();
      let kills = 0;
      let afterAnswer = 0;
      let answers = 0;
      let created = 0;
      const call = async (base: string, path: string, body?: unknown): Promise<any> => {
        const res = await fetch(`${base}${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(scaled(15_000)),
        });
        return res.json();
      };
      const ended = new Set<string>();
      /** The operator: answers one pending approval of the run, if it has one; true when it did. */
      const operate = async (base: string, runId: string): Promise<boolean> => {
        const { run } = await call(base, `/runs/${runId}`);
        if (["completed", "failed", "cancelled"].includes(run?.status)) ended.add(runId);
        const a = run?.approvals?.[0];
        if (a === undefined) return false;
        if (a.request.kind === "call") {
          await call(base, `/runs/${runId}/approvals/${a.approvalId}`, { decision: random() < 0.85 ? "approve" : "deny", requestHash: a.requestHash, by: "kill-test" });
        } else {
          const pick = random();
          if (pick < 0.25) await call(base, `/runs/${runId}/approvals/${a.approvalId}`, { decision: "approve", requestHash: a.requestHash, by: "kill-test" });
          else {
            const resolution = pick < 0.55 ? "run_again" : pick < 0.8 ? "record_result" : "record_failure";
            await call(base, `/runs/${runId}/reconcile`, {
              approvalId: a.approvalId,
              requestHash: a.requestHash,
              resolution,
              by: "kill-test",
              ...(resolution === "record_result" ? { content: { done: a.request.args.what } } : {}),
            });
          }
        }
        answers++;
        return true;
      };
      const list = async (base: string): Promise<{ runId: string; status: string; seq: number }[]> => (await call(base, "/runs?limit=500")).runs;
      const chats = new Set<string>();
      let sent = 0;
      let resent = 0;
      /** Resends that were not answered as the duplicate they are. */
      const notDuplicate: string[] = [];
      /** The user of a conversation: between turns, sends the next message (or, at times, the last one again), and closes it after the last. True when it sent. */
      const converse = async (base: string, runId: string): Promise<boolean> => {
        const { run } = await call(base, `/runs/${runId}`);
        if (run?.status !== "idle") return false;
        const turn = run.conversation.turn as number;
        if (turn >= TURNS) {
          await call(base, `/runs/${runId}/close`, { by: "kill-test" });
          return false;
        }
        if (turn > 0 && random() < 0.3) {
          // A client that did not hear back sends the same message again: taken once.
          const again = await call(base, `/runs/${runId}/messages`, { id: `m${turn}`, text: `message ${turn}` });
          if (again.duplicate === true) resent++;
          else notDuplicate.push(`${runId} m${turn}: ${JSON.stringify(again)}`);
        }
        await call(base, `/runs/${runId}/messages`, { id: `m${turn + 1}`, text: `message ${turn + 1}` });
        sent++;
        return true;
      };

      // ---- kills --------------------------------------------------------------------
      const stopAt = Date.now() + SECONDS * 1000;
      while (Date.now() < stopAt) {
        const { group, base } = await start(script, store, 2_000);
        const lifetime = 300 + random() * 2700;
        const killAfterAnswer = random() < 0.6;
        let deadline = Date.now() + lifetime;
        try {
          for (const r of await list(base)) known.add(r.runId);
          const active = [...known].filter((id) => !ended.has(id)).length;
          const toCreate = Math.min(MAX_RUNS - created, Math.max(0, ACTIVE - active));
          for (let k = 0; k < toCreate; k++) {
            created++;
            known.add(((await call(base, "/runs", { task: `kill test run ${created}` })) as { runId: string }).runId);
          }
          while (chats.size < CHATS) {
            const { runId } = (await call(base, "/runs", { task: `kill chat ${chats.size + 1}`, conversation: true })) as { runId: string };
            chats.add(runId);
            known.add(runId);
          }
          while (Date.now() < deadline) {
            for (const runId of known) {
              if (ended.has(runId) || Date.now() >= deadline) continue;
              const acted = (await operate(base, runId)) || (chats.has(runId) && (await converse(base, runId)));
              if (acted && killAfterAnswer && deadline - Date.now() > 300) {
                // Right after an operator's answer: within 0-300 ms.
                deadline = Date.now() + random() * 300;
                afterAnswer++;
              }
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        } catch {
          // A request cut short by the kill's timing, or refused while the run moved on: the next start carries on.
        }
        await group.kill();
        current = undefined;
        kills++;
      }

      // ---- one last start, no kill: every run must end --------------------------------
      const { base } = await start(script, store, 2_000);
      for (const r of await list(base)) known.add(r.runId);
      const states = new Map<string, any>();
      await until(
        () =>
          `every run to end (${[...states.values()]
            .filter((s) => s.status !== "completed")
            .map((s) => `${s.runId}: ${s.status} seq ${s.seq} lease ${JSON.stringify(s.lease)}`)
            .join("; ")})`,
        async () => {
          for (const runId of known) {
            if (states.has(runId) && ended.has(runId)) continue;
            await operate(base, runId);
            if (chats.has(runId)) await converse(base, runId);
            const { run } = await call(base, `/runs/${runId}`);
            states.set(runId, run);
            if (["completed", "failed", "cancelled"].includes(run.status)) ended.add(runId);
          }
          return ended.size === known.size && states.size === known.size;
        },
        { timeoutMs: 90_000, everyMs: 100 },
      );
      // The index agrees with each run within a sweep (2 s here).
      const judged = async (): Promise<JudgedRun[]> => {
        const listed = new Map((await list(base)).map((r) => [r.runId, r]));
        return Promise.all(
          [...known].map(async (runId) => {
            const { events } = (await call(base, `/runs/${runId}/events`)) as { events: JournalEvent[] };
            return { runId, status: states.get(runId).status as string, events, listed: listed.get(runId) };
          }),
        );
      };
      let runs = await judged();
      await until("the index to agree with every run", async () =>
        (runs = await judged()).every((r) => r.listed !== undefined && r.listed.status === r.status && r.listed.seq === r.events[r.events.length - 1]!.seq),
      );
      const stranded = (await call(base, "/test/stranded?grace=0")) as { stranded: unknown[]; unreachable: unknown[] };
      const tasks = judgeRuns(
        runs.filter((r) => !chats.has(r.runId)),
        observer.effects.filter((x) => !chats.has(x.runId)),
        STEPS,
      );
      const talks = judgeRuns(
        runs.filter((r) => chats.has(r.runId)),
        observer.effects.filter((x) => chats.has(x.runId)),
        TURNS * TURN_STEPS,
      );
      const turns = judgeTurns(
        runs.filter((r) => chats.has(r.runId)),
        TURNS,
      );
      const verdict = { ...tasks, runs: tasks.runs + talks.runs, completed: tasks.completed + talks.completed, problems: [...tasks.problems, ...talks.problems, ...turns] };
      const summary = `workerd kill test (seed ${SEED}): ${kills} kills (${afterAnswer} right after an operator's answer or a message), ${answers} operator answers, ${sent} messages sent (${resent} sent again), ${verdict.runs} runs (${talks.runs} conversations, ${verdict.completed} completed), ${observer.effects.length} effects; lost steps ${tasks.lostSteps + talks.lostSteps}, repeated effects ${tasks.repeatedEffects + talks.repeatedEffects}, effects before their start ${tasks.unjournaledEffects + talks.unjournaledEffects}, broken chains ${tasks.brokenChains.length + talks.brokenChains.length}, stranded runs ${stranded.stranded.length + tasks.notEnded.length + talks.notEnded.length}, index disagreements ${tasks.indexDisagrees.length + talks.indexDisagrees.length}, turn problems ${turns.length}`;
      console.log(summary);
      expect(verdict.problems).toEqual([]);
      expect(talks.completed).toBe(CHATS);
      expect(notDuplicate).toEqual([]);
      expect(stranded).toMatchObject({ stranded: [], unreachable: [] });
      expect(verdict.runs).toBeGreaterThan(0);
      expect(kills).toBeGreaterThan(0);
    },
    scaled((SECONDS + 180) * 1000),
  );
});
