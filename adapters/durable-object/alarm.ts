/**
 * A Durable Object's one alarm, armed to fire by a time: an alarm set later,
 * or none, or one overdue, is (re)set; an earlier one is kept (whatever
 * fires handles everything due). The time last set is remembered to spare a
 * storage read per step, but trusted only while it is in the future: an
 * alarm due in the past may have fired, or been lost (workerd logs "alarm
 * overdue ... AlarmManager mismatch" after a killed process), so it is read
 * again and set again.
 */
export class Alarm {
  private at: number | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Makes sure the alarm fires by `at` (now, when `at` is past). */
  async arm(at: number): Promise<void> {
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
  async set(at: number): Promise<void> {
    await this.storage.setAlarm(at);
    this.at = at;
  }

  /** Forgets what was set (the alarm fired, or something else may have changed it): the next arm reads it again. */
  forget(): void {
    this.at = undefined;
  }
}
