/**
 * Reading a bundle: every line through the strict JSON boundary, in the
 * format's order, under a byte cap counted as the bytes arrive; every
 * event's hash and link, every artifact's SHA-256, the trailer's counts.
 * Nothing here writes: a bundle is verified whole before anything of it is.
 */
import { sha256Hex, tryParseJson, type JsonValue } from "../json/index.js";
import { utf8Length } from "../json/utf8.js";
import { eventHash, JOURNAL_VERSION, type JournalEvent, type RunCreated } from "../journal/index.js";
import { fromBase64 } from "./base64.js";
import { MoveError } from "./errors.js";
import { asSignature, type BundleSignature } from "./trust.js";
import { artifactNames, BUNDLE_FORMAT, BUNDLE_VERSION, DEFAULT_MAX_ARTIFACT_BYTES, DEFAULT_MAX_BUNDLE_BYTES, type BundleHeader, type BundleWorkspace } from "./format.js";

/** Anything a bundle can be read from: its text, its bytes, chunks of either, or a byte stream (a request's body). */
export type BundleInput =
  | string
  | Uint8Array
  | AsyncIterable<string | Uint8Array>
  | { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>; cancel(reason?: unknown): Promise<void>; releaseLock?(): void } };

/** Caps on what a bundle may hold. */
export interface BundleLimits {
  /** Most bytes a bundle may have (default 256 MiB): past it, BUNDLE_TOO_LARGE, and reading stops. */
  readonly maxBytes?: number;
  /** Most bytes one artifact may have (default 64 MiB). */
  readonly maxArtifactBytes?: number;
}

/** A bundle read and verified in itself (not yet against any store). */
export interface VerifiedBundle {
  readonly header: BundleHeader;
  readonly events: readonly JournalEvent[];
  readonly artifacts: ReadonlyMap<string, Uint8Array>;
  readonly workspace: BundleWorkspace | undefined;
  /** The bundle's size in bytes. */
  readonly bytes: number;
  /** Its trailer's signature, when it has one: checked for shape here, verified by the importer against the keys it trusts. */
  readonly signature?: BundleSignature;
}

const HEX64 = /^[0-9a-f]{64}$/;
const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whole lines of a bundle, with the running byte count checked against the cap. */
async function* linesOf(input: BundleInput, maxBytes: number, counter: { total: number }): AsyncGenerator<string | Uint8Array, void, undefined> {
  const count = (n: number): void => {
    counter.total += n;
    if (counter.total > maxBytes) throw new MoveError("BUNDLE_TOO_LARGE", `the bundle is larger than ${maxBytes} bytes, the import cap; nothing was written`);
  };
  if (typeof input === "string") {
    count(utf8Length(input, input.length));
    yield* splitText(input);
    return;
  }
  if (input instanceof Uint8Array) {
    count(input.length);
    yield* splitBytes(input);
    return;
  }
  let text = "";
  let bytes: Uint8Array = new Uint8Array(0);
  const onChunk = function* (chunk: string | Uint8Array): Generator<string | Uint8Array> {
    if (typeof chunk === "string") {
      count(utf8Length(chunk, chunk.length));
      text += chunk;
      const cut = text.lastIndexOf("\n");
      if (cut >= 0) {
        yield* splitText(text.slice(0, cut + 1));
        text = text.slice(cut + 1);
      }
      return;
    }
    count(chunk.length);
    const cut = chunk.lastIndexOf(10);
    if (cut < 0) {
      bytes = concat(bytes, chunk);
      return;
    }
    yield* splitBytes(concat(bytes, chunk.subarray(0, cut + 1)));
    bytes = chunk.slice(cut + 1);
  };
  if ("getReader" in input) {
    const reader = input.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value !== undefined) yield* onChunk(value);
      }
    } catch (e) {
      await reader.cancel(e).catch(() => {});
      throw e;
    } finally {
      reader.releaseLock?.();
    }
  } else {
    for await (const chunk of input) yield* onChunk(chunk);
  }
  if (text !== "") yield text;
  if (bytes.length > 0) yield bytes;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function* splitText(text: string): Generator<string> {
  let start = 0;
  for (let k = text.indexOf("\n"); k >= 0; k = text.indexOf("\n", start)) {
    yield text.slice(start, k);
    start = k + 1;
  }
  if (start < text.length) yield text.slice(start);
}

function* splitBytes(bytes: Uint8Array): Generator<Uint8Array> {
  let start = 0;
  for (let k = bytes.indexOf(10); k >= 0; k = bytes.indexOf(10, start)) {
    yield bytes.subarray(start, k);
    start = k + 1;
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

/**
 * The fencing rule over a journal's events, from what came before them
 * (`maxToken`: the largest lease token or epoch so far; `floor`: the epoch
 * of the last move): a move's epoch is above every token before it, and
 * every token after a move is above its epoch. MOVE_FENCED otherwise.
 */
export function checkFencing(events: readonly JournalEvent[], start: { maxToken: number; floor: number } = { maxToken: 0, floor: 0 }): { maxToken: number; floor: number } {
  let { maxToken, floor } = start;
  for (const e of events) {
    if (e.type === "run.resumed") {
      if (!(e.token > floor))
        throw new MoveError("MOVE_FENCED", `event ${e.seq} (run.resumed) carries lease token ${e.token}, not above epoch ${floor} of the move before it: a driver the move fenced off wrote it`);
      if (e.token > maxToken) maxToken = e.token;
    } else if (e.type === "run.moved") {
      if (!(Number.isSafeInteger(e.epoch) && e.epoch > maxToken))
        throw new MoveError("MOVE_FENCED", `event ${e.seq} (run.moved) has epoch ${e.epoch}, not above lease token ${maxToken} issued before it`);
      if (typeof e.to !== "string" || e.to === "" || typeof e.from !== "string") throw new MoveError("BUNDLE_INVALID", `event ${e.seq} (run.moved) must name the places it moved from and to`);
      maxToken = floor = e.epoch;
    }
  }
  return { maxToken, floor };
}

function header(line: number, v: JsonValue): BundleHeader {
  const h = isObject(v) ? v["bundle"] : undefined;
  if (!isObject(h)) throw new MoveError("BUNDLE_INVALID", `line ${line} is not a bundle header: a bundle starts with {"bundle": {...}}`);
  if (h["format"] !== BUNDLE_FORMAT) throw new MoveError("BUNDLE_VERSION", `the bundle's format is ${JSON.stringify(h["format"])}, not ${JSON.stringify(BUNDLE_FORMAT)}`);
  if (h["version"] !== BUNDLE_VERSION) throw new MoveError("BUNDLE_VERSION", `the bundle is version ${JSON.stringify(h["version"])} of ${BUNDLE_FORMAT}; this code reads version ${BUNDLE_VERSION}`);
  const int = (k: string, min: number): number => {
    const n = h[k];
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min) throw new MoveError("BUNDLE_INVALID", `the bundle header's ${k} must be a whole number from ${min}`);
    return n;
  };
  const from = int("from", 1);
  const to = int("to", from - 1);
  const artifacts = int("artifacts", 0);
  const tools = h["tools"];
  if (typeof h["runId"] !== "string" || h["runId"] === "" || typeof h["prev"] !== "string" || typeof h["head"] !== "string" || typeof h["workspace"] !== "boolean") {
    throw new MoveError("BUNDLE_INVALID", "the bundle header must name its run, its first event's previous hash, its head and whether it carries a workspace");
  }
  if (!Array.isArray(tools) || !tools.every((t) => isObject(t) && typeof t["name"] === "string" && typeof t["specHash"] === "string")) {
    throw new MoveError("BUNDLE_INVALID", "the bundle header's tools must be a list of {name, specHash}");
  }
  if ((from === 1) !== (h["prev"] === "")) throw new MoveError("BUNDLE_INVALID", "the bundle header's prev is empty exactly when the bundle starts at event 1");
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    runId: h["runId"],
    from,
    to,
    prev: h["prev"],
    head: h["head"],
    tools: tools as unknown as BundleHeader["tools"],
    artifacts,
    workspace: h["workspace"],
  };
}

function asEvent(line: number, v: JsonValue): JournalEvent {
  if (
    !isObject(v) ||
    typeof v["seq"] !== "number" ||
    typeof v["type"] !== "string" ||
    typeof v["hash"] !== "string" ||
    typeof v["prev"] !== "string" ||
    typeof v["at"] !== "number" ||
    !(Number.isInteger(v["v"]) && (v["v"] as number) >= 1 && (v["v"] as number) <= JOURNAL_VERSION)
  ) {
    throw new MoveError("BUNDLE_INVALID", `line ${line} is not a journal event (v, seq, type, at, prev, hash)`);
  }
  return v as unknown as JournalEvent;
}

function asWorkspace(line: number, v: JsonValue): BundleWorkspace {
  const ok =
    isObject(v) &&
    Array.isArray(v["files"]) &&
    v["files"].every((f) => isObject(f) && typeof f["path"] === "string" && typeof f["sha256"] === "string" && HEX64.test(f["sha256"]) && typeof f["size"] === "number") &&
    Array.isArray(v["receipts"]) &&
    v["receipts"].every((r) => isObject(r) && typeof r["key"] === "string" && typeof r["result"] === "string");
  if (!ok) throw new MoveError("BUNDLE_INVALID", `line ${line} is not a workspace ({files: [{path, sha256, size}], receipts: [{key, result}]})`);
  return v as unknown as BundleWorkspace;
}

const SECTIONS = ["bundle", "event", "artifact", "workspace", "end"] as const;

/**
 * Reads and verifies a bundle in itself: its header, format and version;
 * its events in order, each hash and link, from the header's `prev`;
 * fencing (see {@link checkFencing}) within it; its artifacts, each
 * SHA-256 and size, exactly those its events and workspace name; its
 * trailer, and its signature's shape (not who made it: see importVerified).
 * Typed errors: BUNDLE_INVALID, BUNDLE_VERSION, BUNDLE_TRUNCATED,
 * BUNDLE_REORDERED, BUNDLE_TAMPERED, BUNDLE_ARTIFACT_MISSING,
 * BUNDLE_TOO_LARGE, BUNDLE_SIGNATURE_INVALID, MOVE_FENCED.
 */
export async function readBundle(input: BundleInput, limits: BundleLimits = {}): Promise<VerifiedBundle> {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BUNDLE_BYTES;
  const maxArtifact = limits.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
  let h: BundleHeader | undefined;
  const events: JournalEvent[] = [];
  const artifacts = new Map<string, Uint8Array>();
  let workspace: BundleWorkspace | undefined;
  let end: Record<string, JsonValue> | undefined;
  let section = -1;
  let line = 0;
  const counter = { total: 0 };
  let seq = 0;
  let prev = "";
  let lastSha = "";
  for await (const raw of linesOf(input, maxBytes, counter)) {
    line++;
    if (raw.length === 0) throw new MoveError("BUNDLE_INVALID", `line ${line} is empty`);
    if (end !== undefined) throw new MoveError("BUNDLE_INVALID", `line ${line} follows the bundle's end line`);
    const parsed = tryParseJson(raw);
    if (!parsed.ok) throw new MoveError("BUNDLE_INVALID", `line ${line} is not strict JSON: ${parsed.error.message}`);
    const v = parsed.value;
    const keys = isObject(v) ? Object.keys(v) : [];
    const kind = SECTIONS.indexOf(keys[0] as (typeof SECTIONS)[number]);
    if (keys.length !== 1 || kind < 0) throw new MoveError("BUNDLE_INVALID", `line ${line} is not a bundle line: one of ${SECTIONS.map((s) => `{"${s}": ...}`).join(", ")}`);
    const value = (v as Record<string, JsonValue>)[keys[0]!]!;
    if (h === undefined) {
      h = header(line, v);
      seq = h.from - 1;
      prev = h.prev;
      section = 0;
      continue;
    }
    if (kind === 0) throw new MoveError("BUNDLE_REORDERED", `line ${line}: a second header`);
    if (kind < section) throw new MoveError("BUNDLE_REORDERED", `line ${line}: ${a(SECTIONS[kind]!)} line after the ${SECTIONS[section]} lines`);
    section = kind;
    if (kind === 1) {
      const e = asEvent(line, value);
      if (e.seq !== seq + 1) throw new MoveError("BUNDLE_REORDERED", `line ${line}: event ${e.seq} comes where event ${seq + 1} belongs`);
      if (e.prev !== prev) throw new MoveError("BUNDLE_TAMPERED", `event ${e.seq} does not link to the hash of event ${seq}`);
      const { hash, ...rest } = e;
      if (eventHash(rest) !== hash) throw new MoveError("BUNDLE_TAMPERED", `event ${e.seq} does not match its hash`);
      if ((e.type === "run.created") !== (e.seq === 1)) throw new MoveError("BUNDLE_INVALID", `event ${e.seq} is a ${e.type}: run.created is event 1, and only it`);
      if (e.type === "run.created" && e.runId !== h.runId) throw new MoveError("BUNDLE_TAMPERED", `event 1 creates run ${e.runId}, not the header's ${h.runId}`);
      events.push(e);
      seq = e.seq;
      prev = hash;
    } else if (kind === 2) {
      const art = isObject(value) ? value : {};
      const sha = art["sha256"];
      const size = art["size"];
      const b64 = art["base64"];
      if (typeof sha !== "string" || !HEX64.test(sha) || typeof size !== "number" || !Number.isSafeInteger(size) || size < 0 || typeof b64 !== "string") {
        throw new MoveError("BUNDLE_INVALID", `line ${line} is not an artifact ({sha256, size, base64})`);
      }
      if (sha <= lastSha)
        throw new MoveError(
          sha === lastSha ? "BUNDLE_INVALID" : "BUNDLE_REORDERED",
          sha === lastSha ? `artifact ${sha} comes twice` : `line ${line}: artifact ${sha} is out of order (artifacts are sorted by SHA-256)`,
        );
      lastSha = sha;
      if (size > maxArtifact || (b64.length / 4) * 3 > maxArtifact + 2)
        throw new MoveError("BUNDLE_TOO_LARGE", `artifact ${sha} is ${size} bytes, above the cap of ${maxArtifact} bytes per artifact; nothing was written`);
      const data = fromBase64(b64);
      if (data === undefined) throw new MoveError("BUNDLE_INVALID", `artifact ${sha}'s bytes are not canonical base64`);
      if (data.length !== size || (await sha256Hex(data)) !== sha) throw new MoveError("BUNDLE_TAMPERED", `artifact ${sha} does not match its SHA-256 and size`);
      artifacts.set(sha, data);
    } else if (kind === 3) {
      if (workspace !== undefined) throw new MoveError("BUNDLE_INVALID", `line ${line}: a second workspace`);
      workspace = asWorkspace(line, value);
    } else {
      end = isObject(value) ? value : {};
    }
  }
  if (h === undefined) throw new MoveError("BUNDLE_TRUNCATED", "the bundle is empty: it has no header");
  if (end === undefined) throw new MoveError("BUNDLE_TRUNCATED", `the bundle ends at line ${line} without its end line: it was cut short`);
  const expected = h.to - h.from + 1;
  if (events.length !== expected || end["events"] !== events.length) throw new MoveError("BUNDLE_TRUNCATED", `the bundle holds ${events.length} events of the ${expected} its header announces`);
  if (artifacts.size !== h.artifacts || end["artifacts"] !== artifacts.size)
    throw new MoveError("BUNDLE_TRUNCATED", `the bundle holds ${artifacts.size} artifacts of the ${h.artifacts} its header announces`);
  if (prev !== h.head || end["head"] !== h.head) throw new MoveError("BUNDLE_TAMPERED", `the bundle's head ${h.head} is not the hash of its last event`);
  if (workspace === undefined && h.workspace) throw new MoveError("BUNDLE_TRUNCATED", "the bundle's header announces a workspace it does not carry");
  if (workspace !== undefined && !h.workspace) throw new MoveError("BUNDLE_INVALID", "the bundle carries a workspace its header does not announce");
  const first = events[0];
  if (first?.type === "run.created" && JSON.stringify((first as RunCreated).tools) !== JSON.stringify(h.tools)) {
    throw new MoveError("BUNDLE_TAMPERED", "the bundle header's tools are not those its run.created records");
  }
  checkFencing(events);
  // Exactly the artifacts the events and the workspace name.
  const names = artifactNames(events);
  for (const f of workspace?.files ?? []) if (!names.has(f.sha256)) names.set(f.sha256, 0);
  for (const [sha, at] of names) {
    if (!artifacts.has(sha)) {
      throw new MoveError(
        "BUNDLE_ARTIFACT_MISSING",
        at === 0 ? `the workspace names a file with SHA-256 ${sha}, which the bundle does not carry` : `event ${at} names artifact ${sha}, which the bundle does not carry`,
      );
    }
  }
  for (const sha of artifacts.keys()) if (!names.has(sha)) throw new MoveError("BUNDLE_INVALID", `artifact ${sha} is named by no event and no workspace file`);
  for (const f of workspace?.files ?? []) {
    if (artifacts.get(f.sha256)!.length !== f.size) throw new MoveError("BUNDLE_TAMPERED", `workspace file ${JSON.stringify(f.path)} is not ${f.size} bytes`);
  }
  const signature = end["signature"] === undefined ? undefined : asSignature(end["signature"], h.to);
  return { header: h, events, artifacts, workspace, bytes: counter.total, ...(signature === undefined ? {} : { signature }) };
}

const a = (section: string): string => (section === "artifact" || section === "end" || section === "event" ? `an ${section}` : `a ${section}`);
