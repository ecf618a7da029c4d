/**
 * The visible part of what a tool returned: cleaned (see hygiene.ts),
 * redacted, capped (64 KiB by default), cut head or tail on a character
 * boundary, with a visible notice; the full output kept as an artifact named
 * by its SHA-256. Deterministic: the same output always gives the same
 * observation. Results, ToolError texts and invalid content all go through
 * the same cap.
 */
import type { JsonValue } from "../json/index.js";
import type { Observation, Truncation } from "../journal/index.js";
import type { Store } from "../store/index.js";
import type { ResolvedOutputPolicy } from "../tools/index.js";
import { encodeUtf8 } from "../web.js";
import { anyCleaned, cleanedNotice, cleaningOf, cleanJson, noCleaning } from "./hygiene.js";
import { redactJson, type Redactor } from "./redact.js";

/** What the observation builders need: the redactor, the artifact store, the tool's output policy. */
export interface Projection {
  readonly redact: Redactor;
  readonly store: Store;
  readonly policy: ResolvedOutputPolicy;
}

const size = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/** The longest prefix (or suffix) of `text` whose UTF-8 is at most `max` bytes (on a character boundary), and its size. */
export function cutUtf8(text: string, max: number, from: "head" | "tail"): { text: string; bytes: number } {
  let bytes = 0;
  if (from === "head") {
    let k = 0;
    while (k < text.length) {
      const cp = text.codePointAt(k)!;
      if (bytes + size(cp) > max) break;
      bytes += size(cp);
      k += cp > 0xffff ? 2 : 1;
    }
    return { text: text.slice(0, k), bytes };
  }
  let k = text.length;
  while (k > 0) {
    const lo = text.charCodeAt(k - 1);
    const pair = lo >= 0xdc00 && lo <= 0xdfff && k > 1 && text.charCodeAt(k - 2) >= 0xd800 && text.charCodeAt(k - 2) <= 0xdbff;
    const cp = pair ? text.codePointAt(k - 2)! : lo;
    if (bytes + size(cp) > max) break;
    bytes += size(cp);
    k -= pair ? 2 : 1;
  }
  return { text: text.slice(k), bytes };
}

/**
 * A text within `max` UTF-8 bytes: as it is when it fits; otherwise cut
 * (head or tail) with a visible notice, the full text kept as an artifact
 * when `keepFull` (or `full`, the bytes to keep instead, is given).
 */
export async function capText(
  text: string,
  max: number,
  strategy: "head" | "tail",
  keepFull: boolean,
  store: Store,
  what = "output",
  full?: Uint8Array,
): Promise<{ text: string; truncated?: Truncation }> {
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= max) return { text };
  const bytes = encodeUtf8(text);
  if (bytes.length <= max) return { text };
  const shown = cutUtf8(text, max, strategy);
  const kept = full ?? bytes;
  let artifact = "";
  let where = "the rest was not kept";
  if (keepFull) {
    artifact = (await store.putArtifact(kept)).sha256;
    where = `the full ${what} is artifact sha256:${artifact}`;
  }
  const notice = `[truncated: showing the ${strategy === "head" ? "first" : "last"} ${shown.bytes} of ${bytes.length} bytes; ${where}]`;
  return {
    text: strategy === "head" ? `${shown.text}\n${notice}` : `${notice}\n${shown.text}`,
    truncated: { strategy, totalBytes: bytes.length, shownBytes: shown.bytes, artifact },
  };
}

/**
 * The result observation for checked content: cleaned, redacted, and capped
 * (the full output stored when it is over the cap); and the content as it
 * was cleaned and redacted (what a terminal tool's run completes with).
 */
export async function resultObservation(content: JsonValue, p: Projection): Promise<{ observation: Observation; value: JsonValue }> {
  const count = noCleaning();
  const value = redactJson(cleanJson(content, count), p.redact);
  const cleaned = anyCleaned(count) ? { cleaned: cleaningOf(count) } : {};
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const capped = await capText(text, p.policy.maxVisibleBytes, p.policy.strategy, p.policy.keepFull, p.store);
  if (capped.truncated === undefined) {
    const shown = typeof value === "string" && anyCleaned(count) ? `${value}\n${cleanedNotice(count)}` : value;
    return { value, observation: { type: "result", content: shown, ...cleaned } };
  }
  const shown = anyCleaned(count) ? `${capped.text}\n${cleanedNotice(count)}` : capped.text;
  return { value, observation: { type: "result", content: shown, truncated: capped.truncated, ...cleaned } };
}
