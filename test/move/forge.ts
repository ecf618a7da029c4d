/**
 * What an attacker who holds a bundle can do with the public functions
 * alone: parse it, change or append events, re-seal the chain with the
 * exported `seal()`, and lay the bundle out again (header, events,
 * artifacts, trailer), so that every check of the bundle in itself passes.
 */
import type { JournalEvent } from "../../src/index.js";
import { canonicalJson } from "../../src/json/index.js";
import { seal, type UnsealedEvent } from "../../src/journal/index.js";

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

/** A bundle's parts, as JSON. */
export interface Parts {
  header: Record<string, unknown>;
  events: JournalEvent[];
  /** The artifact and workspace lines, as they are. */
  rest: string[];
  end: Record<string, unknown>;
}

export function parse(text: string): Parts {
  const ls = lines(text);
  const header = (JSON.parse(ls[0]!) as { bundle: Record<string, unknown> }).bundle;
  const events = ls.filter((l) => l.startsWith('{"event"')).map((l) => (JSON.parse(l) as { event: JournalEvent }).event);
  const rest = ls.filter((l) => l.startsWith('{"artifact"') || l.startsWith('{"workspace"'));
  const end = (JSON.parse(ls[ls.length - 1]!) as { end: Record<string, unknown> }).end;
  return { header, events, rest, end };
}

/** The events re-sealed from the first one on, after `prev` (a tail's header prev, or "" from the run's creation). */
export function reseal(events: readonly (JournalEvent | UnsealedEvent)[], firstSeq: number, prev: string): JournalEvent[] {
  const out: JournalEvent[] = [];
  let hash = prev;
  events.forEach((e, k) => {
    const { seq: _s, prev: _p, hash: _h, ...rest } = e as JournalEvent;
    const sealed = seal(rest as UnsealedEvent, firstSeq + k, hash);
    out.push(sealed);
    hash = sealed.hash;
  });
  return out;
}

/** The bundle laid out again around `events` (already sealed), keeping its artifact and workspace lines; `end` extras (a signature) as given. */
export function layout(p: Parts, events: readonly JournalEvent[], endExtra: Record<string, unknown> = {}): string {
  const first = events[0];
  const last = events[events.length - 1];
  const header = { ...p.header, from: first?.seq ?? p.header["from"], to: last?.seq ?? Number(p.header["from"]) - 1, prev: first?.prev ?? p.header["prev"], head: last?.hash ?? p.header["prev"] };
  const { signature: _dropped, ...end } = p.end;
  const trailer = { ...end, events: events.length, head: header.head, ...endExtra };
  return `${[JSON.stringify({ bundle: header }), ...events.map((event) => JSON.stringify({ event })), ...p.rest, JSON.stringify({ end: trailer })].join("\n")}\n`;
}

/** Appends `extra` to a bundle's events, re-sealed after its last: the forger's continuation. */
export function append(text: string, extra: readonly UnsealedEvent[]): string {
  const p = parse(text);
  const last = p.events[p.events.length - 1]!;
  return layout(p, [...p.events, ...reseal(extra, last.seq + 1, last.hash)]);
}

/**
 * A signature as the docs describe it (docs/moves.md, "The signature"),
 * made with WebCrypto from a private JWK: what a forger with a key of their
 * own (or a place with its own) writes into a trailer.
 */
export async function signAs(privateJwk: Record<string, unknown>, kid: string, runId: string, seq: number, hash: string): Promise<{ kid: string; seq: number; hash: string; sig: string }> {
  const { kid: _k, ...jwk } = privateJwk;
  const ed = jwk["kty"] === "OKP";
  const key = await crypto.subtle.importKey("jwk", jwk as JsonWebKey, ed ? { name: "Ed25519" } : { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const message = new TextEncoder().encode(canonicalJson({ purpose: "isoagent.run-bundle.vouch", version: 1, kid, runId, seq, hash }));
  const sig = new Uint8Array(await crypto.subtle.sign(ed ? { name: "Ed25519" } : { name: "ECDSA", hash: "SHA-256" }, key, message));
  return { kid, seq, hash, sig: Buffer.from(sig).toString("base64") };
}
