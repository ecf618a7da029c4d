/**
 * Mirroring: the runs a store owns, pushed to another place as their
 * journals grow, so that an operator there sees them (the copy there is a
 * read-only mirror until a move hands a run over). Append-only: each push
 * is the tail after the last seq the other place acknowledged, verified
 * there like any bundle. Offline, nothing is lost: the unpushed tail is
 * the journal itself, and the next push, after reconnecting, starts from
 * the last acknowledged seq (asked of the other place when it is not
 * known, and told by it when a push finds it elsewhere).
 */
import { systemClock, type Clock } from "../clock.js";
import { isIsoagentError } from "../errors.js";
import type { RunId } from "../ids.js";
import { after } from "../web.js";
import type { RunSummary, Store } from "../store/index.js";
import { exportRun } from "./export.js";
import type { SigningKey } from "./trust.js";
import type { Place } from "./place.js";

/** Where one run's mirror stands. */
export interface MirrorState {
  readonly runId: RunId;
  /** The run's last event here. */
  readonly seq: number;
  /** The last seq the other place acknowledged; undefined before it is known. */
  readonly acked: number | undefined;
  /** False after a push failed for want of the other place (offline), until one succeeds. */
  readonly online: boolean;
  /** How long after its last acknowledged event was written here the acknowledgement came (ms, by this place's clock). */
  readonly lagMs: number | undefined;
  /** Why the mirror stopped for good (the other place owns the run, or holds another history of it). */
  readonly stopped?: string;
}

/** Options of {@link mirrorRuns}. */
export interface MirrorOptions {
  /** The store whose runs are mirrored: those it owns. */
  readonly store: Store;
  /** Where they are mirrored to (an httpPlace to the Worker). */
  readonly to: Place;
  /** How often to look for new events when not notified (default 1,000 ms). */
  readonly everyMs?: number;
  /** Which runs (default: every run the store owns). */
  readonly filter?: (run: RunSummary) => boolean;
  /** The first wait after a failed push (doubling up to `maxRetryMs`): default 250 ms, at most 15,000 ms. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
  readonly clock?: Clock;
  /** This place's signing key: each push vouches for what it carries (see docs/moves.md, "Trust"). */
  readonly signing?: SigningKey;
  /** Called whenever a run's mirror state changes. */
  readonly onState?: (state: MirrorState) => void;
}

/** A running mirror. */
export interface Mirror {
  /** Look now (after an append, on coming back online): pushes what is new, unless a push is waiting out a failure. */
  notify(): void;
  /** Each mirrored run's state. */
  states(): MirrorState[];
  /** Resolves when the other place acknowledged the run up to its current last event (or the mirror stopped). */
  synced(runId: RunId): Promise<MirrorState>;
  /** Stops looking and pushing (a push under way finishes). */
  stop(): Promise<void>;
}

interface Track {
  seq: number;
  at: number;
  acked: number | undefined;
  online: boolean;
  lagMs: number | undefined;
  stopped?: string;
  retryAt: number;
  retryMs: number;
}

/** A failure that says the other place is out of reach (a network error, a server's 5xx), not a refusal of what was pushed. */
const unreachable = (e: unknown): boolean => !isIsoagentError(e) || isIsoagentError(e, "CRASH") || (isIsoagentError(e, "MOVE_REFUSED") && / answered 5\d\d /.test(e.message));

/**
 * Mirrors a store's runs to another place.
 *
 * @example
 * ```ts
 * const mirror = mirrorRuns({ store: idbStore(), to: httpPlace({ url: "", name: "edge" }) })
 * addEventListener("online", () => mirror.notify())
 * ```
 */
export function mirrorRuns(options: MirrorOptions): Mirror {
  const { store, to } = options;
  const clock = options.clock ?? systemClock;
  const everyMs = options.everyMs ?? 1000;
  const minRetry = options.retryMs ?? 250;
  const maxRetry = options.maxRetryMs ?? 15_000;
  const tracks = new Map<RunId, Track>();
  const waiters: { runId: RunId; resolve: (s: MirrorState) => void }[] = [];
  let stopped = false;
  let again = false;
  let running: Promise<void> | undefined;
  let cancelTimer: (() => void) | undefined;

  const stateOf = (runId: RunId, t: Track): MirrorState => ({ runId, seq: t.seq, acked: t.acked, online: t.online, lagMs: t.lagMs, ...(t.stopped === undefined ? {} : { stopped: t.stopped }) });
  const changed = (runId: RunId, t: Track): void => {
    options.onState?.(stateOf(runId, t));
    settle(runId, t);
  };
  const settle = (runId: RunId, t: Track): void => {
    const s = stateOf(runId, t);
    for (let k = waiters.length - 1; k >= 0; k--) {
      const w = waiters[k]!;
      if (w.runId === runId && (t.stopped !== undefined || (t.acked !== undefined && t.acked >= t.seq))) {
        waiters.splice(k, 1);
        w.resolve(s);
      }
    }
  };

  const push = async (runId: RunId, t: Track): Promise<void> => {
    if (t.acked === undefined) t.acked = (await to.head(runId))?.seq ?? 0;
    if (t.acked >= t.seq) return changed(runId, t);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const r = await to.receive(runId, exportRun(store, runId, { fromSeq: t.acked + 1, ...(options.signing === undefined ? {} : { signing: options.signing }) }), "mirror");
        t.acked = r.seq;
        t.lagMs = clock.now() - t.at;
        return;
      } catch (e) {
        // The other place holds another prefix than thought: start from where it is.
        const at = (e as { actualSeq?: unknown }).actualSeq;
        if (isIsoagentError(e, "JOURNAL_CONFLICT") && typeof at === "number") {
          t.acked = at;
          continue;
        }
        throw e;
      }
    }
  };

  const pass = async (): Promise<void> => {
    const runs = (await store.listRuns()).filter((r) => r.custody === undefined && (options.filter?.(r) ?? true));
    for (const r of runs) {
      if (stopped) return;
      let t = tracks.get(r.runId);
      if (t === undefined) tracks.set(r.runId, (t = { seq: r.seq, at: r.updatedAt, acked: undefined, online: true, lagMs: undefined, retryAt: 0, retryMs: minRetry }));
      t.seq = r.seq;
      t.at = r.updatedAt;
      if (t.stopped !== undefined || (t.acked !== undefined && t.acked >= t.seq) || clock.now() < t.retryAt) {
        settle(r.runId, t);
        continue;
      }
      try {
        await push(r.runId, t);
        t.online = true;
        t.retryMs = minRetry;
        t.retryAt = 0;
      } catch (e) {
        if (unreachable(e)) {
          t.online = false;
          t.retryAt = clock.now() + t.retryMs;
          t.retryMs = Math.min(maxRetry, t.retryMs * 2);
          schedule(t.retryAt - clock.now());
        } else t.stopped = isIsoagentError(e) ? `${e.code}: ${e.message}` : String(e);
      }
      changed(r.runId, t);
    }
  };

  const run = (): void => {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await pass().catch(() => {});
        } while (again && !stopped);
      } finally {
        running = undefined;
        schedule(everyMs);
      }
    })();
  };

  let timerAt = Number.POSITIVE_INFINITY;
  const schedule = (ms: number): void => {
    if (stopped) return;
    const at = clock.now() + Math.max(0, ms);
    if (at >= timerAt) return;
    cancelTimer?.();
    timerAt = at;
    cancelTimer = after(Math.max(0, ms), () => {
      timerAt = Number.POSITIVE_INFINITY;
      run();
    });
  };

  run();
  return {
    notify: run,
    states: () => [...tracks].map(([runId, t]) => stateOf(runId, t)),
    synced(runId) {
      return new Promise((resolve) => {
        waiters.push({ runId, resolve });
        run();
      });
    },
    async stop() {
      stopped = true;
      cancelTimer?.();
      await running;
    },
  };
}
