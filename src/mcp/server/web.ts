/**
 * The parts of the Fetch API's Request and Response the MCP server uses,
 * typed here (the core compiles against ES2022 alone) and read from
 * `globalThis` when called.
 */
import { readBytes, type BodyLike } from "../../web.js";

/** The part of a `Request` the server reads. */
export interface RequestLike {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** A `ReadableStream` of bytes, or null. */
  readonly body: unknown;
}

/** A `Response` (opaque here). */
export type ResponseLike = { readonly status: number; readonly headers: { get(name: string): string | null } };

/** A stream the server writes an SSE body into. */
export interface StreamWriter {
  write(text: string): void;
  close(): void;
  /** Set when the client went away. */
  readonly cancelled: boolean;
}

interface Globals {
  Response: new (body: unknown, init: { status: number; headers: Record<string, string> }) => ResponseLike;
  ReadableStream: new (source: { start(c: { enqueue(chunk: Uint8Array): void; close(): void }): void; cancel(): void }) => unknown;
  TextEncoder: new () => { encode(text: string): Uint8Array };
}

const g = (): Globals => globalThis as unknown as Globals;

/** A response with a fixed body. */
export function respond(status: number, body: string | null, headers: Record<string, string> = {}): ResponseLike {
  return new (g().Response)(body, { status, headers: { "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers } });
}

/** A response whose body is written later (an SSE stream). */
export function streaming(status: number, headers: Record<string, string>): { response: ResponseLike; writer: StreamWriter } {
  const { ReadableStream, TextEncoder } = g();
  const encoder = new TextEncoder();
  let controller: { enqueue(chunk: Uint8Array): void; close(): void } | undefined;
  const queued: string[] = [];
  let closed = false;
  const writer = {
    cancelled: false,
    write(text: string) {
      if (closed || writer.cancelled) return;
      if (controller === undefined) queued.push(text);
      else controller.enqueue(encoder.encode(text));
    },
    close() {
      if (closed) return;
      closed = true;
      if (controller !== undefined && !writer.cancelled) controller.close();
    },
  };
  const body = new ReadableStream({
    start(c) {
      controller = c;
      for (const t of queued.splice(0)) c.enqueue(encoder.encode(t));
      if (closed) c.close();
    },
    cancel() {
      writer.cancelled = true;
    },
  });
  return { response: new (g().Response)(body, { status, headers: { "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers } }), writer };
}

/** A request's body, at most `max` bytes (undefined above it). */
export async function readBody(request: RequestLike, max: number): Promise<Uint8Array | undefined> {
  return readBytes(request.body as BodyLike | undefined, max);
}
