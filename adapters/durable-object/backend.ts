/**
 * The HTTP app's backend on Durable Objects: each run is hosted (driven) by
 * its own object; the index lists them.
 */
import { isIsoagentError, type IdSource } from "../../src/index.js";
import { randomIds } from "../../src/driver/index.js";
import { journalNames } from "../../src/journal/index.js";
import { StoreError, type RunHead } from "../../src/store/index.js";
import type { RunsBackend } from "../../src/http/index.js";
import { listWithLeases } from "./leases.js";
import { artifactShard, runObject, type RunBindings, type RunObjectApi } from "./run-object.js";
import { unwire } from "./wire.js";
import { durableObjectMoves } from "./move.js";

/** Run ids this isolate has seen exist (bounded). */
const known = new Set<string>();
const KNOWN_MAX = 10_000;

/** The HTTP app's backend on Durable Objects: each run hosted by its own object, listed by the index. */
export function durableObjectBackend(env: RunBindings, options: { ids?: IdSource } = {}): RunsBackend {
  const ids = options.ids ?? randomIds();
  const index = () => env.RUN_INDEX.getByName("index");
  /**
   * A run object, only for a run that exists: addressing an object creates
   * it (and its storage), so an unknown id is answered 404 from the index
   * without touching one. Runs are never deleted, so a run once seen here is
   * remembered for the isolate's life.
   */
  const run = async (runId: string): Promise<RunObjectApi> => {
    if (!known.has(runId)) {
      if (!(await index().has(runId))) throw new StoreError("RUN_NOT_FOUND", `no run ${runId}`);
      if (known.size >= KNOWN_MAX) known.clear();
      known.add(runId);
    }
    return runObject(env.RUNS, runId);
  };
  const remember = (runId: string): void => {
    if (known.size >= KNOWN_MAX) known.clear();
    known.add(runId);
  };
  return {
    move: durableObjectMoves(env, run, remember, env.ISOAGENT_PLACE),
    async create(task, options) {
      const runId = options?.runId ?? ids.runId();
      try {
        const created = unwire(
          await runObject(env.RUNS, runId).host(runId, task, {
            ...(options?.conversation === true ? { conversation: true } : {}),
            ...(options?.outputSchema === undefined ? {} : { outputSchema: options.outputSchema }),
          }),
        );
        known.add(runId);
        return created;
      } catch (e) {
        // Made by a create racing this one (one idempotency key): the run's
        // object holds it, though the index may not have heard of it yet.
        if (isIsoagentError(e, "RUN_EXISTS")) known.add(runId);
        throw e;
      }
    },
    async list(filter) {
      return listWithLeases(env.RUNS, async () => (await index().list(filter)) as RunHead[]);
    },
    async state(runId) {
      return unwire(await (await run(runId)).hostState(runId));
    },
    async lease(runId) {
      return unwire(await (await run(runId)).storeLease(runId));
    },
    async events(runId, fromSeq) {
      return unwire(await (await run(runId)).storeRead(runId, fromSeq));
    },
    async stream(runId, fromSeq, { keepAliveMs }) {
      // The run's object holds the stream, and pushes as it appends.
      return unwire(await (await run(runId)).hostStream(runId, fromSeq, keepAliveMs));
    },
    async artifact(runId, sha256) {
      // The journal first (artifacts live in shard objects shared by every run): only one the run names is read.
      const events = unwire(await (await run(runId)).storeRead(runId, 1));
      return journalNames(events, sha256) ? unwire(await runObject(env.RUNS, artifactShard(sha256)).artifactGet(sha256)) : null;
    },
    async approve(runId, approvalId, answer) {
      unwire(await (await run(runId)).hostApprove(runId, approvalId, answer));
    },
    async deny(runId, approvalId, answer) {
      unwire(await (await run(runId)).hostDeny(runId, approvalId, answer));
    },
    async settle(runId, approvalId, answer) {
      unwire(await (await run(runId)).hostSettle(runId, approvalId, answer));
    },
    async progress(runId) {
      return unwire(await (await run(runId)).hostProgress(runId)) ?? undefined;
    },
    async problem(runId) {
      return unwire(await (await run(runId)).hostProblem(runId)) ?? undefined;
    },
    async send(runId, message, options) {
      return unwire(await (await run(runId)).hostSend(runId, message, options));
    },
    async stopTurn(runId, options) {
      return unwire(await (await run(runId)).hostStopTurn(runId, options));
    },
    async regenerate(runId, options) {
      unwire(await (await run(runId)).hostRegenerate(runId, options));
    },
    async close(runId, options) {
      unwire(await (await run(runId)).hostClose(runId, options));
    },
    async cancel(runId, options) {
      unwire(await (await run(runId)).hostCancel(runId, { by: options.by, ...(options.reason === undefined ? {} : { reason: options.reason }) }));
    },
  };
}
