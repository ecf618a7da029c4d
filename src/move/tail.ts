/**
 * A tail of a run as JSON (`{events, artifacts}`): what a move's `accept`
 * carries over HTTP. The receiver reads it as a bundle (see format.ts), so
 * it is verified exactly as one is: this only lays the lines out.
 */
import type { RunId } from "../ids.js";
import type { JsonValue } from "../json/index.js";
import type { JournalEvent } from "../journal/index.js";
import type { Store } from "../store/index.js";
import { toBase64 } from "./base64.js";
import { MoveError } from "./errors.js";
import { artifactNames, BUNDLE_FORMAT, BUNDLE_VERSION } from "./format.js";

/** The events of a run from `fromSeq`, and the artifacts they name, as JSON. */
export async function tailOf(store: Store, runId: RunId, fromSeq: number): Promise<{ events: JournalEvent[]; artifacts: { sha256: string; size: number; base64: string }[] }> {
  const events = await store.read(runId, fromSeq);
  const artifacts = [];
  for (const [sha256, seq] of artifactNames(events)) {
    const bytes = await store.getArtifact(sha256);
    if (bytes === null) throw new MoveError("BUNDLE_ARTIFACT_MISSING", `run ${runId} names artifact ${sha256} at event ${seq}, which its store does not have`);
    artifacts.push({ sha256, size: bytes.length, base64: toBase64(bytes) });
  }
  return { events, artifacts };
}

/** A tail given as JSON, laid out as a bundle's lines (for readBundle to verify), with the source's signature in its trailer when one is given. */
export function tailBundle(runId: string, events: readonly JsonValue[], artifacts: readonly JsonValue[], signature?: JsonValue): string {
  const field = (v: JsonValue | undefined, k: string): JsonValue | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? v[k] : undefined);
  const first = events[0];
  const last = events[events.length - 1];
  const sorted = [...artifacts].sort((a, b) => String(field(a, "sha256")).localeCompare(String(field(b, "sha256"))));
  const header = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    runId,
    from: field(first, "seq") ?? 1,
    to: field(last, "seq") ?? 0,
    prev: field(first, "prev") ?? "",
    head: field(last, "hash") ?? "",
    tools: field(first, "type") === "run.created" ? (field(first, "tools") ?? []) : [],
    artifacts: sorted.length,
    workspace: false,
  };
  const lines = [JSON.stringify({ bundle: header }), ...events.map((event) => JSON.stringify({ event })), ...sorted.map((artifact) => JSON.stringify({ artifact }))];
  lines.push(JSON.stringify({ end: { events: events.length, artifacts: sorted.length, head: header.head, ...(signature === undefined ? {} : { signature }) } }));
  return `${lines.join("\n")}\n`;
}
