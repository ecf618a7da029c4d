/** What the two adapters share: a request over fetch, its status and wait turned into a SearchError, its body read as JSON. */
import { retryAfterMs } from "../../retry.js";
import type { JsonValue } from "../../json/index.js";
import { tryParseJson } from "../../json/index.js";
import type { AbortSignalLike, FetchLike } from "../../web.js";
import { isSearchError, SearchError } from "./port.js";

/** The most bytes of an answer read (a search answer is a few KB). */
const MAX_BYTES = 2 * 1024 * 1024;

export async function requestJson(fetch: FetchLike, url: string, init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string }, signal: AbortSignalLike): Promise<JsonValue> {
  let res;
  try {
    res = await fetch(url, { ...init, signal, redirect: "error" });
  } catch {
    throw new SearchError("network");
  }
  if (res.status < 200 || res.status > 299) {
    void res.body
      ?.getReader()
      .cancel()
      .catch(() => {});
    throw new SearchError("status", { status: res.status, retryAfterMs: retryAfterMs({ status: res.status, header: (n) => res.headers.get(n) }, Date.now()) });
  }
  let bytes: Uint8Array;
  try {
    const reader = res.body?.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      if (reader === undefined) break;
      const r = await reader.read();
      if (r.done || r.value === undefined) break;
      size += r.value.length;
      if (size > MAX_BYTES) {
        void reader.cancel().catch(() => {});
        throw new SearchError("malformed");
      }
      parts.push(r.value);
    }
    bytes = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
  } catch (e) {
    if (isSearchError(e)) throw e;
    throw new SearchError("network");
  }
  const parsed = tryParseJson(bytes);
  if (!parsed.ok) throw new SearchError("malformed");
  return parsed.value;
}

/** A string field of an object, or undefined. */
export function str(o: JsonValue | undefined, key: string): string | undefined {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return undefined;
  const v = (o as Record<string, JsonValue>)[key];
  return typeof v === "string" ? v : undefined;
}

export const isObject = (v: JsonValue | undefined): v is Record<string, JsonValue> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A hit with every occurrence of a secret (the provider's key) replaced: an answer that echoes it never shows it. */
export function scrubbed<T extends { title: string; url: string; snippet: string; date?: string | undefined }>(hit: T, secret: string): T {
  const s = (t: string): string => t.split(secret).join("[redacted]");
  return { ...hit, title: s(hit.title), url: s(hit.url), snippet: s(hit.snippet), ...(hit.date === undefined ? {} : { date: s(hit.date) }) };
}
