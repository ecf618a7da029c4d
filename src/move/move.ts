/**
 * Moving a run's ownership from one place to another, in two phases:
 *
 * 1. the destination imports the run **in transit** (not runnable there);
 * 2. the source **seals** it: `run.moved { to, epoch }`, the last event it
 *    writes; from then on it refuses every append for the run;
 * 3. the seal reaches the destination (pushed by the source, or pulled by
 *    the destination), which becomes the owner, its lease tokens above the
 *    epoch.
 *
 * The source owns the run until the seal, the destination from when it
 * sees it: at no instant do two places own it. A move cut anywhere is
 * settled by either side when it comes back ({@link settleMove}): before
 * the seal it can be completed or rolled back; after it, it is completed.
 */
import type { RunId } from "../ids.js";
import { MoveError } from "./errors.js";
import type { ImportResult } from "./import.js";
import type { Place } from "./place.js";

/** The points of a move where the crash tests cut it. */
export type MovePoint = "before_export" | "after_import" | "after_seal" | "after_complete";

/** @internal Fault injection: may throw (a crash) at a point of the move. */
export interface MoveFaults {
  at(point: MovePoint, runId: RunId): void | Promise<void>;
}

/** What a move did. */
export interface MoveOutcome {
  readonly runId: RunId;
  readonly from: string;
  readonly to: string;
  /** The seal's seq (`run.moved`). */
  readonly seq: number;
  readonly epoch: number;
  /** The destination's import of the seal (its custody is then undefined: it owns the run). */
  readonly completed: ImportResult;
}

/**
 * Moves a run from `source` (which must own it, with no driver on it) to
 * `destination`. Whoever calls it (the source, the destination, a third
 * party) only needs to reach both.
 *
 * @example
 * ```ts
 * const tab = localPlace(idbStore(), { name: "tab:3f2c", tools: toolShapes(tools) })
 * const edge = httpPlace({ url: "https://agents.example.com", name: "edge" })
 * await moveRun(runId, tab, edge)   // "Continue in the cloud"
 * await moveRun(runId, edge, tab)   // "Take offline"
 * ```
 */
export async function moveRun(runId: RunId, source: Place, destination: Place, options: { faults?: MoveFaults } = {}): Promise<MoveOutcome> {
  if (source.name === destination.name) throw new MoveError("MOVE_REFUSED", `a run cannot move from ${source.name} to itself`);
  const fault = async (point: MovePoint): Promise<void> => options.faults?.at(point, runId);
  await fault("before_export");
  const there = await destination.head(runId);
  const inTransit = await destination.receive(runId, await source.export(runId, (there?.seq ?? 0) + 1), "in_transit");
  await fault("after_import");
  const sealed = await source.seal(runId, destination.name);
  await fault("after_seal");
  const completed = await destination.receive(runId, await source.export(runId, inTransit.seq + 1), "in_transit");
  await fault("after_complete");
  if (completed.custody !== undefined) throw new MoveError("MOVE_REFUSED", `the destination ${destination.name} did not take run ${runId}: its copy is ${completed.custody.role}`);
  return { runId, from: source.name, to: destination.name, seq: sealed.seq, epoch: sealed.epoch, completed };
}

/** What {@link settleMove} found and did. */
export interface Settlement {
  /** "completed": the seal reached the destination; "rolled_back": the move was given up before its seal; "none": nothing was under way between the two. */
  readonly outcome: "completed" | "rolled_back" | "none";
  /** The place that owns the run after it, when one of the two does. */
  readonly owner: string | undefined;
}

/**
 * Settles a move between two places that was cut (a crash, a closed tab, a
 * lost connection), from either side, once both are reachable:
 *
 * - one place sealed the run in favour of the other, which has not seen the
 *   seal: the seal is pushed to it, and it owns the run ("completed");
 * - one place owns the run and the other holds it in transit (no seal yet):
 *   with `prefer: "complete"` the move is carried out, with `"rollback"`
 *   (the default) the copy in transit is given up and the source keeps it;
 * - anything else: nothing to do.
 */
export async function settleMove(runId: RunId, a: Place, b: Place, options: { prefer?: "complete" | "rollback"; faults?: MoveFaults } = {}): Promise<Settlement> {
  const [ha, hb] = await Promise.all([a.head(runId), b.head(runId)]);
  for (const [source, sh, destination, dh] of [
    [a, ha, b, hb],
    [b, hb, a, ha],
  ] as const) {
    if (sh === null) continue;
    if (sh.custody?.role === "moved" && sh.custody.to === destination.name && (dh === null || (dh.custody !== undefined && dh.seq < sh.custody.seq))) {
      // Sealed for the other place, which has not taken it yet: push the seal.
      const r = await destination.receive(runId, await source.export(runId, (dh?.seq ?? 0) + 1), "in_transit");
      return { outcome: r.custody === undefined ? "completed" : "none", owner: r.custody === undefined ? destination.name : undefined };
    }
    if (sh.custody === undefined && dh !== null && dh.custody?.role === "in_transit") {
      if (options.prefer === "complete") {
        await moveRun(runId, source, destination, options.faults === undefined ? {} : { faults: options.faults });
        return { outcome: "completed", owner: destination.name };
      }
      await destination.abandon(runId);
      return { outcome: "rolled_back", owner: source.name };
    }
  }
  const owner = ha !== null && ha.custody === undefined ? a.name : hb !== null && hb.custody === undefined ? b.name : undefined;
  return { outcome: "none", owner };
}
