/**
 * The visible part of a result: capped (64 KiB by default), cut head or tail
 * on a character boundary, with a visible notice; the full output kept as an
 * artifact named by its SHA-256. Deterministic: the same output always gives
 * the same observation.
 */
import type { JsonValue } from "../json/index.js";
import type { Observation } from "../journal/index.js";
import type { Store } from "../store/index.js";
import type { ResolvedOutputPolicy } from "../tools/index.js";
import { encodeUtf8 } from "../web.js";

/** The longest prefix (or suffix) of `text` whose UTF-8 is at most `max` bytes, and its size. */
function cut(text: string, max: number, from: "head" | "tail"): { text: string; bytes: number } {
  let bytes = 0;
  if (from === "head") {
    let k = 0;
    while (k < text.length) {
      const cp = text.codePointAt(k)!;
      const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + size > max) break;
      bytes += size;
      k += cp > 0xffff ? 2 : 1;
    }
    return { text: text.slice(0, k), bytes };
  }
  let k = text.length;
  while (k > 0) {
    const lo = text.charCodeAt(k - 1);
    const pair = lo >= 0xdc00 && lo <= 0xdfff && k > 1 && text.charCodeAt(k - 2) >= 0xd800 && text.charCodeAt(k - 2) <= 0xdbff;
    const cp = pair ? text.codePointAt(k - 2)! : lo;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > max) break;
    bytes += size;
    k -= pair ? 2 : 1;
  }
  return { text: text.slice(k), bytes };
}

/** The result observation for content, truncating (and storing the full output) when it is over the cap. */
export async function resultObservation(content: JsonValue, policy: ResolvedOutputPolicy, store: Store): Promise<Observation> {
  const text = typeof content === "string" ? content : JSON.stringify(content);
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (text.length * 3 <= policy.maxVisibleBytes) return { type: "result", content };
  const full = encodeUtf8(text);
  if (full.length <= policy.maxVisibleBytes) return { type: "result", content };
  const shown = cut(text, policy.maxVisibleBytes, policy.strategy);
  let where: string;
  let artifact = "";
  if (policy.keepFull) {
    const ref = await store.putArtifact(full);
    artifact = ref.sha256;
    where = `the full output is artifact sha256:${artifact}`;
  } else {
    where = "the rest was not kept";
  }
  const notice = `[truncated: showing the ${policy.strategy === "head" ? "first" : "last"} ${shown.bytes} of ${full.length} bytes; ${where}]`;
  return {
    type: "result",
    content: policy.strategy === "head" ? `${shown.text}\n${notice}` : `${notice}\n${shown.text}`,
    truncated: { strategy: policy.strategy, totalBytes: full.length, shownBytes: shown.bytes, artifact },
  };
}
