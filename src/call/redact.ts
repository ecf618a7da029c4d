/**
 * Redaction: configured secrets and common token shapes are replaced before
 * anything reaches the agent, the journal or an artifact.
 */
import type { JsonValue } from "../json/index.js";

/** What a redaction leaves. */
export const REDACTED = "[REDACTED]";

/** Common credential shapes (API keys, tokens, private keys), matched anywhere in text. */
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{40,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API key
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/g, // Authorization header values
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** A function that redacts a string. */
export type Redactor = (text: string) => string;

/**
 * A redactor for the given secrets (each replaced wherever it occurs, longest
 * first, empty and very short ones ignored as they would redact everything)
 * and the common token shapes.
 */
export function redactor(secrets: readonly string[] = []): Redactor {
  const list = [...new Set(secrets.filter((s) => typeof s === "string" && s.length >= 4))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of list) if (out.includes(s)) out = out.split(s).join(REDACTED);
    for (const re of TOKEN_SHAPES) {
      re.lastIndex = 0;
      if (re.test(out)) {
        re.lastIndex = 0;
        out = out.replace(re, REDACTED);
      }
    }
    return out;
  };
}

/**
 * A JSON value with every string mapped by `f` (and every key by `key`);
 * the same value when nothing changed. Keys are defined, never assigned, so
 * `__proto__` stays a plain key.
 */
export function mapStrings(value: JsonValue, f: (s: string) => string, key: (k: string) => string = (k) => k): JsonValue {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = mapStrings(v, f, key);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const out: Record<string, JsonValue> = {};
    for (const k of Object.keys(value)) {
      const kk = key(k);
      const v = mapStrings(value[k]!, f, key);
      if (kk !== k || v !== value[k]) changed = true;
      Object.defineProperty(out, kk, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : value;
  }
  return value;
}

/** Redacts every string (and key) in a JSON value; returns the same value when nothing changed. */
export function redactJson(value: JsonValue, redact: Redactor): JsonValue {
  return mapStrings(value, redact, redact);
}
