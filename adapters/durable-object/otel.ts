/**
 * A run object exports its run's spans (isoagent/otel) itself: after its
 * appends, on a timer while the object lives, and from its alarm, which is
 * armed first and survives a reset or an eviction. The export cursor is a
 * table of its own in the object's SQLite (not one of the journal's: those
 * move with the store's encoding, sql.ts), written only after the collector
 * accepted. Nothing here runs inside a step or an operator's answer: an
 * append only arms the alarm and starts a timer.
 */
import type { JournalEvent, RunId } from "../../src/index.js";
import { otlpExporter, type ExportCursor, type ExportResult, type OtlpExporter, type OtlpExporterOptions } from "../../src/otel/index.js";
import { message } from "./wire.js";

/**
 * How a run object exports its run's spans: where, and how often. Given by
 * `RunObjectConfig.otel`, per run (return undefined to leave a run, or every
 * run, unexported).
 */
export interface RunObjectOtel extends Omit<OtlpExporterOptions, "cursor" | "sleep"> {
  /** How long the spans of an append wait, so that the appends of a step go in one request. Default 1,000 ms. */
  readonly delayMs?: number;
  /**
   * The wait after an export the collector could not take (unreachable, 429
   * or 5xx); each next one doubles, up to `maxBackoffMs`. The alarm comes
   * back then, after a reset too. Default 5,000 ms.
   */
  readonly backoffMs?: number;
  /** Default 300,000 ms. */
  readonly maxBackoffMs?: number;
  /** How long an export may take before it is given up (and tried again later). Default 10,000 ms. */
  readonly timeoutMs?: number;
}

/**
 * The export cursor in a Durable Object's SQLite storage: one row per run
 * in a table of its own, `isoagent_otel_cursor` (created on first use, never
 * altered by the journal's migrations). A `set` below the cursor leaves it
 * where it is.
 *
 * @example
 * ```ts
 * const exporter = otlpExporter({ endpoint, cursor: sqlCursor(ctx.storage) })
 * ```
 */
export function sqlCursor(storage: DurableObjectStorage): ExportCursor {
  let made = false;
  const sql = (): SqlStorage => {
    if (!made) storage.sql.exec("CREATE TABLE IF NOT EXISTS isoagent_otel_cursor (run_id TEXT PRIMARY KEY, seq INTEGER NOT NULL)");
    made = true;
    return storage.sql;
  };
  return {
    get: async (runId) => sql().exec<{ seq: number }>("SELECT seq FROM isoagent_otel_cursor WHERE run_id = ?", runId).toArray()[0]?.seq ?? 0,
    set: async (runId, seq) => {
      sql().exec("INSERT INTO isoagent_otel_cursor (run_id, seq) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET seq = max(seq, excluded.seq)", runId, seq);
    },
  };
}

/** What {@link RunExport} needs of its object. */
export interface ExportHost {
  /** The config's answer for the object's run; undefined: no export (called once per incarnation, when the run exists). */
  options(): RunObjectOtel | undefined;
  /** The run the object holds, if any, and the seq of its last event. */
  run(): { readonly runId: RunId; readonly seq: number } | undefined;
  read(runId: RunId): JournalEvent[];
  readonly storage: DurableObjectStorage;
  /** Makes sure the object's alarm fires by `at`. */
  arm(at: number): Promise<void>;
}

/**
 * The export of one run object's run, for one incarnation of the object. It
 * keeps a timer, whether an export is under way, and the backoff (lost with
 * the incarnation, and rebuilt from the alarm armed before); the cursor is
 * the only thing kept.
 */
export class RunExport {
  private exporter: OtlpExporter | null | undefined;
  private options: RunObjectOtel | undefined;
  private readonly cursor: ExportCursor;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly host: ExportHost) {
    this.cursor = sqlCursor(host.storage);
  }

  /** The exporter of the run, made once per incarnation; null when the config exports nothing. */
  private ready(): OtlpExporter | null {
    if (this.exporter !== undefined) return this.exporter;
    if (this.host.run() === undefined) return null;
    try {
      const options = this.host.options();
      this.options = options;
      // No retry inside the object by default: the alarm tries again, with backoff, and after a reset too.
      this.exporter = options === undefined ? null : otlpExporter({ maxRetries: 0, ...options, cursor: this.cursor });
    } catch (e) {
      console.error(`isoagent: the run object's otel config failed, so this incarnation exports nothing: ${message(e)}`);
      this.exporter = null;
    }
    return this.exporter;
  }

  /**
   * After an append: the alarm is armed (a reset before the timer loses
   * nothing), and the timer sends the new spans within `delayMs`. Neither is
   * awaited: the append's caller (a step, an operator) waits for neither.
   */
  afterAppend(): void {
    // (Inside an append that has happened: nothing here may throw.)
    if (this.ready() === null) return;
    const delay = this.options!.delayMs ?? 1000;
    this.host.arm(Math.max(Date.now() + delay, this.retryAt)).catch((e: unknown) => console.error(`isoagent: the alarm for a run's spans could not be set: ${message(e)}`));
    // While backing off, the alarm sends them (the collector was down a moment ago).
    if (this.timer !== undefined || Date.now() < this.retryAt) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // An export refused while this timer waited: the backoff holds (the alarm, armed for its end, sends).
      if (Date.now() < this.retryAt) return;
      void this.run();
    }, delay);
  }

  /** From the object's alarm: sends what is new, unless backing off (then the alarm is set for the end of the wait). */
  async alarm(): Promise<void> {
    if (this.ready() === null) return;
    if (Date.now() < this.retryAt) return this.host.arm(this.retryAt);
    await this.run();
  }

  /** One export at a time; one asked for while one is under way goes round again after it. */
  private run(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const running = (async () => {
      try {
        do {
          this.again = false;
          await this.once();
        } while (this.again && this.failures === 0);
      } finally {
        this.running = undefined;
      }
    })();
    this.running = running;
    return running;
  }

  private async once(): Promise<void> {
    const run = this.host.run();
    const exporter = this.ready();
    if (run === undefined || exporter === null) return;
    const { runId } = run;
    const options = this.options!;
    let result: Pick<ExportResult, "error" | "retry">;
    try {
      // Nothing new since the collector's last acceptance: nothing to read.
      if ((await this.cursor.get(runId)) >= run.seq) return this.succeeded();
      // The alarm first: an export cut short (a reset, an eviction) is tried again by it.
      const timeout = options.timeoutMs ?? 10_000;
      await this.host.arm(Date.now() + timeout + (options.backoffMs ?? 5000));
      result = await exporter.exportRun({ read: async (id) => this.host.read(id) }, runId, AbortSignal.timeout(timeout));
    } catch (e) {
      // Timed out, or the journal or the cursor failed: tried again later, like a collector that is down.
      result = { error: message(e), retry: true };
    }
    if (result.retry !== true) {
      if (result.error !== undefined) console.error(`isoagent: run ${runId}: ${result.error}`);
      return this.succeeded();
    }
    this.failures++;
    this.retryAt = Date.now() + Math.min((options.backoffMs ?? 5000) * 2 ** (this.failures - 1), options.maxBackoffMs ?? 300_000);
    console.error(`isoagent: run ${runId}'s spans were not exported (${result.error}); tried again at ${new Date(this.retryAt).toISOString()}`);
    await this.host.arm(this.retryAt);
  }

  private succeeded(): void {
    this.failures = 0;
    this.retryAt = 0;
  }
}
