/**
 * A run's journal as a live stream of server-sent events, pushed: whoever
 * appends to the run (a driver in this process, a run's Durable Object)
 * says so, and the stream reads the journal from where its reader is. It
 * never polls: between changes it only sends a keep-alive ping.
 *
 * Memory: the stream is pulled. It reads only when its reader wants more,
 * and a change heard meanwhile only sets a flag, so a slow reader holds at
 * most one pending chunk (one read of the journal's tail), however much is
 * appended. A reader that goes away cancels the stream, which stops
 * listening and drops its timer.
 */
import type { JournalEvent, RunStatus } from "../journal/index.js";
import type { StepProgress } from "../driver/index.js";
import { after, encodeUtf8 } from "../web.js";

/** What a live journal stream reads and hears. */
export interface JournalFeed {
  /** The run's events from `fromSeq` to the end. */
  read(fromSeq: number): Promise<readonly JournalEvent[]>;
  /** What the run's agent has streamed so far in the step it decides, when known here. */
  progress?(): StepProgress | undefined | Promise<StepProgress | undefined>;
  /** Calls `listener` on each change of the run until the returned function is called. */
  watch(listener: (what: "append" | "progress") => void): () => void;
}

/** Where a run's event stream starts, the run's status then, and how often it pings while nothing changes. */
export interface JournalStreamOptions {
  /** The first seq to send. */
  readonly from: number;
  /** The run's status when the stream opens: an ended run's stream sends what is left, then `end`. */
  readonly status: RunStatus;
  /** Milliseconds between keep-alive pings while nothing changes. */
  readonly keepAliveMs: number;
}

/** A `ReadableStream` of the bytes of an SSE body (opaque here: the core is typed without the DOM). */
export interface EventStreamBody {
  readonly locked: boolean;
  cancel(reason?: unknown): Promise<void>;
}

interface Controller {
  enqueue(chunk: Uint8Array): void;
  close(): void;
}
type StreamConstructor = new (source: { pull(c: Controller): Promise<void>; cancel(): void }, strategy: { highWaterMark: number }) => EventStreamBody;

const ENDS: Readonly<Record<string, RunStatus>> = { "run.completed": "completed", "run.failed": "failed", "run.cancelled": "cancelled" };
const TERMINAL = new Set<RunStatus>(["completed", "failed", "cancelled"]);

/** One SSE message. `data` never holds a raw newline (it is JSON, or empty). */
const sse = (event: string, data: string, id?: number): string => `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`;

/**
 * The run's journal from `options.from` on, as an SSE body: `journal`
 * events (id = seq, so a client resumes after Last-Event-ID), `progress`
 * (what a streaming agent said so far, never journaled), `ping` every
 * `keepAliveMs` while nothing changes, and `end` once the run has ended and
 * everything was sent.
 *
 * @example
 * ```ts
 * const body = journalStream({ read: (from) => driver.events(runId, from), watch: (l) => driver.watch(runId, l) }, { from: 1, status: "running", keepAliveMs: 15_000 })
 * ```
 */
export function journalStream(feed: JournalFeed, options: JournalStreamOptions): EventStreamBody {
  let next = options.from;
  let ended: RunStatus | undefined = TERMINAL.has(options.status) ? options.status : undefined;
  // What changed since the last pull: the first pull reads, and shows progress when there is any.
  let appended = true;
  let progressed = feed.progress !== undefined;
  let shown = -1;
  let closed = false;
  let wake: (() => void) | undefined;
  let stopTimer = (): void => {};
  const signal = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const unwatch = feed.watch((what) => {
    if (what === "append") appended = true;
    else progressed = true;
    signal();
  });
  const stop = (): void => {
    closed = true;
    unwatch();
    stopTimer();
    signal();
  };
  const Stream = (globalThis as unknown as { ReadableStream: StreamConstructor }).ReadableStream;
  return new Stream(
    {
      async pull(c) {
        try {
          while (!closed) {
            if (appended) {
              appended = false;
              const events = await feed.read(next);
              let text = "";
              for (const e of events) {
                if (e.seq < next) continue;
                text += sse("journal", JSON.stringify(e), e.seq);
                next = e.seq + 1;
                ended = ENDS[e.type] ?? ended;
              }
              if (ended !== undefined) text += sse("end", JSON.stringify({ status: ended }));
              if (closed) return;
              if (text !== "") c.enqueue(encodeUtf8(text));
              if (ended !== undefined) {
                stop();
                c.close();
              }
              if (text !== "") return;
            }
            if (progressed && feed.progress !== undefined) {
              progressed = false;
              const p = await feed.progress();
              if (p !== undefined && p.version !== shown && !closed) {
                shown = p.version;
                c.enqueue(encodeUtf8(sse("progress", JSON.stringify({ step: p.step, text: p.text, calls: p.calls, ...(p.tools.length > 0 ? { tools: p.tools } : {}) }))));
                return;
              }
            }
            if (appended || closed) continue;
            // Nothing to send: wait for a change, or the keep-alive.
            const pinged = await new Promise<boolean>((resolve) => {
              wake = () => resolve(false);
              stopTimer = after(options.keepAliveMs, () => {
                wake = undefined;
                resolve(true);
              });
            });
            stopTimer();
            if (pinged && !closed) {
              c.enqueue(encodeUtf8(sse("ping", "")));
              return;
            }
          }
        } catch (e) {
          // A failed read ends the stream (the client reconnects after its last event id); nothing listens on.
          stop();
          throw e;
        }
      },
      cancel: stop,
    },
    // Pulled one chunk at a time: nothing is read ahead of the reader.
    { highWaterMark: 0 },
  );
}
