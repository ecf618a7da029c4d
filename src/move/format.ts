/**
 * The run bundle: a self-describing, verifiable copy of a run (or of the
 * tail of one), as JSON lines. Each line is one object with one key saying
 * what it holds, in this order:
 *
 * 1. `{"bundle": {format, version, runId, from, to, prev, head, tools, artifacts, workspace}}`:
 *    the header. Events `from`..`to`; `prev` is the hash of event `from - 1`
 *    ("" from the first), `head` the hash of event `to`; `tools` the shape
 *    hashes the run's `run.created` records; `artifacts` how many artifact
 *    lines follow the events; `workspace` whether a workspace line does.
 * 2. `{"event": {...}}`, one per event, in order, with its hash chain.
 * 3. `{"artifact": {sha256, size, base64}}`, one per artifact the events
 *    (or the workspace) name, by SHA-256, sorted.
 * 4. `{"workspace": {files: [{path, sha256, size}], receipts: [{key, result}]}}`,
 *    when a workspace was attached: its files (their bytes are artifact
 *    lines) and the receipts of the run's calls.
 * 5. `{"end": {events, artifacts, head, signature?}}`: the trailer, so that a
 *    cut bundle is told from a whole one; `signature` `{kid, seq, hash, sig}`
 *    when the exporting place vouches for the run up to event `seq` (see
 *    trust.ts; a reader that predates it ignores it, as it ignores any other
 *    member of the trailer).
 */
import { artifactsNamed } from "../journal/artifacts.js";
import type { JournalEvent } from "../journal/index.js";

export { artifactsNamed };

/** The format's name, in every header. */
export const BUNDLE_FORMAT = "isoagent.run-bundle";
/** The version this code writes and reads. */
export const BUNDLE_VERSION = 1;
/** The media type of a bundle (JSON lines). */
export const BUNDLE_MEDIA_TYPE = "application/x-ndjson";

/** Default cap on a bundle's bytes, on import: 256 MiB. */
export const DEFAULT_MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** Default cap on one artifact's bytes, on import: 64 MiB. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

/** A bundle's header. */
export interface BundleHeader {
  readonly format: typeof BUNDLE_FORMAT;
  readonly version: number;
  readonly runId: string;
  readonly from: number;
  readonly to: number;
  readonly prev: string;
  readonly head: string;
  readonly tools: readonly { readonly name: string; readonly specHash: string }[];
  readonly artifacts: number;
  readonly workspace: boolean;
}

/** A workspace as a bundle carries it. */
export interface BundleWorkspace {
  readonly files: readonly { readonly path: string; readonly sha256: string; readonly size: number }[];
  readonly receipts: readonly { readonly key: string; readonly result: string }[];
}

/** Every artifact the events name, each once, with the first event naming it. */
export function artifactNames(events: readonly JournalEvent[]): Map<string, number> {
  const names = new Map<string, number>();
  for (const e of events) for (const sha of artifactsNamed(e)) if (!names.has(sha)) names.set(sha, e.seq);
  return names;
}
