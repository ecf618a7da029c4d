/**
 * When to try a provider again and how long to wait: what the official SDKs
 * do (408, 409, 429 and 5xx, and `x-should-retry`), honouring `retry-after-ms`
 * and `retry-after` (seconds or an HTTP date), else exponential backoff with
 * jitter. Used by the model adapters and the toolkit's search tool.
 */
import { after, parseHttpDate, type AbortSignalLike } from "./web.js";

/** What the retry rules read of an HTTP answer: its status and headers (a model adapter's `ModelResponse` is one). */
export interface RetryResponse {
  readonly status: number;
  header(name: string): string | null;
}

/** How a model adapter retries a failed request (a network failure, a rate limit, a 5xx): how often, and how long it backs off. */
export interface RetryOptions {
  /** Tries after the first. Default 4. */
  readonly maxRetries?: number;
  /** The first backoff; each next one doubles. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** The longest backoff. Default 8,000 ms. */
  readonly maxDelayMs?: number;
  /** A provider asking to wait longer than this is not waited for here: the run waits to be resumed. Default 60,000 ms. */
  readonly maxRetryAfterMs?: number;
  /** How to wait (tests pass a fake). */
  readonly sleep?: (ms: number, signal: AbortSignalLike) => Promise<void>;
  /** Jitter source in [0, 1). Default Math.random. */
  readonly random?: () => number;
}

export interface ResolvedRetry {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly sleep: (ms: number, signal: AbortSignalLike) => Promise<void>;
  readonly random: () => number;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts. */
export function realSleep(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      cancel();
      reject(signal.reason);
    };
    const cancel = after(ms, () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export function resolveRetry(o: RetryOptions = {}): ResolvedRetry {
  return {
    maxRetries: o.maxRetries ?? 4,
    baseDelayMs: o.baseDelayMs ?? 500,
    maxDelayMs: o.maxDelayMs ?? 8_000,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
    sleep: o.sleep ?? realSleep,
    random: o.random ?? Math.random,
  };
}

/** Whether a failed status is worth another try. */
export function retryableStatus(res: RetryResponse): boolean {
  const says = res.header("x-should-retry");
  if (says === "true") return true;
  if (says === "false") return false;
  return res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
}

/** The wait the provider asked for, in ms, or undefined. */
export function retryAfterMs(res: RetryResponse, now: number): number | undefined {
  const ms = res.header("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const ra = res.header("retry-after");
  if (ra === null) return undefined;
  const t = ra.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.ceil(Number(t) * 1000);
  const at = parseHttpDate(t);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff for the n-th retry (0-based), with 0-25% jitter off. */
export function backoffMs(r: ResolvedRetry, n: number): number {
  const d = Math.min(r.maxDelayMs, r.baseDelayMs * 2 ** n);
  return Math.round(d * (1 - 0.25 * r.random()));
}
