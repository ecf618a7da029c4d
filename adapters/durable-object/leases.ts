/**
 * Leases beside the index's listing. The index lists runs by their head
 * (their objects report it); a lease lives in the run's own object and
 * moves with every renewal, so it is asked of the objects of the listed
 * runs that have not ended (an ended run is listed with none: nothing
 * drives it).
 */
import type { RunSummary } from "../../src/index.js";
import { TERMINAL_STATUSES } from "../../src/journal/index.js";
import type { RunHead } from "../../src/store/index.js";
import { runObject } from "./api.js";
import type { RunBindings } from "./bindings.js";
import { unwire } from "./wire.js";

/** The listed runs, each with its lease as its object keeps it. */
export async function listWithLeases(runs: RunBindings["RUNS"], list: () => Promise<readonly RunHead[]>): Promise<RunSummary[]> {
  const heads = await list();
  return Promise.all(
    heads.map(async (h): Promise<RunSummary> => ({
      ...h,
      // (A copy of a run owned elsewhere has no lease here.)
      lease: TERMINAL_STATUSES.has(h.status) || (h as RunSummary).custody !== undefined ? null : unwire(await runObject(runs, h.runId).storeLease(h.runId)),
    })),
  );
}
