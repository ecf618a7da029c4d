/**
 * A run object's check of its run (hostCheck: the index's sweep, and
 * operators): its lease, alarm and status, judged stranded or not, and,
 * when asked to heal, the index told and the alarm set again. Apart from
 * the object (run-object.ts) because it only reads what the object keeps
 * and calls what the object would call itself.
 */
import type { Alarm } from "./alarm.js";
import type { RunCheck } from "./api.js";
import type { RunSql } from "./sql.js";

/** What a check needs of its object. */
export interface CheckedObject {
  readonly sql: RunSql;
  readonly state: DurableObjectState;
  /** The object's alarm (alarm.ts). */
  readonly alarm: Alarm;
  /** The store's clock, which judges leases (alarms are set by the platform's). */
  readonly clock: () => number;
  /** Reports the run to the index now. */
  report(): Promise<void>;
}

/** The run's check after `graceMs`; with `heal`, an index that is behind is told, and a stranded hosted run's alarm is set. Null when the object holds no run. */
export async function checkRun(o: CheckedObject, heal: boolean, graceMs: number): Promise<RunCheck | null> {
  const { sql } = o;
  const s = sql.summary();
  if (s === undefined) return null;
  const now = o.clock();
  const lease = sql.leaseView(s.runId);
  const alarmAt = await o.state.storage.getAlarm();
  const hosted = sql.hosted();
  const runnable = s.status === "running" && s.custody === undefined;
  const live = lease !== null && lease.expiresAt > now;
  // Runnable since its last event, leaseless since its lease's expiry: stranded since the later.
  const since = Math.max(lease?.expiresAt ?? Number.NEGATIVE_INFINITY, s.updatedAt);
  const alarmDue = alarmAt !== null && alarmAt >= Date.now() - graceMs;
  const stranded = runnable && !live && now - since > graceMs && !(hosted && alarmDue);
  const healed: ("reported" | "armed")[] = [];
  if (heal) {
    if (s.indexedSeq < s.seq) {
      await o.report();
      healed.push("reported");
    }
    // Re-armed even within the grace period: an alarm is cheap, and one
    // that fires while a drive is under way makes it go round once more.
    if (hosted && runnable && !live && (alarmAt === null || alarmAt < Date.now())) {
      o.alarm.forget();
      await o.alarm.arm(Date.now());
      healed.push("armed");
    }
  }
  return { runId: s.runId, status: s.status, seq: s.seq, updatedAt: s.updatedAt, lease, alarmAt, hosted, now, stranded, healed };
}
