/**
 * What the process-kill tests share: processes started in their own group
 * and killed with SIGKILL to the whole group; an observer of effects that
 * lives in the test process (outside everything killed); and the judge.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { JournalEvent } from "../../src/index.js";
import { verifyChain } from "../../src/journal/index.js";

/** One effect a tool really had, as the observer received it. */
export interface Effect {
  readonly runId: string;
  readonly key: string;
  readonly attempt: number;
  readonly tool: string;
  readonly sideEffect: string;
}

export interface Observer {
  readonly url: string;
  readonly effects: Effect[];
  close(): Promise<void>;
}

/**
 * The observer: POST /effect records an effect. `serve` answers anything
 * else (the Chromium test serves its page from here, so the page reports
 * to its own origin).
 */
export async function startObserver(serve?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<Observer> {
  const effects: Effect[] = [];
  const server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/effect") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        try {
          const e = JSON.parse(body) as Effect;
          effects.push({ runId: e.runId, key: e.key, attempt: e.attempt, tool: e.tool, sideEffect: e.sideEffect });
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        } catch {
          res.writeHead(400).end();
        }
      });
      return;
    }
    if (serve?.(req, res) === true) return;
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    effects,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A process started in its own group: killed with everything it started. */
export interface Group {
  readonly pid: number;
  /** What it printed (the last 4 KB of each stream), for a failure's message. */
  tail(): string;
  /** SIGKILL to the whole group; resolves once the leader is gone. */
  kill(): Promise<void>;
  readonly exited: Promise<number | null>;
}

/** Starts `command` detached (a new process group) and waits for a line matching `ready`; returns the group and the match. */
export async function startGroup(command: string, args: readonly string[], ready: RegExp, options: { env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ group: Group; match: RegExpMatchArray }> {
  const child: ChildProcess = spawn(command, args, { detached: true, stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const group: Group = {
    pid: child.pid!,
    tail: () => `stdout: ${out.slice(-4096)}\nstderr: ${err.slice(-4096)}`,
    kill: async () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      await exited;
    },
    exited,
  };
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not get ready in ${options.timeoutMs} ms\n${group.tail()}`)), options.timeoutMs);
    const look = (): void => {
      const m = (out + err).match(ready);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.setEncoding("utf8").on("data", (c: string) => {
      out = (out + c).slice(-65536);
      look();
    });
    child.stderr!.setEncoding("utf8").on("data", (c: string) => {
      err = (err + c).slice(-65536);
      look();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before it was ready\n${group.tail()}`));
    });
  }).catch(async (e: unknown) => {
    await group.kill();
    throw e;
  });
  return { group, match };
}

/** A run as the judge sees it at the end. */
export interface JudgedRun {
  readonly runId: string;
  readonly status: string;
  readonly events: readonly JournalEvent[];
  /** What the index (or the store's listing) says of it. */
  readonly listed: { readonly status: string; readonly seq: number } | undefined;
}

export interface Verdict {
  readonly runs: number;
  readonly completed: number;
  /** Runs whose hash chain does not verify. */
  readonly brokenChains: readonly string[];
  /** Decided steps missing, and runs not completed. */
  readonly lostSteps: number;
  /** Effects of a call that is not read_only beyond the first, not each allowed by a journaled run_again. */
  readonly repeatedEffects: number;
  /** Effects with no journaled start of that attempt (journal first broken). */
  readonly unjournaledEffects: number;
  /** Runs the listing states otherwise than their journal (status or seq). */
  readonly indexDisagrees: readonly string[];
  /** Runs that did not end (for their state, see the test's message). */
  readonly notEnded: readonly string[];
  readonly problems: readonly string[];
}

/**
 * The judge: every journal verifies; every run ends completed with all
 * `steps` decided (no lost step); no effect of a non-read_only call is
 * repeated without a journaled decision (a run_again by a hook or an
 * operator); no effect happened without its start journaled first; the
 * listing agrees with each run.
 */
export function judgeRuns(runs: readonly JudgedRun[], effects: readonly Effect[], steps: number): Verdict {
  const problems: string[] = [];
  const brokenChains: string[] = [];
  const indexDisagrees: string[] = [];
  const notEnded: string[] = [];
  let lostSteps = 0;
  let repeatedEffects = 0;
  let unjournaledEffects = 0;
  const byRun = new Map(runs.map((r) => [r.runId, r]));
  for (const r of runs) {
    try {
      verifyChain(r.events);
    } catch (e) {
      brokenChains.push(r.runId);
      problems.push(`${r.runId}: the chain does not verify (${e instanceof Error ? e.message : String(e)})`);
    }
    const decided = new Map<number, string>();
    for (const e of r.events) {
      if (e.type !== "step.decided") continue;
      const text = JSON.stringify(e.decision);
      if (decided.has(e.step) && decided.get(e.step) !== text) problems.push(`${r.runId}: step ${e.step} decided twice, differently`);
      decided.set(e.step, text);
    }
    if (r.status !== "completed") {
      notEnded.push(r.runId);
      lostSteps += 1;
    }
    const missing = Math.max(0, steps - decided.size);
    if (r.status === "completed" && missing > 0) problems.push(`${r.runId}: completed with ${missing} step(s) not decided`);
    lostSteps += r.status === "completed" ? missing : 0;
    const last = r.events[r.events.length - 1];
    if (r.listed === undefined || last === undefined || r.listed.status !== r.status || r.listed.seq !== last.seq) {
      indexDisagrees.push(r.runId);
      problems.push(`${r.runId}: listed as ${JSON.stringify(r.listed)}, but its journal says ${r.status} at ${last?.seq}`);
    }
  }
  const byKey = new Map<string, Effect[]>();
  for (const x of effects) byKey.set(x.key, [...(byKey.get(x.key) ?? []), x]);
  for (const [key, xs] of byKey) {
    const run = byRun.get(xs[0]!.runId);
    if (run === undefined) {
      problems.push(`effects of ${key} for a run the test never saw listed`);
      continue;
    }
    for (const x of xs) {
      const started = run.events.some((e) => e.type === "call.started" && e.idempotencyKey === x.key && e.attempt === x.attempt);
      if (!started) {
        unjournaledEffects++;
        problems.push(`${key} attempt ${x.attempt}: an effect whose start was never journaled`);
      }
    }
    if (xs[0]!.sideEffect === "read_only") continue;
    const [, step, callId] = /:(\d+):([^:]+)$/.exec(key) ?? [];
    const allowed = run.events.filter((e) => e.type === "call.reconciled" && e.resolution === "run_again" && e.by !== "runtime" && String(e.step) === step && e.callId === callId).length;
    const extra = Math.max(0, xs.length - 1 - allowed);
    if (extra > 0) problems.push(`${key}: ${xs.length} effects, ${allowed} journaled run_again`);
    repeatedEffects += extra;
  }
  return { runs: runs.length, completed: runs.filter((r) => r.status === "completed").length, brokenChains, lostSteps, repeatedEffects, unjournaledEffects, indexDisagrees, notEnded, problems };
}

/**
 * The judge of conversations (issue 29): each took exactly its `turns`
 * messages, `m1` to `m<turns>`, each once (however often it was sent), and
 * each turn ended answered exactly once, with the answer naming its message
 * decided once; then it was closed.
 */
export function judgeTurns(runs: readonly JudgedRun[], turns: number): string[] {
  const problems: string[] = [];
  for (const r of runs) {
    const ids = r.events.filter((e) => e.type === "user.message").map((e) => (e as Extract<JournalEvent, { type: "user.message" }>).messageId);
    const want = Array.from({ length: turns }, (_, k) => `m${k + 1}`);
    if (JSON.stringify(ids) !== JSON.stringify(want)) problems.push(`${r.runId}: took messages ${JSON.stringify(ids)}, not ${JSON.stringify(want)}`);
    for (let t = 1; t <= turns; t++) {
      const ends = r.events.filter((e) => e.type === "turn.ended" && e.turn === t);
      if (ends.length !== 1 || (ends[0] as Extract<JournalEvent, { type: "turn.ended" }>).reason !== "answered")
        problems.push(`${r.runId}: turn ${t} ended ${JSON.stringify(ends.map((e) => (e as { reason?: string }).reason))}`);
      const answers = r.events.filter((e) => e.type === "step.decided" && e.decision.kind === "final" && e.decision.output === `answered m${t}`);
      if (answers.length !== 1) problems.push(`${r.runId}: message m${t} answered ${answers.length} times`);
    }
    if (r.events.at(-1)?.type !== "run.closed") problems.push(`${r.runId}: not closed (last event ${r.events.at(-1)?.type})`);
  }
  return problems;
}
