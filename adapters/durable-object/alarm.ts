/**
 * A Durable Object's one alarm, armed to fire by a time: an alarm set later,
 * or none, or one overdue, is (re)set; an earlier one is kept (whatever
 * fires handles everything due). The time last set is remembered to spare a
 * storage read per step, but trusted only while it is in the future: an
 * alarm due in the past may have fired, or been lost (workerd logs "alarm
 * overdue ... AlarmManager mismatch" after a killed process), so it is read
 * again and set again.
 *
 * Arms are applied one after another: two at once (a drive's, and the span
 * export's, which an append does not wait for) would both read the alarm,
 * then both set it, and the later time could win.
 */
export class Alarm {
  private at: number | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Makes sure the alarm fires by `at` (now, when `at` is past). */
  arm(at: number): Promise<void> {
    return this.inTurn(() => this.armNow(at));
  }

  private inTurn(f: () => Promise<void>): Promise<void> {
    const done = this.queue.then(f);
    this.queue = done.catch(() => {});
    return done;
  }

  private async armNow(at: number): Promise<void> {
    const now = this.now();
    if (this.at !== undefined && this.at > now && this.at <= at) return;
    const current = await this.storage.getAlarm();
    if (current !== null && current > now && current <= at) {
      this.at = current;
      return;
    }
    await this.storage.setAlarm(at);
    this.at = at;
  }

  /** Sets the alarm for `at`, even later than the one set. */
  set(at: number): Promise<void> {
    return this.inTurn(async () => {
      await this.storage.setAlarm(at);
      this.at = at;
    });
  }

  /** Forgets what was set (the alarm fired, or something else may have changed it): the next arm reads it again. */
  forget(): void {
    this.at = undefined;
  }
}
