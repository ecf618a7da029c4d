/**
 * The index of runs, for listing: one Durable Object (named "index") with a
 * row per run. Run objects report to it; a report never moves a run
 * backwards (seq only grows), so a late or repeated report is harmless, and
 * a run object reset between its own write and its report heals the index
 * from its alarm.
 */
import { DurableObject } from "cloudflare:workers";
import type { RunFilter, RunHead, RunStatus } from "../../src/index.js";

export class RunIndex extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS runs (runId TEXT PRIMARY KEY, status TEXT NOT NULL, createdAt INTEGER NOT NULL, updatedAt INTEGER NOT NULL, seq INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE INDEX IF NOT EXISTS runs_by_updated ON runs (updatedAt DESC)");
  }

  /** Records a run's summary unless the index already has a later one. */
  report(s: RunHead): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO runs (runId, status, createdAt, updatedAt, seq) VALUES (?, ?, ?, ?, ?) ON CONFLICT (runId) DO UPDATE SET status = excluded.status, updatedAt = excluded.updatedAt, seq = excluded.seq WHERE excluded.seq >= runs.seq",
      s.runId,
      s.status,
      s.createdAt,
      s.updatedAt,
      s.seq,
    );
  }

  list(filter: RunFilter = {}): RunHead[] {
    const statuses = filter.status ?? [];
    const where = statuses.length > 0 ? `WHERE status IN (${statuses.map(() => "?").join(", ")})` : "";
    const limit = filter.limit === undefined ? -1 : Math.max(0, Math.floor(filter.limit));
    return this.ctx.storage.sql
      .exec<{ runId: string; status: string; createdAt: number; updatedAt: number; seq: number }>(`SELECT runId, status, createdAt, updatedAt, seq FROM runs ${where} ORDER BY updatedAt DESC, runId LIMIT ?`, ...statuses, limit)
      .toArray()
      .map((r) => ({ runId: r.runId as RunHead["runId"], status: r.status as RunStatus, createdAt: r.createdAt, updatedAt: r.updatedAt, seq: r.seq }));
  }
}
