/**
 * The HTTP app's backend on Durable Objects: each run is hosted (driven) by
 * its own object; the index lists them.
 */
import { randomIds, type IdSource, type RunHead } from "../../src/index.js";
import type { RunsBackend } from "../../src/http/index.js";
import { listWithLeases } from "./leases.js";
import { runObject, type RunBindings, type RunObjectApi } from "./run-object.js";
import { unwire } from "./wire.js";

export function durableObjectBackend(env: RunBindings, options: { ids?: IdSource } = {}): RunsBackend {
  const ids = options.ids ?? randomIds();
  const run = (runId: string): RunObjectApi => runObject(env.RUNS, runId);
  return {
    async create(task) {
      const runId = ids.runId();
      return unwire(await run(runId).host(runId, task));
    },
    async list(filter) {
      return listWithLeases(env.RUNS, async () => (await env.RUN_INDEX.getByName("index").list(filter)) as RunHead[]);
    },
    async state(runId) {
      return unwire(await run(runId).hostState(runId));
    },
    async lease(runId) {
      return unwire(await run(runId).storeLease(runId));
    },
    async events(runId, fromSeq) {
      return unwire(await run(runId).storeRead(runId, fromSeq));
    },
    async approve(runId, approvalId, answer) {
      unwire(await run(runId).hostApprove(runId, approvalId, answer));
    },
    async deny(runId, approvalId, answer) {
      unwire(await run(runId).hostDeny(runId, approvalId, answer));
    },
    async settle(runId, approvalId, answer) {
      unwire(await run(runId).hostSettle(runId, approvalId, answer));
    },
    async progress(runId) {
      return unwire(await run(runId).hostProgress(runId)) ?? undefined;
    },
    async cancel(runId, options) {
      unwire(await run(runId).hostCancel(runId, { by: options.by, ...(options.reason === undefined ? {} : { reason: options.reason }) }));
    },
  };
}
