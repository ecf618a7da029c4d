/**
 * How a model adapter reaches its provider: a request that is a pure
 * function of the run's journal (path and JSON body; no key, no time, no
 * fresh id), sent by a transport that adds the endpoint and the credentials.
 * Recording and replay swap the transport, never the request.
 */
import { IsoagentError } from "../../errors.js";
import type { JsonValue } from "../../json/index.js";
import { platformFetch, utf8StreamDecoder, type AbortSignalLike, type FetchLike } from "../../web.js";

/** What an adapter asks of its provider. */
export interface ModelRequest {
  /** Relative to the provider's base URL, such as "/responses". */
  readonly path: string;
  readonly body: JsonValue;
  /**
   * Exactly `JSON.stringify(body)`, when the adapter built it incrementally
   * (what the transport sends). Never part of what is hashed or recorded.
   */
  readonly text?: string;
}

/** What came back: the status, the headers an adapter reads, and the body as it streams. */
export interface ModelResponse {
  readonly status: number;
  header(name: string): string | null;
  readonly body: AsyncIterable<Uint8Array>;
}

/** Sends a request; throws {@link NetworkError} when nothing came back. */
export type Transport = (request: ModelRequest, context: { readonly signal: AbortSignalLike }) => Promise<ModelResponse>;

/**
 * A provider's error reported inside a 2xx stream (an `error` event), with
 * the HTTP status it stands for, so it is classified by the same table as
 * an HTTP error (see `statusOfCode`). Code `MODEL_STREAM_ERROR`; the
 * provider's own code is `providerCode`.
 */
export class StreamError extends IsoagentError {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly providerCode = "",
  ) {
    super("MODEL_STREAM_ERROR", message);
    this.name = "StreamError";
  }
}

/** The request never got an HTTP answer (DNS, connection refused, reset, offline), or the answer's body was cut. Code `NETWORK_ERROR`. */
export class NetworkError extends IsoagentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("NETWORK_ERROR", message, options);
    this.name = "NetworkError";
  }
}

/**
 * A transport over `fetch`: POSTs the JSON body to `baseUrl + path` with the
 * given headers (where the credentials go; they never leave this closure).
 */
export function httpTransport(options: { readonly baseUrl: string; readonly headers: Readonly<Record<string, string>>; readonly fetch?: FetchLike | undefined }): Transport {
  const base = options.baseUrl.replace(/\/+$/, "");
  return async (request, { signal }) => {
    const fetch = options.fetch ?? platformFetch();
    let res;
    try {
      res = await fetch(base + request.path, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers },
        body: request.text ?? JSON.stringify(request.body),
        signal,
      });
    } catch (e) {
      if (signal.aborted) throw e;
      throw new NetworkError("the request got no answer", { cause: e });
    }
    const body = res.body;
    return {
      status: res.status,
      header: (name) => res.headers.get(name),
      body: {
        async *[Symbol.asyncIterator]() {
          if (body === null) return;
          const reader = body.getReader();
          try {
            for (;;) {
              let r;
              try {
                r = await reader.read();
              } catch (e) {
                if (signal.aborted) throw e;
                throw new NetworkError("the answer was cut", { cause: e });
              }
              if (r.done) return;
              if (r.value !== undefined) yield r.value;
            }
          } finally {
            void reader.cancel().catch(() => {});
          }
        },
      },
    };
  };
}

/** Reads a whole body as text (invalid UTF-8 becomes U+FFFD). */
export async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decode = utf8StreamDecoder();
  let text = "";
  for await (const chunk of body) text += decode(chunk);
  return text + decode();
}
