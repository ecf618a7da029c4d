/**
 * A local OTLP/HTTP (JSON) collector for the export tests: a node:http
 * server that counts each span by its id (a collector dedupes by id), and
 * can be told to refuse (503) or to hold its answers. It answers CORS
 * preflights, so a page can export to it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { asyncHandler } from "./handler.js";

export type CollectorMode = "accept" | "fail" | "hold";

export interface Collector {
  /** The traces endpoint, http://127.0.0.1:<port>/v1/traces. */
  readonly url: string;
  /** Deliveries of each span, by span id. */
  readonly seen: Map<string, number>;
  /** Every request's trace ids, in order (one entry per span). */
  readonly traceIds: string[];
  /** Each span's name, by span id. */
  readonly names: Map<string, string>;
  /** Requests received, by the answer they got (held ones count once answered). */
  readonly answered: { accepted: number; refused: number };
  /** The requests refused, when each came (ms since the epoch) and the trace ids of its spans. */
  readonly refusals: { at: number; traceIds: string[] }[];
  /** The headers of the last export request. */
  lastHeaders: IncomingHttpHeaders | undefined;
  /** accept (200), fail (503), or hold (record the spans, answer nothing until `release`). */
  mode: CollectorMode;
  /** Requests held, not answered yet. */
  held(): number;
  /** Answers the held requests (200); their spans were recorded when they came. */
  release(): void;
  /** The distinct span ids seen, sorted. */
  ids(): string[];
  close(): Promise<void>;
}

export async function startCollector(): Promise<Collector> {
  const holding: (() => void)[] = [];
  const cors = { "access-control-allow-origin": "*", "access-control-allow-methods": "POST" };
  const c: Omit<Collector, "url"> & { url: string } = {
    url: "",
    seen: new Map(),
    traceIds: [],
    names: new Map(),
    answered: { accepted: 0, refused: 0 },
    refusals: [],
    lastHeaders: undefined,
    mode: "accept",
    held: () => holding.length,
    release: () => {
      for (const answer of holding.splice(0)) answer();
    },
    ids: () => [...c.seen.keys()].sort(),
    close: () =>
      new Promise<void>((resolve) => {
        c.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(
    asyncHandler(async (req, res) => {
      // A preflight: every header asked for (an API key's) is allowed.
      if (req.method === "OPTIONS") return void res.writeHead(204, { ...cors, "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "content-type" }).end();
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw) as { resourceSpans: { scopeSpans: { spans: { spanId: string; traceId: string; name: string }[] }[] }[] };
      const spans = body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
      if (c.mode === "fail") {
        c.answered.refused++;
        c.refusals.push({ at: Date.now(), traceIds: [...new Set(spans.map((s) => s.traceId))] });
        return void res.writeHead(503, cors).end();
      }
      c.lastHeaders = req.headers;
      for (const s of spans) {
        c.seen.set(s.spanId, (c.seen.get(s.spanId) ?? 0) + 1);
        c.traceIds.push(s.traceId);
        c.names.set(s.spanId, s.name);
      }
      const answer = (): void => {
        c.answered.accepted++;
        res.writeHead(200, { ...cors, "content-type": "application/json" }).end("{}");
      };
      if (c.mode === "hold") holding.push(answer);
      else answer();
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return c;
}
