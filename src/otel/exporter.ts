/**
 * An OTLP/HTTP (JSON) exporter over `fetch`, from any runtime. It derives a
 * run's spans from its journal and sends those that ended after the run's
 * export cursor, in batches; the cursor moves only after the collector
 * accepted a batch, so a crash, an eviction or a reload between the two
 * sends the same spans again, with the same ids (a collector drops what it
 * has). It never runs inside the driver: a host calls it (an alarm, an
 * interval, `flush()`), and it never blocks a step.
 */
import type { RunId } from "../ids.js";
import type { RunFilter, Store } from "../store/index.js";
import { after, platformFetch, type AbortSignalLike, type FetchLike } from "../web.js";
import { otlpJson, type OtlpResource } from "./otlp.js";
import { journalSpans, type JournalSpansOptions } from "./spans.js";

/** Where an exporter keeps how far it got, per run: the seq of the last event whose spans were accepted. */
export interface ExportCursor {
  get(runId: RunId): Promise<number>;
  set(runId: RunId, seq: number): Promise<void>;
}

/** A cursor in memory (tests, a process that exports what it drives). */
export function memoryCursor(): ExportCursor {
  const at = new Map<RunId, number>();
  return { get: async (runId) => at.get(runId) ?? 0, set: async (runId, seq) => void at.set(runId, Math.max(seq, at.get(runId) ?? 0)) };
}

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
}

export interface OtlpExporter {
  /** Exports what is new of one run. */
  exportRun(store: Store, runId: RunId, signal?: AbortSignalLike): Promise<ExportResult>;
  /** Exports what is new of every run the store lists (a filter narrows them). */
  exportAll(store: Store, filter?: RunFilter, signal?: AbortSignalLike): Promise<ExportResult[]>;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => void after(ms, r));

/**
 * An exporter of journal-derived spans to an OTLP/HTTP collector.
 *
 * @example
 * ```ts
 * const exporter = otlpExporter({ endpoint: "http://localhost:4318/v1/traces", cursor: memoryCursor() })
 * setInterval(() => void exporter.exportAll(store, { status: ["completed", "failed", "cancelled"] }), 10_000)
 * ```
 */
export function otlpExporter(options: OtlpExporterOptions): OtlpExporter {
  const batchSize = options.batchSize ?? 256;
  const maxRetries = options.maxRetries ?? 3;
  const base = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? realSleep;
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
      const spans = journalSpans(await store.read(runId), options.spans).filter((s) => s.endSeq > cursor);
      let exported = 0;
      for (let k = 0; k < spans.length; k += batchSize) {
        const batch = spans.slice(k, k + batchSize);
        const body = JSON.stringify(otlpJson(batch, options.resource));
        let result = await post(body, signal);
        for (let attempt = 0; !result.ok && result.retry && attempt < maxRetries; attempt++) {
          await sleep(result.waitMs ?? base * 2 ** attempt, signal);
          result = await post(body, signal);
        }
        if (!result.ok && result.retry) return { runId, exported, cursor, error: `${result.why}; the next export tries again from event ${cursor + 1}` };
        // A batch the collector refuses as malformed is not sent again (it would be refused again): the cursor moves past it.
        cursor = batch[batch.length - 1]!.endSeq;
        await options.cursor.set(runId, cursor);
        if (!result.ok) return { runId, exported, cursor, error: `${result.why}; ${batch.length} spans were dropped` };
        exported += batch.length;
      }
      return { runId, exported, cursor };
    },
    async exportAll(store, filter = {}, signal) {
      const out: ExportResult[] = [];
      for (const r of await store.listRuns(filter)) {
        if (signal?.aborted === true) break;
        out.push(await exporter.exportRun(store, r.runId, signal));
      }
      return out;
    },
  };
  return exporter;
}
