/**
 * An OTLP/HTTP (JSON) exporter over `fetch`, from any runtime. It derives a
 * run's spans from its journal and sends those that ended after the run's
 * export cursor, in batches; the cursor moves only after the collector
 * accepted a batch, so a crash, an eviction or a reload between the two
 * sends the same spans again, with the same ids (a collector drops what it
 * has). It never runs inside the driver: a host calls it (an alarm, an
 * interval, `flush()`), and it never blocks a step.
 *
 * It keeps nothing of a run between exports: what it knows of a run is the
 * cursor, kept where the cursor says (memory, IndexedDB, a Durable Object's
 * SQLite), so a long-lived exporter does not grow with the runs it exported.
 */
import type { RunId } from "../ids.js";
import type { RunFilter, Store } from "../store/index.js";
import { after, platformFetch, type AbortSignalLike, type FetchLike } from "../web.js";
import { otlpJson, type OtlpResource } from "./otlp.js";
import { journalSpans, type JournalSpansOptions } from "./spans.js";

/**
 * Where an exporter keeps how far it got, per run: the seq of the last event
 * whose spans the collector accepted (0 before any). A cursor never moves
 * back: `set` below the current value leaves it where it is, so two
 * exporters of one run (two tabs, an alarm and an append) cannot undo each
 * other. Every implementation passes `runCursorConformance` (isoagent/testkit).
 */
export interface ExportCursor {
  get(runId: RunId): Promise<number>;
  set(runId: RunId, seq: number): Promise<void>;
}

/** A cursor in memory (tests, a process that exports what it drives and loses nothing by sending it again after a restart). */
export function memoryCursor(): ExportCursor {
  const at = new Map<RunId, number>();
  return { get: async (runId) => at.get(runId) ?? 0, set: async (runId, seq) => void at.set(runId, Math.max(seq, at.get(runId) ?? 0)) };
}

/** Where `otlpExporter` sends (the endpoint and headers), the cursor it keeps per run, and the resource and span options of what it sends. */
export interface OtlpExporterOptions {
  /** The collector's traces endpoint, such as http://localhost:4318/v1/traces. */
  readonly endpoint: string;
  /** Added to every request (an API key of a hosted collector). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cursor: ExportCursor;
  readonly resource?: OtlpResource;
  readonly spans?: JournalSpansOptions;
  /** Spans per request. Default 256. */
  readonly batchSize?: number;
  /** Tries after the first, for a network error, 429 or 5xx. Default 3. */
  readonly maxRetries?: number;
  /** The first backoff; each next one doubles. Default 500 ms. */
  readonly baseDelayMs?: number;
  readonly fetch?: FetchLike;
  /** How to wait between tries (tests pass a fake). */
  readonly sleep?: (ms: number, signal?: AbortSignalLike) => Promise<void>;
}

/** What one export did. */
export interface ExportResult {
  readonly runId: RunId;
  /** Spans the collector accepted in this export. */
  readonly exported: number;
  /** The cursor after it. */
  readonly cursor: number;
  /** Why it stopped early (the collector unreachable, or refusing), when it did. */
  readonly error?: string;
  /**
   * Set when the collector could not take the spans for now (unreachable,
   * 429 or 5xx after the retries): the next export sends them. Absent when
   * they were accepted, or dropped because the collector refused them.
   */
  readonly retry?: true;
}

/** What `exportAll` and `flush` need of a store. */
export type ListingStore = Pick<Store, "read" | "listRuns">;

/** Exports journals as OTLP/JSON traces to a collector, each run from its cursor on; a cursor moves only once the collector accepted the spans before it. */
export interface OtlpExporter {
  /** Exports what is new of one run (of a store, or of anything that reads a journal). */
  exportRun(store: Pick<Store, "read">, runId: RunId, signal?: AbortSignalLike): Promise<ExportResult>;
  /**
   * Exports what is new of every run the store lists (a filter narrows
   * them). A run whose last event is at or before its cursor is not read.
   * It stops at the first run the collector could not take (unreachable,
   * or refusing for now, after the retries): the runs after it wait for
   * the next call, rather than each retrying a collector that is down.
   */
  exportAll(store: ListingStore, filter?: RunFilter, signal?: AbortSignalLike): Promise<ExportResult[]>;
  /**
   * `exportAll` of every run, one at a time per store: a call while one is
   * under way waits for it and runs once more after it (calls that come
   * meanwhile share that round), so an interval never overlaps itself and
   * what was appended before a call is sent by the time it resolves (the
   * collector willing). For Node: `setInterval(() => void exporter.flush(store), 10_000)`
   * and `await exporter.flush(store)` before the process exits.
   */
  flush(store: ListingStore, signal?: AbortSignalLike): Promise<ExportResult[]>;
}

const realSleep = (ms: number, signal?: AbortSignalLike): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const abort = (): void => {
      cancel();
      reject(signal!.reason);
    };
    const cancel = after(ms, () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    });
    signal?.addEventListener("abort", abort, { once: true });
  });

/** The round under way of `flush`, per store, and the one queued after it. */
interface Rounds {
  running: Promise<ExportResult[]> | undefined;
  queued: Promise<ExportResult[]> | undefined;
}

/**
 * An exporter of journal-derived spans to an OTLP/HTTP collector.
 *
 * @example
 * ```ts
 * const exporter = otlpExporter({ endpoint: "http://localhost:4318/v1/traces", cursor: memoryCursor() })
 * setInterval(() => void exporter.flush(store), 10_000)
 * process.on("SIGTERM", async () => { await exporter.flush(store); process.exit(0) })
 * ```
 */
export function otlpExporter(options: OtlpExporterOptions): OtlpExporter {
  const batchSize = options.batchSize ?? 256;
  const maxRetries = options.maxRetries ?? 3;
  const base = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? realSleep;
  // Only while a flush is under way (the entry is removed after it), and weakly.
  const flushing = new WeakMap<ListingStore, Rounds>();
  const post = async (body: string, signal: AbortSignalLike | undefined): Promise<{ ok: true } | { ok: false; retry: boolean; why: string; waitMs?: number }> => {
    const fetch = options.fetch ?? platformFetch();
    try {
      const res = await fetch(options.endpoint, { method: "POST", headers: { "content-type": "application/json", ...options.headers }, body, ...(signal === undefined ? {} : { signal }) });
      // The answer's body (a partial_success report, at most) is read and dropped, so the connection is freed.
      await res.text().catch(() => "");
      if (res.status >= 200 && res.status < 300) return { ok: true };
      const retryAfter = Number(res.headers.get("retry-after"));
      const retry = res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504;
      return { ok: false, retry, why: `the collector answered ${res.status}`, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { waitMs: retryAfter * 1000 } : {}) };
    } catch (e) {
      if (signal?.aborted === true) throw e;
      return { ok: false, retry: true, why: "the collector could not be reached" };
    }
  };
  const exporter: OtlpExporter = {
    async exportRun(store, runId, signal) {
      let cursor = await options.cursor.get(runId);
      const events = await store.read(runId);
      const head = events.length === 0 ? 0 : events[events.length - 1]!.seq;
      const spans = journalSpans(events, options.spans).filter((s) => s.endSeq > cursor);
      let exported = 0;
      for (let k = 0; k < spans.length; k += batchSize) {
        const batch = spans.slice(k, k + batchSize);
        const body = JSON.stringify(otlpJson(batch, options.resource));
        let result = await post(body, signal);
        for (let attempt = 0; !result.ok && result.retry && attempt < maxRetries; attempt++) {
          await sleep(result.waitMs ?? base * 2 ** attempt, signal);
          result = await post(body, signal);
        }
        if (!result.ok && result.retry) return { runId, exported, cursor, error: `${result.why}; the next export tries again from event ${cursor + 1}`, retry: true };
        // A batch the collector refuses as malformed is not sent again (it would be refused again): the cursor moves past it.
        cursor = batch[batch.length - 1]!.endSeq;
        await options.cursor.set(runId, cursor);
        if (!result.ok) return { runId, exported, cursor, error: `${result.why}; ${batch.length} spans were dropped` };
        exported += batch.length;
      }
      // Every span that ends by the head was derived and accepted: the
      // cursor moves to the head, so a run with nothing new is not read again.
      if (head > cursor) {
        cursor = head;
        await options.cursor.set(runId, cursor);
      }
      return { runId, exported, cursor };
    },
    async exportAll(store, filter = {}, signal) {
      const out: ExportResult[] = [];
      for (const r of await store.listRuns(filter)) {
        if (signal?.aborted === true) break;
        if (r.seq <= (await options.cursor.get(r.runId))) continue;
        const result = await exporter.exportRun(store, r.runId, signal);
        out.push(result);
        if (result.retry === true) break;
      }
      return out;
    },
    flush(store, signal) {
      const rounds = flushing.get(store);
      if (rounds?.queued !== undefined) return rounds.queued;
      const start = (r: Rounds): Promise<ExportResult[]> => {
        r.queued = undefined;
        r.running = exporter.exportAll(store, {}, signal).finally(() => {
          if (r.queued === undefined) flushing.delete(store);
        });
        return r.running;
      };
      if (rounds === undefined) {
        const r: Rounds = { running: undefined, queued: undefined };
        flushing.set(store, r);
        return start(r);
      }
      rounds.queued = rounds.running!.catch(() => []).then(() => start(rounds));
      return rounds.queued;
    },
  };
  return exporter;
}
