/**
 * Exporting a run as a bundle (see format.ts), streamed: lines are made as
 * they are read, a few hundred at a time, so a 100,000-event run never
 * becomes one string.
 */
import type { RunId } from "../ids.js";
import type { JournalEvent, RunCreated } from "../journal/index.js";
import type { Store } from "../store/index.js";
import type { Workspace } from "../workspace.js";
import { encodeUtf8 } from "../web.js";
import { toBase64 } from "./base64.js";
import { MoveError } from "./errors.js";
import { artifactNames, BUNDLE_FORMAT, BUNDLE_VERSION, type BundleHeader, type BundleWorkspace } from "./format.js";
import { sha256Hex } from "../json/index.js";
import { signVouch, type BundleSignature, type SigningKey } from "./trust.js";

/** Options of {@link exportRun}. */
export interface ExportOptions {
  /** The first event to export (default 1): a tail, for a copy that has the events before it. */
  readonly fromSeq?: number;
  /** The run's workspace: its files and the receipts of the run's calls go with the run. */
  readonly workspace?: Workspace;
  /**
   * This place's signing key (see {@link signingKey}): the trailer then
   * carries its signature over what this place vouches for, the whole run
   * when it owns it, else as far as its copy is vouched for (its custody's
   * `vouched`), and nothing when that is none of the bundle.
   */
  readonly signing?: SigningKey;
}

/** Lines per chunk the export yields. */
const LINES_PER_CHUNK = 256;

/**
 * The run as a bundle: chunks of whole JSON lines (each ending in "\n").
 * The journal is read once, when the export starts, so the bundle is one
 * consistent prefix of the run even while it grows. RUN_NOT_FOUND for an
 * unknown run; BUNDLE_ARTIFACT_MISSING when the store lacks an artifact
 * the journal names (a bundle without it could not be imported).
 *
 * @example
 * ```ts
 * let text = ""
 * for await (const chunk of exportRun(store, runId)) text += chunk
 * await importRun(otherStore, text)
 * ```
 */
export async function* exportRun(store: Store, runId: RunId, options: ExportOptions = {}): AsyncGenerator<string, void, undefined> {
  const from = Math.max(1, Math.floor(options.fromSeq ?? 1));
  const read = await store.read(runId, from > 1 ? from - 1 : 1);
  if (from > 1 && read[0]?.seq !== from - 1) throw new MoveError("BUNDLE_INVALID", `run ${runId} has no event ${from - 1} to export a tail after`);
  const events = from > 1 ? read.slice(1) : read;
  const prev = from > 1 ? read[0]!.hash : "";
  const last = events[events.length - 1];
  // The tools' shapes from run.created: for a tail, from the snapshot when there is one (not the whole journal again).
  const created = from === 1 ? (events[0] as RunCreated | undefined) : undefined;
  const tools = created?.tools ?? (await store.getSnapshot(runId))?.state.tools ?? ((await store.read(runId, 1))[0] as RunCreated | undefined)?.tools ?? [];
  const names = artifactNames(events);
  const held = new Map<string, Uint8Array>();
  let workspace: BundleWorkspace | undefined;
  if (options.workspace !== undefined) {
    const ws = options.workspace;
    const files: { path: string; sha256: string; size: number }[] = [];
    for (const f of await ws.list("")) {
      const bytes = await ws.read(f.path);
      if (bytes === undefined) continue;
      const sha256 = await sha256Hex(bytes);
      files.push({ path: f.path, sha256, size: bytes.length });
      held.set(sha256, bytes);
      if (!names.has(sha256)) names.set(sha256, 0);
    }
    const receipts: { key: string; result: string }[] = [];
    const keys = new Set<string>();
    for (const e of events) if (e.type === "call.started") keys.add(e.idempotencyKey);
    for (const key of keys) {
      const result = await ws.receipt(key);
      if (result !== undefined) receipts.push({ key, result });
    }
    workspace = { files, receipts };
  }
  const shas = [...names.keys()].sort();
  const header: BundleHeader = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    runId,
    from,
    to: last?.seq ?? from - 1,
    prev,
    head: last?.hash ?? prev,
    tools,
    artifacts: shas.length,
    workspace: workspace !== undefined,
  };
  let chunk = `${JSON.stringify({ bundle: header })}\n`;
  let lines = 1;
  for (const e of events) {
    chunk += `{"event":${JSON.stringify(e)}}\n`;
    if (++lines >= LINES_PER_CHUNK) {
      yield chunk;
      chunk = "";
      lines = 0;
    }
  }
  for (const sha256 of shas) {
    const bytes = held.get(sha256) ?? (await store.getArtifact(sha256));
    if (bytes === null || (await sha256Hex(bytes)) !== sha256) {
      const seq = names.get(sha256)!;
      throw new MoveError(
        "BUNDLE_ARTIFACT_MISSING",
        seq === 0 ? `the workspace file with SHA-256 ${sha256} could not be read` : `run ${runId} names artifact ${sha256} at event ${seq}, which its store does not have`,
      );
    }
    chunk += `{"artifact":{"sha256":"${sha256}","size":${bytes.length},"base64":"${toBase64(bytes)}"}}\n`;
    if (++lines >= 16 || chunk.length > 1 << 20) {
      yield chunk;
      chunk = "";
      lines = 0;
    }
  }
  if (workspace !== undefined) chunk += `${JSON.stringify({ workspace })}\n`;
  const signature = options.signing === undefined ? undefined : await vouch(store, runId, options.signing, header, events);
  chunk += `${JSON.stringify({ end: { events: events.length, artifacts: shas.length, head: header.head, ...(signature === undefined ? {} : { signature }) } })}\n`;
  yield chunk;
}

/** The signature of what this place vouches for in the bundle: all of a run it owns, else its copy's vouched prefix, if the bundle reaches it. */
async function vouch(store: Store, runId: RunId, key: SigningKey, h: BundleHeader, events: readonly JournalEvent[]): Promise<BundleSignature | undefined> {
  const custody = await store.custody?.(runId);
  const seq = custody === undefined ? h.to : Math.min(custody.vouched ?? 0, h.to);
  if (seq < 1 || seq < h.from - 1) return undefined;
  return signVouch(key, runId, seq, seq === h.from - 1 ? h.prev : events[seq - h.from]!.hash);
}

/** A bundle's chunks as UTF-8 bytes (for a request body, a file). */
export async function* bundleBytes(chunks: AsyncIterable<string>): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const c of chunks) yield encodeUtf8(c);
}

/** A bundle as one string (tests, small runs; large ones should stream). */
export async function bundleText(chunks: AsyncIterable<string>): Promise<string> {
  const parts: string[] = [];
  for await (const c of chunks) parts.push(c);
  return parts.join("");
}

export type { JournalEvent };
