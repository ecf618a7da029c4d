/**
 * Requests built incrementally: an adapter converts each transcript item to
 * its wire form once (its JSON values and their JSON text), keyed by the
 * item itself, so a step costs the conversion of the items new since the
 * last step, not of the whole transcript. The request stays a pure function
 * of the view: the same items give the same values and the same text, and
 * `text` is exactly `JSON.stringify(body)` (a property test holds it so).
 */
import type { JsonValue } from "../../json/index.js";

/**
 * Converts once per item, by identity (the driver keeps the transcript's
 * items as they are). `files` (the bytes of the files the messages carry,
 * from the view) reach the conversion of an item that has some.
 */
export class ItemCache<I extends object, V = JsonValue> {
  private readonly cache = new WeakMap<I, { values: readonly V[]; texts: readonly string[] }>();

  /** `text` gives a value's JSON text (default: the value's own). */
  constructor(
    private readonly convert: (item: I, files: ReadonlyMap<string, Uint8Array> | undefined) => readonly V[],
    private readonly text: (value: V) => string = (v) => JSON.stringify(v),
  ) {}

  get(item: I, files?: ReadonlyMap<string, Uint8Array>): { readonly values: readonly V[]; readonly texts: readonly string[] } {
    let c = this.cache.get(item);
    if (c === undefined) {
      const values = this.convert(item, files);
      c = { values, texts: values.map(this.text) };
      this.cache.set(item, c);
    }
    return c;
  }
}

/** A JSON object's text from its members' texts, in order: `{"k":<text>,...}`, as JSON.stringify writes it. */
export function objectText(members: readonly (readonly [string, string | undefined])[]): string {
  let out = "{";
  let first = true;
  for (const [k, v] of members) {
    if (v === undefined) continue;
    out += `${first ? "" : ","}${JSON.stringify(k)}:${v}`;
    first = false;
  }
  return `${out}}`;
}

/** A JSON array's text from its elements' texts. */
export const arrayText = (texts: readonly string[]): string => `[${texts.join(",")}]`;

/** The text of a value that does not change from step to step (the tools, the instructions), by identity. */
export class StableText {
  private last: { key: unknown; text: string } | undefined;
  of(key: unknown, value: () => JsonValue): string {
    if (this.last === undefined || this.last.key !== key) this.last = { key, text: JSON.stringify(value()) };
    return this.last.text;
  }
}
