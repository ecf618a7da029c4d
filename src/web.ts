/**
 * The few Web-standard globals the core uses, typed here instead of through a
 * platform's type library (DOM, Node or Workers), so that the core compiles
 * with `lib: ["ES2022"]` alone and cannot lean on a platform by accident.
 * Every accessor reads `globalThis` when called, never at import time.
 *
 * @module
 */

interface TextDecoderLike {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
interface TextEncoderLike {
  encode(input: string): Uint8Array;
  encodeInto(input: string, dest: Uint8Array): { read: number; written: number };
}
interface SubtleCryptoLike {
  digest(algorithm: "SHA-256", data: Uint8Array): Promise<ArrayBuffer>;
  importKey(format: "raw", key: Uint8Array, algorithm: { name: "HMAC"; hash: "SHA-256" }, extractable: false, usages: ["sign"]): Promise<unknown>;
  sign(algorithm: "HMAC", key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
}
interface WebGlobals {
  TextDecoder: new (label: "utf-8", options?: { fatal?: boolean; ignoreBOM?: boolean }) => TextDecoderLike;
  TextEncoder: new () => TextEncoderLike;
  crypto?: { subtle?: SubtleCryptoLike; getRandomValues?: (array: Uint8Array) => Uint8Array };
}

const web = globalThis as unknown as WebGlobals;

let fatalDecoder: TextDecoderLike | undefined;
let encoder: TextEncoderLike | undefined;

/**
 * Decodes UTF-8, throwing on any invalid sequence, and keeping a byte order
 * mark as U+FEFF (so that the JSON boundary can refuse it instead of silently
 * dropping it).
 */
export function decodeUtf8Fatal(bytes: Uint8Array): string {
  fatalDecoder ??= new web.TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return fatalDecoder.decode(bytes);
}

/** A UTF-8 decoder for a stream of chunks: invalid bytes become U+FFFD; call with no chunk to flush. */
export function utf8StreamDecoder(): (chunk?: Uint8Array) => string {
  const decoder = new web.TextDecoder("utf-8");
  return (chunk) => (chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true }));
}

/** Encodes a string as UTF-8 into `dest` (which must hold 3 bytes per UTF-16 unit); returns the bytes written. */
export function encodeUtf8Into(text: string, dest: Uint8Array): number {
  encoder ??= new web.TextEncoder();
  return encoder.encodeInto(text, dest).written;
}

/** Encodes a string as UTF-8. */
export function encodeUtf8(text: string): Uint8Array {
  encoder ??= new web.TextEncoder();
  return encoder.encode(text);
}

/** SHA-256 through `crypto.subtle`, present in browsers, Workers and Node 20+. */
export async function sha256Bytes(data: Uint8Array): Promise<Uint8Array> {
  const subtle = web.crypto?.subtle;
  if (subtle === undefined) {
    throw new Error("crypto.subtle is not available on this platform");
  }
  return new Uint8Array(await subtle.digest("SHA-256", data));
}

/** HMAC-SHA-256 of `data` under `key`, through `crypto.subtle`. */
export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const subtle = web.crypto?.subtle;
  if (subtle === undefined) throw new Error("crypto.subtle is not available on this platform");
  const k = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", k, data));
}

/** `n` random bytes from `crypto.getRandomValues`. */
export function randomBytes(n: number): Uint8Array {
  const f = web.crypto?.getRandomValues;
  if (f === undefined) throw new Error("crypto.getRandomValues is not available on this platform");
  return f.call(web.crypto, new Uint8Array(n));
}

/** The part of `AbortSignal` the core uses. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** The part of `AbortController` the core uses. */
export interface AbortControllerLike {
  readonly signal: AbortSignalLike;
  abort(reason?: unknown): void;
}

interface TimerGlobals {
  AbortController: new () => AbortControllerLike;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  crypto?: { randomUUID?: () => string };
}

const timers = globalThis as unknown as TimerGlobals;

/** A new `AbortController` (Web standard on every platform the core targets). */
export function newAbortController(): AbortControllerLike {
  return new timers.AbortController();
}

/** Runs `fn` after `ms` milliseconds of real time; returns a function that cancels it. */
export function after(ms: number, fn: () => void): () => void {
  const handle = timers.setTimeout(fn, ms);
  return () => timers.clearTimeout(handle);
}

/** A random UUID (v4) from `crypto.randomUUID`. */
export function randomUuid(): string {
  const f = timers.crypto?.randomUUID;
  if (f === undefined) throw new Error("crypto.randomUUID is not available on this platform");
  return f.call(timers.crypto);
}

/** The part of a fetch `Response` the model adapters read. */
export interface FetchResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> } } | null;
  text(): Promise<string>;
}

/** A body as `fetch`'s Response and a Request give it. */
export type BodyLike = FetchResponseLike["body"];

/** Parts of a body, joined (`size` is their total length). */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The bytes of a body, at most `max`: undefined when it is larger (nothing more is read, and the rest is cancelled). */
export async function readBytes(body: BodyLike | undefined, max: number): Promise<Uint8Array | undefined> {
  if (body === null || body === undefined) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done || r.value === undefined) break;
      size += r.value.length;
      if (size > max) return undefined;
      parts.push(r.value);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return joinBytes(parts, size);
}

/** The part of `fetch` the model adapters use. */
export type FetchLike = (
  url: string,
  init: { readonly method: string; readonly headers: Record<string, string>; readonly body?: string | undefined; readonly signal?: AbortSignalLike; readonly redirect?: "follow" | "manual" | "error" },
) => Promise<FetchResponseLike>;

/** The platform's `fetch`, read when called. */
export function platformFetch(): FetchLike {
  const f = (globalThis as unknown as { fetch?: FetchLike }).fetch;
  if (f === undefined) throw new Error("fetch is not available on this platform");
  return (url, init) => f.call(globalThis, url, init);
}

/** Milliseconds since the epoch of an HTTP date, or NaN. */
export function parseHttpDate(text: string): number {
  return Date.parse(text);
}

/** The parts of a parsed URL the tools read. */
export interface UrlParts {
  readonly href: string;
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  readonly host: string;
  readonly username: string;
  readonly password: string;
}

/** Parses a URL (against `base` when relative) with the platform's WHATWG URL; undefined when it does not parse. */
export function parseUrl(text: string, base?: string): UrlParts | undefined {
  const URLClass = (globalThis as unknown as { URL: new (u: string, b?: string) => UrlParts }).URL;
  try {
    const u = base === undefined ? new URLClass(text) : new URLClass(text, base);
    return { href: u.href, protocol: u.protocol, hostname: u.hostname, port: u.port, host: u.host, username: u.username, password: u.password };
  } catch {
    return undefined;
  }
}
