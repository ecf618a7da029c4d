/**
 * The index of runs, for listing: one Durable Object (named "index") with a
 * row per run. Run objects report to it; a report never moves a run
 * backwards (seq only grows), so a late or repeated report is harmless, and
 * a run object reset between its own write and its report heals the index
 * from its alarm.
 *
 * The index also sweeps, on its own alarm, every run it lists as not ended:
 * it asks each run's object for its check (which reports the run again when
 * the index is behind, and arms the object's alarm when its run is runnable
 * with no live lease and none set), so that a listed status is never wrong
 * for longer than one sweep after a lost report, and a stranded run is
 * re-armed, or reported when no host of its own drives it.
 */
import { DurableObject } from "cloudflare:workers";
import type { RunStatus } from "../../src/index.js";
import { RUN_STATUSES, TERMINAL_STATUSES } from "../../src/journal/index.js";
import type { Custody, RunFilter, RunHead } from "../../src/store/index.js";
import { Alarm } from "./alarm.js";
import { runObject, type RunCheck, type RunNamespace } from "./api.js";
import { unwire } from "./wire.js";

/** What the index reads of its Worker's environment. */
export interface RunIndexEnv {
  /** The run objects, which the sweep checks (without them, there is no sweep). */
  readonly RUNS?: RunNamespace;
  /** Milliseconds between sweeps (default 60,000). */
  readonly ISOAGENT_INDEX_SWEEP_MS?: string;
}

/** What one sweep (or check) found. */
export interface SweepReport {
  readonly at: number;
  readonly checked: number;
  /** Runs runnable with no live lease past the grace period, and no alarm due (for hosted runs), before any healing. */
  readonly stranded: readonly RunCheck[];
  /** Runs whose object was told to report again, or had its alarm armed. */
  readonly healed: readonly { readonly runId: string; readonly healed: readonly string[] }[];
  /** Runs whose object could not be asked (it threw). */
  readonly unreachable: readonly { readonly runId: string; readonly error: string }[];
}

const DEFAULT_SWEEP_MS = 60_000;
/** Runs checked per sweep, the least recently updated first; more, and the next sweep comes sooner. */
const SWEEP_BATCH = 200;
/** Objects asked at once. */
const PARALLEL = 16;
const TERMINAL = [...TERMINAL_STATUSES];

/** The Durable Object that lists runs (one, named "index"): run objects report to it, and its alarm sweeps the runs not ended. */
export class RunIndex extends DurableObject<RunIndexEnv> {
  private readonly alarmClock: Alarm;

  constructor(ctx: DurableObjectState, env: RunIndexEnv) {
    super(ctx, env);
    this.alarmClock = new Alarm(ctx.storage);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS runs (runId TEXT PRIMARY KEY, status TEXT NOT NULL, createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL, seq INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS runs_by_updated ON runs (updatedAt DESC)");
    // Each run's title (its task's first line), added after the table: an index made before has no such column yet.
    if (
      !ctx.storage.sql
        .exec<{ name: string }>("SELECT name FROM pragma_table_info('runs')")
        .toArray()
        .some((c) => c.name === "title")
    ) {
      ctx.storage.sql.exec("ALTER TABLE runs ADD COLUMN title TEXT");
    }
    // A copy's custody (isoagent/move: a mirror, a run in transit, one that moved away); null for a run its object owns.
    if (
      !ctx.storage.sql
        .exec<{ name: string }>("PRAGMA table_info(runs)")
        .toArray()
        .some((c) => c.name === "custody")
    )
      ctx.storage.sql.exec("ALTER TABLE runs ADD COLUMN custody TEXT");
    // The console's open sessions and login codes (isoagent/http's SessionLedger; sessions.ts here): one object, so every isolate sees one answer.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS console_sessions (id TEXT PRIMARY KEY, expiresAt INTEGER NOT NULL)");
  }

  /** Keeps a console session or login code open until `expiresAt`; forgets those expired at `now`. */
  sessionPut(id: string, expiresAt: number, now: number): void {
    this.ctx.storage.sql.exec("DELETE FROM console_sessions WHERE expiresAt <= ?", now);
    this.ctx.storage.sql.exec("INSERT INTO console_sessions (id, expiresAt) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET expiresAt = excluded.expiresAt", id, expiresAt);
  }

  /** Whether a console session or login code is open at `now`. */
  sessionHas(id: string, now: number): boolean {
    return this.ctx.storage.sql.exec("SELECT 1 FROM console_sessions WHERE id = ? AND expiresAt > ?", id, now).toArray().length > 0;
  }

  /** Closes a console session or spends a login code: true when it was open at `now` (the object runs one call at a time, so one of two takes wins). */
  sessionTake(id: string, now: number): boolean {
    const open = this.sessionHas(id, now);
    this.ctx.storage.sql.exec("DELETE FROM console_sessions WHERE id = ?", id);
    return open;
  }

  private sweepMs(): number {
    const ms = Number(this.env.ISOAGENT_INDEX_SWEEP_MS ?? DEFAULT_SWEEP_MS);
    return Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_SWEEP_MS;
  }

  /** Records a run's head unless the index already has a later one; a run not ended keeps the sweep armed. */
  async report(s: RunHead & { custody?: Custody }): Promise<void> {
    this.ctx.storage.sql.exec(
      "INSERT INTO runs (runId, status, createdAt, updatedAt, seq, title, custody) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (runId) DO UPDATE SET status = excluded.status, updatedAt = excluded.updatedAt, seq = excluded.seq, title = coalesce(runs.title, excluded.title), custody = excluded.custody WHERE excluded.seq >= runs.seq",
      s.runId,
      s.status,
      s.createdAt,
      s.updatedAt,
      s.seq,
      s.title ?? null,
      s.custody === undefined ? null : JSON.stringify(s.custody),
    );
    if (!TERMINAL_STATUSES.has(s.status)) await this.alarmClock.arm(Date.now() + this.sweepMs());
  }

  /** Whether the index knows the run (a run object reports itself before its creator is answered). */
  has(runId: string): boolean {
    return this.ctx.storage.sql.exec("SELECT 1 FROM runs WHERE runId = ?", runId).toArray().length > 0;
  }

  list(filter: RunFilter = {}): (RunHead & { custody?: Custody })[] {
    // Distinct known statuses only: a filter never grows the statement past SQLite's bound parameters.
    const statuses = [...new Set(filter.status ?? [])].filter((s) => RUN_STATUSES.includes(s));
    if (filter.status !== undefined && filter.status.length > 0 && statuses.length === 0) return [];
    const conditions = statuses.length > 0 ? [`status IN (${statuses.map(() => "?").join(", ")})`] : [];
    const params: (string | number)[] = [...statuses];
    // After the last run of the previous page, in the listing's order (updatedAt DESC, runId).
    const before = filter.before;
    if (before !== undefined) {
      conditions.push("(updatedAt < ? OR (updatedAt = ? AND runId > ?))");
      params.push(before.updatedAt, before.updatedAt, before.runId);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
    const limit = filter.limit === undefined ? -1 : Math.max(0, Math.floor(filter.limit));
    return this.ctx.storage.sql
      .exec<{ runId: string; status: string; createdAt: number; updatedAt: number; seq: number; title: string | null; custody: string | null }>(
        `SELECT runId, status, createdAt, updatedAt, seq, title, custody FROM runs ${where} ORDER BY updatedAt DESC, runId LIMIT ?`,
        ...params,
        limit,
      )
      .toArray()
      .map((r) => ({
        runId: r.runId as RunHead["runId"],
        status: r.status as RunStatus,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        seq: r.seq,
        ...(r.title === null ? {} : { title: r.title }),
        ...(r.custody === null ? {} : { custody: JSON.parse(r.custody) as Custody }),
      }));
  }

  /**
   * The runs listed as not ended that are stranded: runnable by their own
   * object (whatever the index says), with no live lease for longer than
   * `graceMs`, and, when hosted, no alarm due within it. Nothing is healed.
   */
  async stranded(options: { graceMs?: number } = {}): Promise<SweepReport> {
    return this.checkAll(false, options.graceMs ?? 0, -1);
  }

  /**
   * Sweeps now (the alarm does it on its own): checks, heals, re-arms. A run
   * is reported as stranded once it has gone a sweep period without a live
   * lease; it is healed (its alarm armed) as soon as it has none.
   */
  async sweep(): Promise<SweepReport> {
    const report = await this.checkAll(true, this.sweepMs(), SWEEP_BATCH);
    for (const s of report.stranded.filter((c) => !c.hosted)) {
      // Driven from elsewhere: the index cannot resume it, only say so.
      console.warn(`isoagent: run ${s.runId} is runnable with no live lease since ${new Date(s.lease?.expiresAt ?? s.updatedAt).toISOString()}, and no host of its own drives it`);
    }
    for (const u of report.unreachable) console.warn(`isoagent: the sweep could not check run ${u.runId}: ${u.error}`);
    const left = this.ctx.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM runs WHERE status NOT IN (${TERMINAL.map(() => "?").join(", ")})`, ...TERMINAL).one().n;
    if (left > 0) await this.alarmClock.set(Date.now() + (left > report.checked ? Math.min(1000, this.sweepMs()) : this.sweepMs()));
    return report;
  }

  override async alarm(): Promise<void> {
    this.alarmClock.forget();
    await this.sweep();
  }

  private async checkAll(heal: boolean, graceMs: number, limit: number): Promise<SweepReport> {
    const at = Date.now();
    const runs = this.env.RUNS;
    const rows = this.ctx.storage.sql
      .exec<{ runId: string }>(`SELECT runId FROM runs WHERE status NOT IN (${TERMINAL.map(() => "?").join(", ")}) ORDER BY updatedAt ASC, runId LIMIT ?`, ...TERMINAL, limit)
      .toArray()
      .map((r) => r.runId);
    const stranded: RunCheck[] = [];
    const healed: { runId: string; healed: readonly string[] }[] = [];
    const unreachable: { runId: string; error: string }[] = [];
    if (runs === undefined) return { at, checked: 0, stranded, healed, unreachable };
    for (let k = 0; k < rows.length; k += PARALLEL) {
      await Promise.all(
        rows.slice(k, k + PARALLEL).map(async (runId) => {
          try {
            const check = unwire(await runObject(runs, runId).hostCheck({ heal, graceMs }));
            if (check === null) return;
            if (check.stranded) stranded.push(check);
            if (check.healed.length > 0) healed.push({ runId, healed: check.healed });
          } catch (e) {
            unreachable.push({ runId, error: e instanceof Error ? e.message : String(e) });
          }
        }),
      );
    }
    return { at, checked: rows.length, stranded, healed, unreachable };
  }
}
