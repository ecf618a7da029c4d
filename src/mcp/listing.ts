/**
 * A tools/list answer the strict JSON boundary refused as a whole, read tool
 * by tool: one linear scan of the text (depth is a counter and a stack of
 * bracket kinds, never recursion) finds the entries of `result.tools`; the
 * rest of the message, with each entry replaced by `null`, must pass the
 * boundary, and then each entry is read through it on its own. An entry the
 * boundary refuses (nested past 256 levels, a repeated key, a lone
 * surrogate, ...) becomes an {@link UnreadableTool}, which the listing
 * leaves out with its reason: one bad tool never takes down the rest.
 */
import { tryParseJson, type JsonBoundaryError, type JsonValue } from "../json/index.js";

/** An entry of a tools/list answer the strict JSON boundary refused: its `name` when the scan could read one. */
export class UnreadableTool {
  constructor(
    readonly name: string | undefined,
    readonly error: JsonBoundaryError,
  ) {}
}

const str = (token: string): string | undefined => {
  try {
    const v: unknown = JSON.parse(token);
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The text split at the entries of `result.tools`: the envelope (each entry
 * replaced by `null`) and each entry's text, with the `name` its top-level
 * object gives; undefined when the text has no such array or its brackets
 * or strings do not close (nothing to split).
 */
export function splitToolsList(text: string): { envelope: string; entries: { text: string; name: string | undefined }[] } | undefined {
  const stack: number[] = []; // the open brackets' kinds
  const keys: (string | undefined)[] = []; // the last key read at depths 1 and 2
  const entries: { text: string; name: string | undefined }[] = [];
  let envelope = "";
  let cut = 0;
  let prev = 0; // the last significant character ("k" after a key, "v" after a value)
  let inTools = false;
  let done = false;
  let start = -1;
  let end = -1;
  let name: string | undefined;
  let nameNext = false;
  const close = (): void => {
    if (start < 0) return;
    entries.push({ text: text.slice(start, end), name });
    envelope += `${text.slice(cut, start)}null`;
    cut = end;
    start = -1;
    name = undefined;
  };
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    const depth = stack.length;
    if (inTools && depth === 3 && start < 0 && c !== 0x2c && c !== 0x5d) start = k;
    if (c === 0x22) {
      let j = k + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      if (j >= text.length) return undefined;
      const isKey = stack[depth - 1] === 0x7b && (prev === 0x7b || prev === 0x2c);
      if (isKey) {
        const key = depth <= 2 || (inTools && depth === 4) ? str(text.slice(k, j + 1)) : undefined;
        if (depth <= 2) keys[depth] = key;
        nameNext = inTools && depth === 4 && key === "name" && name === undefined;
      } else if (nameNext) {
        name = str(text.slice(k, j + 1));
        nameNext = false;
      }
      prev = isKey ? 0x6b : 0x76;
      k = j;
      end = k + 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (!done && c === 0x5b && depth === 2 && prev === 0x3a && stack[0] === 0x7b && stack[1] === 0x7b && keys[1] === "result" && keys[2] === "tools") inTools = true;
      stack.push(c);
      nameNext = false;
      prev = c;
    } else if (c === 0x7d || c === 0x5d) {
      if (stack.pop() !== c - 2) return undefined; // "{" + 2 is "}", "[" + 2 is "]"
      if (inTools && stack.length === 2) {
        close();
        inTools = false;
        done = true;
      }
      prev = 0x76;
      end = k + 1;
    } else if (c === 0x2c || c === 0x3a) {
      if (c === 0x2c && inTools && depth === 3) close();
      prev = c;
    } else {
      // A number, true, false or null (or anything else: the boundary will say what).
      nameNext = false;
      prev = 0x76;
      end = k + 1;
    }
  }
  if (stack.length !== 0 || !done) return undefined;
  return { envelope: envelope + text.slice(cut), entries };
}

/**
 * The value of a tools/list answer the boundary refused whole, with each
 * entry read on its own (an {@link UnreadableTool} where the boundary refuses
 * it); undefined when the answer cannot be read that way (its envelope is
 * refused, or it has no `result.tools`).
 */
export function readToolsList(text: string): JsonValue | undefined {
  const split = splitToolsList(text);
  if (split === undefined) return undefined;
  const outer = tryParseJson(split.envelope);
  if (!outer.ok) return undefined;
  const tools = ((outer.value as { result?: { tools?: unknown } }).result?.tools ?? []) as unknown[];
  if (!Array.isArray(tools) || tools.length !== split.entries.length) return undefined;
  split.entries.forEach((e, k) => {
    const r = tryParseJson(e.text);
    tools[k] = r.ok ? r.value : new UnreadableTool(e.name, r.error);
  });
  return outer.value;
}
