/**
 * Random requests to every route of the HTTP app (isoagent/http), for the
 * property that no request gets a 5xx and every refusal carries a code:
 * methods, paths in every route's shape with random segments (real ids,
 * traversal, encodings, overlong, invalid percent-escapes), queries,
 * headers (credentials present, absent and garbage; content types; origins
 * for CSRF; Last-Event-ID, Idempotency-Key) and bodies (random JSON, bodies
 * a route takes with random fields, huge, deep, invalid UTF-8, bundles).
 */

/** What the generator knows of the app under test. */
export interface FuzzTarget {
  readonly origin: string;
  readonly operatorToken: string;
  readonly runToken?: string;
  /** Cookie header values of live sessions (and of ended ones: they must be refused, never fault). */
  readonly cookies: readonly string[];
  readonly runIds: readonly string[];
  readonly approvalIds: readonly string[];
  readonly requestHashes: readonly string[];
  readonly artifacts: readonly string[];
  /** A bundle of one of the runs (JSON lines), to post whole or cut. */
  readonly bundle?: string;
}

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Uint8Array | string;
}

type R = () => number;
const pick = <T>(r: R, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: R, p: number): boolean => r() < p;
const int = (r: R, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const METHODS = ["GET", "GET", "GET", "POST", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "get", "Post"];

/** A path segment: a real id, or something an attacker would try there. */
function segment(r: R, real: readonly string[]): string {
  if (real.length > 0 && chance(r, 0.45)) return encodeURIComponent(pick(r, real));
  return pick(r, [
    () => "run_9",
    () => "..",
    () => "%2e%2e",
    () => "..%2F..%2Fetc%2Fpasswd",
    () => "%2F",
    () => "%00",
    () => "%ZZ",
    () => "%E0%A4%A",
    () => "%ED%A0%80",
    () => "%F0%9F%98%80",
    () => "a".repeat(int(r, 100, 20_000)),
    () => "",
    () => " ",
    () => "%20",
    () => "__proto__",
    () => "constructor",
    () => "apr.1.s1c1.1",
    () => "0".repeat(64),
    () => "f".repeat(63),
    // Any character but a lone surrogate (which has no UTF-8, and no escape: %ED%A0%80 above is its raw bytes).
    () => encodeURIComponent(String.fromCodePoint(chance(r, 0.5) ? int(r, 0, 0xd7ff) : int(r, 0xe000, 0x10ffff))),
    () => Array.from({ length: int(r, 1, 12) }, () => pick(r, "aZ09_.-:~!$&'()*+,;=@%".split(""))).join(""),
  ])();
}

function path(r: R, t: FuzzTarget): string {
  const id = () => segment(r, t.runIds);
  const shapes: (() => string)[] = [
    () => "/",
    () => "/health",
    () => "/login",
    () => "/login.js",
    () => "/console.js",
    () => "/console.css",
    () => "/login/code",
    () => "/logout",
    () => "/mcp",
    () => "/runs",
    () => "/runs/",
    () => "/runs/import",
    () => `/runs/${id()}`,
    () => `/runs/${id()}/trace`,
    () => `/runs/${id()}/verify`,
    () => `/runs/${id()}/artifacts/${segment(r, t.artifacts)}`,
    () => `/runs/${id()}/approvals`,
    () => `/runs/${id()}/approvals/${segment(r, t.approvalIds)}`,
    () => `/runs/${id()}/events`,
    () => `/runs/${id()}/cancel`,
    () => `/runs/${id()}/reconcile`,
    () => `/runs/${id()}/export`,
    () => `/runs/${id()}/move`,
    () => `/runs/${id()}/mirror`,
    () => `/runs/${id()}/${segment(r, [])}`,
    () => `/${segment(r, [])}`,
    () => `/runs/${id()}/events/../../login`,
    () => `//runs//${id()}`,
    () => `/RUNS/${id()}`,
  ];
  return pick(r, shapes)();
}

const QUERY_KEYS = ["from", "status", "limit", "before", "role", "token", "code", "x", "from", "status"];
function queryValue(r: R, t: FuzzTarget): string {
  return pick(r, [
    () => String(int(r, -3, 40)),
    () => String(int(r, 0, 1e9)),
    () => pick(r, ["1.5", "-1", "0", "1e3", "1e400", "NaN", "Infinity", "+1", "0x10", " 1", "9".repeat(40), ""]),
    () => pick(r, ["running", "waiting", "completed", "failed", "cancelled", "running,waiting", "running,,", "nope", Array.from({ length: 200 }, () => "running").join(",")]),
    () => pick(r, ["mirror", "in_transit", "owner", ""]),
    () => `${int(r, 0, 1e13)}:${pick(r, [...t.runIds, "run_x", "", "a".repeat(300)])}`,
    () => pick(r, ["%ZZ", "%00", "%E0%A4%A", "%F0%9F%98%80", "&&", "=="]),
    () => t.operatorToken,
  ])();
}
function query(r: R, t: FuzzTarget): string {
  if (chance(r, 0.4)) return "";
  const n = int(r, 1, 4);
  const parts: string[] = [];
  for (let k = 0; k < n; k++) {
    const v = queryValue(r, t);
    parts.push(`${pick(r, QUERY_KEYS)}=${/%|&|=/.test(v) && chance(r, 0.5) ? v : encodeURIComponent(v)}`);
  }
  return `?${parts.join("&")}`;
}

function headers(r: R, t: FuzzTarget): Record<string, string> {
  const h: Record<string, string> = {};
  const auth = pick(r, ["none", "none", "operator", "operator", "operator", "run", "garbage", "cookie", "cookie", "both"]);
  if (auth === "operator" || auth === "both") h["authorization"] = `Bearer ${t.operatorToken}`;
  if (auth === "run" && t.runToken !== undefined) h["authorization"] = `Bearer ${t.runToken}`;
  if (auth === "garbage")
    h["authorization"] = pick(r, ["Bearer ", "Bearer x", `Bearer ${t.operatorToken}x`, `Basic ${t.operatorToken}`, "bearer " + t.operatorToken, "Bearer \u00ff", `Bearer ${"a".repeat(5000)}`]);
  if ((auth === "cookie" || auth === "both") && t.cookies.length > 0) h["cookie"] = pick(r, t.cookies);
  if (auth === "garbage" && chance(r, 0.5))
    h["cookie"] = pick(r, [
      "isoagent_session=",
      "isoagent_session=v1.1.2.3",
      `isoagent_session=v1.99999999999999.${"0".repeat(32)}.${"0".repeat(64)}`,
      "isoagent_session=%ZZ",
      `isoagent_session=${t.operatorToken}`,
      "a=b; isoagent_session=x; isoagent_session=y",
    ]);
  if (chance(r, 0.7))
    h["content-type"] = pick(r, [
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "application/x-ndjson",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "",
      "application/json;;;",
      "\u00e9",
    ]);
  const origin = pick(r, ["own", "own", "none", "other", "null", "sub"]);
  if (origin === "own") h["origin"] = t.origin;
  if (origin === "other") h["origin"] = "https://evil.example";
  if (origin === "null") h["origin"] = "null";
  if (origin === "sub") h["origin"] = t.origin.replace("://", "://sub.");
  if (chance(r, 0.2)) h["sec-fetch-site"] = pick(r, ["same-origin", "same-site", "cross-site", "none"]);
  if (chance(r, 0.3)) h["accept"] = pick(r, ["text/event-stream", "application/json", "*/*"]);
  if (chance(r, 0.15)) h["last-event-id"] = pick(r, ["0", "3", "-1", "1.5", "abc", "99999999", "9".repeat(30)]);
  if (chance(r, 0.15)) h["idempotency-key"] = pick(r, ["k1", "a".repeat(300), "é", "", " spaced ", "key-" + int(r, 0, 5)]);
  if (chance(r, 0.05)) h["access-control-request-method"] = "POST";
  return h;
}

/** Random JSON, bounded. */
function json(r: R, depth = 0): unknown {
  const kind = depth > 4 ? int(r, 0, 3) : int(r, 0, 6);
  if (kind === 0) return null;
  if (kind === 1) return chance(r, 0.5);
  if (kind === 2) return pick(r, [0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, int(r, -1e6, 1e6)]);
  if (kind === 3) return pick(r, ["", "x", "approve", "deny", "run_again", "record_result", "mark_unknown", "\u202e", "a".repeat(int(r, 0, 5000)), "0".repeat(64)]);
  if (kind === 4) return Array.from({ length: int(r, 0, 4) }, () => json(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let k = int(r, 0, 4); k > 0; k--)
    o[pick(r, ["task", "decision", "requestHash", "by", "reason", "answer", "approvalId", "resolution", "content", "action", "to", "events", "artifacts", "token", "code", "__proto__", "x"])] = json(
      r,
      depth + 1,
    );
  return o;
}

/** A body a route takes, with some fields random: reaches past the schema into the backend. */
function plausible(r: R, t: FuzzTarget): unknown {
  return pick(r, [
    () => ({ task: json(r) }),
    () => ({
      decision: pick(r, ["approve", "deny"]),
      requestHash: pick(r, [...t.requestHashes, "0".repeat(64)]),
      ...(chance(r, 0.5) ? { by: "fuzz", reason: "r" } : {}),
      ...(chance(r, 0.3) ? { answer: "yes" } : {}),
    }),
    () => ({
      approvalId: pick(r, [...t.approvalIds, "apr.9.s9c9.9", "x"]),
      requestHash: pick(r, [...t.requestHashes, "0".repeat(64)]),
      resolution: pick(r, ["run_again", "record_result", "record_failure", "mark_unknown"]),
      ...(chance(r, 0.5) ? { content: json(r) } : {}),
    }),
    () => (chance(r, 0.5) ? {} : { by: "fuzz", reason: "because" }),
    () => ({
      action: pick(r, ["accept", "release", "abandon", "steal"]),
      ...(chance(r, 0.5) ? { to: pick(r, ["edge", "tab:1", "", "x".repeat(200)]) } : {}),
      ...(chance(r, 0.4) ? { events: [json(r)], artifacts: [] } : {}),
    }),
    () => (chance(r, 0.5) ? { token: pick(r, [t.operatorToken, "nope", ""]) } : { code: pick(r, ["c1.1.2.3", `c1.99999999999999.${"a".repeat(32)}.${"b".repeat(64)}`]) }),
  ])();
}

function body(r: R, t: FuzzTarget): Uint8Array | string | undefined {
  return pick(r, [
    () => undefined,
    () => "",
    () => JSON.stringify(json(r)),
    () => JSON.stringify(plausible(r, t)),
    () => JSON.stringify(plausible(r, t)),
    () => JSON.stringify(plausible(r, t)),
    () => `{"task":"${"x".repeat(int(r, 1_100_000, 1_300_000))}"}`,
    () => "[".repeat(int(r, 300, 100_000)) + "]".repeat(chance(r, 0.5) ? 0 : 10),
    () => new Uint8Array([0x7b, 0x22, 0x74, 0x61, 0x73, 0x6b, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    () => '{"task":"a","task":"b"}',
    () => '{"task":"\\ud800"}',
    () => '{"task":1e999}',
    () => "{,}",
    () => (t.bundle === undefined ? "{}" : chance(r, 0.5) ? t.bundle : t.bundle.slice(0, int(r, 0, t.bundle.length))),
    () => (t.bundle === undefined ? "{}" : t.bundle.replace(/"seq":\d+/, `"seq":${int(r, 0, 99)}`)),
    () => "not json\n{}\n",
  ])();
}

const NDJSON = "application/x-ndjson";

/**
 * A request a client that knows the API would send (a route's method, a
 * real id, a credential that holds, the content type, a body the route
 * takes with random fields), so that the backends are reached, not only
 * the refusals in front of them.
 */
function wellFormed(r: R, t: FuzzTarget): FuzzRequest {
  const id = () => encodeURIComponent(pick(r, [...t.runIds, "run_unknown"]));
  const who = pick(r, ["operator", "operator", "operator", "run", "cookie", "cookie"]);
  const auth: Record<string, string> =
    who === "run" && t.runToken !== undefined
      ? { authorization: `Bearer ${t.runToken}` }
      : who === "cookie" && t.cookies.length > 0
        ? { cookie: pick(r, t.cookies), origin: t.origin }
        : { authorization: `Bearer ${t.operatorToken}` };
  const post = (path: string, body: unknown, type = "application/json"): FuzzRequest => ({
    method: "POST",
    path,
    headers: { ...auth, "content-type": type },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const get = (path: string, extra: Record<string, string> = {}): FuzzRequest => ({ method: "GET", path, headers: { ...auth, ...extra } });
  const from = () => pick(r, ["", `?from=${int(r, 0, 40)}`, `?from=${queryValue(r, t)}`]);
  const bundle = () => (t.bundle === undefined ? "" : chance(r, 0.6) ? t.bundle : t.bundle.replace(/"seq":\d+/, `"seq":${int(r, 0, 40)}`).slice(0, int(r, 0, t.bundle.length)));
  return pick(r, [
    () => post("/runs", { task: json(r) }),
    () => ({ ...post("/runs", { task: json(r) }), headers: { ...auth, "content-type": "application/json", "idempotency-key": pick(r, ["k1", "k2", "a".repeat(256), "\u00e9"]) } }),
    () =>
      post(`/runs/${id()}/approvals/${encodeURIComponent(pick(r, [...t.approvalIds, "apr.9.s9c9.9"]))}`, {
        decision: pick(r, ["approve", "deny"]),
        requestHash: pick(r, [...t.requestHashes, "0".repeat(64)]),
        ...(chance(r, 0.3) ? { answer: "yes", by: "fuzz" } : {}),
      }),
    () => post(`/runs/${id()}/cancel`, chance(r, 0.5) ? {} : { by: "fuzz", reason: "r" }),
    () =>
      post(`/runs/${id()}/reconcile`, {
        approvalId: pick(r, [...t.approvalIds, "apr.9.s9c9.9"]),
        requestHash: pick(r, [...t.requestHashes, "0".repeat(64)]),
        resolution: pick(r, ["run_again", "record_result", "record_failure", "mark_unknown"]),
        ...(chance(r, 0.5) ? { content: json(r) } : {}),
      }),
    () =>
      post(`/runs/${id()}/move`, {
        action: pick(r, ["accept", "release", "abandon"]),
        ...(chance(r, 0.6) ? { to: pick(r, ["edge", "tab:1", "elsewhere"]) } : {}),
        ...(chance(r, 0.4) ? { events: [json(r)], artifacts: [] } : {}),
      }),
    () => post(`/runs/import${pick(r, ["", "?role=mirror", "?role=in_transit", "?role=owner"])}`, bundle(), NDJSON),
    () => post(`/runs/${id()}/mirror`, bundle(), NDJSON),
    () => get(`/runs/${id()}/events${from()}`, chance(r, 0.4) ? { accept: "text/event-stream", ...(chance(r, 0.3) ? { "last-event-id": String(int(r, -1, 40)) } : {}) } : {}),
    () => get(`/runs/${id()}/export${from()}`),
    () => get(`/runs${query(r, t)}`),
    () => get(`/runs/${id()}${pick(r, ["", "/trace", "/verify", "/approvals"])}`),
    () => get(`/runs/${id()}/artifacts/${pick(r, [...t.artifacts, "0".repeat(64)])}`),
    () => post("/login/code", ""),
    () => ({ method: "POST", path: "/login", headers: { "content-type": "application/json", origin: t.origin }, body: JSON.stringify(plausible(r, t)) }),
    () => post("/logout", ""),
    () => ({
      ...post("/mcp", {
        jsonrpc: "2.0",
        id: int(r, 0, 9),
        method: pick(r, ["initialize", "tools/list", "tools/call", "ping", "nope"]),
        params: pick(r, [
          {},
          { name: pick(r, ["runs_list", "run_get", "run_create", "nope"]), arguments: json(r) },
          { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
        ]),
      }),
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
    }),
  ])();
}

/** One random request (a well-formed one 40% of the time); GET and HEAD never carry a body (fetch refuses one). */
export function randomRequest(r: R, t: FuzzTarget): FuzzRequest {
  if (chance(r, 0.4)) return wellFormed(r, t);
  const method = pick(r, METHODS);
  const b = body(r, t);
  const bodyless = /^(get|head)$/i.test(method);
  return { method, path: path(r, t) + query(r, t), headers: headers(r, t), ...(bodyless || b === undefined ? {} : { body: b }) };
}

/**
 * What is wrong with an answer, or undefined: a 5xx, or a 4xx without a
 * code (`{ error: { code } }`; a JSON-RPC error's numeric code at /mcp).
 */
export async function judge(req: FuzzRequest, res: Response): Promise<string | undefined> {
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream") || type.includes("x-ndjson") || type.includes("octet-stream")) {
    await res.body?.cancel();
    return res.status >= 500 ? `${res.status} streamed` : undefined;
  }
  const text = await res.text();
  if (res.status >= 500) return `${res.status}: ${text.slice(0, 300)}`;
  if (res.status < 400 || req.method.toUpperCase() === "HEAD") return undefined;
  let parsed: { error?: { code?: unknown } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return `${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`;
  }
  const code = parsed?.error?.code;
  if (typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code)) return undefined;
  if (typeof code === "number" && req.path.startsWith("/mcp")) return undefined;
  return `${res.status} without a code: ${text.slice(0, 200)}`;
}

/** A request as a line to reproduce it by. */
export function describeRequest(req: FuzzRequest): string {
  const b =
    req.body === undefined
      ? ""
      : typeof req.body === "string"
        ? ` body ${JSON.stringify(req.body.slice(0, 120))}${req.body.length > 120 ? `… (${req.body.length} chars)` : ""}`
        : ` body bytes ${Array.from(req.body.slice(0, 24)).join(",")}`;
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers).slice(0, 400)}${b}`;
}
