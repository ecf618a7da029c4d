/**
 * A place: one store where runs live, with its name, as a move sees it
 * (this tab's IndexedDB, a Worker's Durable Objects, a process's memory).
 * A move needs five things of a place, whichever side it is on and however
 * far away it is (in this process, or over HTTP: see http.ts).
 */
import { systemClock, type Clock } from "../clock.js";
import { isIsoagentError } from "../errors.js";
import type { RunId } from "../ids.js";
import { JOURNAL_VERSION, seal, type RunMoved } from "../journal/index.js";
import { triesAgain } from "../store/conflict.js";
import { loadState } from "../store/load.js";
import type { Custody, Store } from "../store/index.js";
import type { Workspace } from "../workspace.js";
import { MoveError } from "./errors.js";
import { exportRun } from "./export.js";
import { importRun, movable, type ImportResult } from "./import.js";
import type { BundleInput, BundleLimits } from "./read.js";
import type { PlaceKeys } from "./trust.js";

/** A place as a move reaches it. */
export interface Place {
  /** Its place name, as `run.moved` names it. */
  readonly name: string;
  /** The run's last event here and its custody (undefined: this place owns it); null when the place lacks the run. */
  head(runId: RunId): Promise<{ readonly seq: number; readonly custody: Custody | undefined } | null>;
  /** The run as a bundle from `fromSeq` (a tail when above 1). */
  export(runId: RunId, fromSeq: number): Promise<BundleInput>;
  /** Imports a bundle into this place's copy (in transit or a mirror); one ending with a seal naming this place makes it the owner. */
  receive(runId: RunId, bundle: BundleInput, role: "mirror" | "in_transit"): Promise<ImportResult>;
  /** Seals the run here in favour of `to` (this place must own it, and nobody drive it now): `run.moved`, the last event it writes. */
  seal(runId: RunId, to: string): Promise<{ readonly seq: number; readonly epoch: number }>;
  /** Gives up a run in transit here (it becomes a mirror); false when it is not in transit here. */
  abandon(runId: RunId): Promise<boolean>;
}

/** Options of {@link sealRun}. */
export interface SealOptions {
  /** This store's place name (`run.moved`'s `from`). */
  readonly from: string;
  /** The place the run moves to. */
  readonly to: string;
  /** Stamps the event. Default: the system clock. */
  readonly clock?: Clock;
  /** The mover's lease owner name; default `move:<to>`. */
  readonly owner?: string;
}

/**
 * Seals a run at its owner: takes the run's lease as the mover (so that no
 * driver writes after it), and appends `run.moved` with an epoch above
 * every lease token the store handed out for the run. From then on the
 * store refuses every append for the run (RUN_MOVED). MOVE_REFUSED when a
 * driver holds the run's lease (stop it, or wait for its lease to expire).
 */
export async function sealRun(store: Store, runId: RunId, options: SealOptions): Promise<{ seq: number; epoch: number }> {
  movable(store);
  const clock = options.clock ?? systemClock;
  const lease = await store.acquireLease(runId, options.owner ?? `move:${options.to}`, 30_000);
  if (lease === null) {
    const held = await store.lease(runId);
    throw new MoveError(
      "MOVE_REFUSED",
      `run ${runId} is being driven (its lease is held by ${held?.holder ?? "another driver"}${held === null ? "" : ` until ${held.expiresAt}`}): stop its driver, or wait for its lease to expire, before moving it`,
    );
  }
  try {
    for (let attempt = 0; ; attempt++) {
      const state = await loadState(store, runId);
      const moved = seal(
        { v: JOURNAL_VERSION, at: clock.now(), type: "run.moved", from: options.from, to: options.to, epoch: lease.token + 1 } as Omit<RunMoved, "seq" | "prev" | "hash">,
        state.seq + 1,
        state.hash,
      );
      try {
        await store.append(runId, [moved], { expectedSeq: state.seq, lease }, state.status);
        return { seq: moved.seq, epoch: lease.token + 1 };
      } catch (e) {
        // An operator's answer landed first: seal after it.
        if (!triesAgain(e, attempt)) throw e;
      }
    }
  } catch (e) {
    await store.releaseLease(lease).catch(() => {});
    throw e;
  }
}

/** Options of {@link localPlace}. */
export interface LocalPlaceOptions extends BundleLimits {
  /** The place's name (unique among the places a run moves between). */
  readonly name: string;
  /** The tool shapes this place's driver offers: a run with others is not taken (TOOL_SHAPE_CHANGED). */
  readonly tools?: readonly { readonly name: string; readonly specHash: string }[];
  /** The workspace the place's runs act on: it moves with a run. */
  readonly workspace?: Workspace;
  /** What this place signs its exports with, and whose signatures it trusts (see {@link PlaceKeys}; default: neither). */
  readonly keys?: PlaceKeys;
  readonly clock?: Clock;
}

/** A place in this process: a store and its name. */
export function localPlace(store: Store, options: LocalPlaceOptions): Place {
  const s = movable(store);
  const { name } = options;
  return {
    name,
    async head(runId) {
      let custody: Custody | undefined;
      try {
        custody = await s.custody(runId);
      } catch (e) {
        if (isIsoagentError(e, "RUN_NOT_FOUND")) return null;
        throw e;
      }
      return { seq: (await loadState(s, runId)).seq, custody };
    },
    export: async (runId, fromSeq) =>
      exportRun(s, runId, { fromSeq, ...(options.workspace === undefined ? {} : { workspace: options.workspace }), ...(options.keys?.signing === undefined ? {} : { signing: options.keys.signing }) }),
    receive: (runId, bundle, role) =>
      importRun(s, bundle, {
        runId,
        here: name,
        role,
        ...(options.keys === undefined ? {} : { keys: options.keys }),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.tools === undefined ? {} : { tools: options.tools }),
        ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
        ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
        ...(options.maxArtifactBytes === undefined ? {} : { maxArtifactBytes: options.maxArtifactBytes }),
      }),
    seal: (runId, to) => sealRun(s, runId, { from: name, to, ...(options.clock === undefined ? {} : { clock: options.clock }) }),
    abandon: (runId) => s.abandonTransit(runId),
  };
}
