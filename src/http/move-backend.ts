/**
 * The moves of runs whose store is in this process (Node, a test, a single
 * Worker with the memory store): the MoveBackend of the HTTP app's routes.
 */
import type { RunId } from "../ids.js";
import { exportRun, importRun, movable, sealRun, type PlaceKeys } from "../move/index.js";
import type { Store } from "../store/index.js";
import type { Workspace } from "../workspace.js";
import type { MoveBackend } from "./move-routes.js";

/** Options of {@link storeMoveBackend}. */
export interface StoreMoveOptions {
  /** This place's name: what a seal handing a run here names. */
  readonly place: string;
  /** The tool shapes this place's driver offers (isoagent/move's toolShapes): a run with others is not taken in transit. */
  readonly tools?: readonly { readonly name: string; readonly specHash: string }[];
  /** The workspace runs here act on: it goes with a run that moves. */
  readonly workspace?: Workspace;
  /** Called when an import hands a run to this place (drive it). */
  readonly onOwned?: (runId: RunId) => void;
  /**
   * This place's keys (isoagent/move's PlaceKeys): its exports are signed
   * with `signing`, and a run handed here keeps its decisions only when a
   * `trusted` key vouched for it up to its seal. Default: none, so every
   * open call of a run handed here is decided here again.
   */
  readonly keys?: PlaceKeys;
}

/** Moves and mirrors of the runs of a store in this process. */
export function storeMoveBackend(store: Store, options: StoreMoveOptions): MoveBackend {
  const s = movable(store);
  const ws = options.workspace === undefined ? {} : { workspace: options.workspace };
  return {
    place: options.place,
    custody: (runId) => s.custody(runId),
    async exportRun(runId, fromSeq) {
      await s.custody(runId); // RUN_NOT_FOUND before anything is streamed
      return exportRun(s, runId, { fromSeq, ...ws, ...(options.keys?.signing === undefined ? {} : { signing: options.keys.signing }) });
    },
    async importRun(body, o) {
      const r = await importRun(s, body, {
        here: options.place,
        role: o.role,
        maxBytes: o.maxBytes,
        ...(o.runId === undefined ? {} : { runId: o.runId }),
        ...(options.tools === undefined ? {} : { tools: options.tools }),
        ...ws,
        ...(options.keys === undefined ? {} : { keys: options.keys }),
      });
      if (r.custody === undefined && r.written > 0) options.onOwned?.(r.runId);
      return r;
    },
    releaseRun: (runId, to) => sealRun(s, runId, { from: options.place, to }),
    abandonRun: (runId) => s.abandonTransit(runId),
  };
}
