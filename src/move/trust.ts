/**
 * Who vouches for a run's history (see docs/moves.md, "Trust"). A bundle's
 * checks prove it is consistent in itself, not who wrote it: anyone who
 * holds one can append an approval and seal the chain again. So a place
 * signs what it vouches for (the events of a run it owns, or up to what a
 * place it trusts vouched for in its copy), and a destination keeps the
 * decisions of a run handed to it only when a key it trusts vouched for the
 * whole history up to the seal. WebCrypto only: Ed25519, or ECDSA P-256
 * where a browser lacks Ed25519, chosen by the key's JWK.
 */
import { encodeUtf8 } from "../web.js";
import { fromBase64, toBase64 } from "./base64.js";
import { isMoveError, MoveError } from "./errors.js";
import { isId } from "../ids.js";

/** The signature algorithms of bundle keys, as a JWK names them: `OKP`/`Ed25519`, or `EC`/`P-256` (ECDSA with SHA-256). */
export type BundleKeyAlgorithm = "Ed25519" | "ECDSA-P256";

/** A bundle key as a JWK (RFC 7517): its `kid` names it in signatures; a private key has `d`. */
export interface BundleJwk {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly y?: string;
  readonly d?: string;
  readonly kid: string;
  readonly [member: string]: unknown;
}

/** A place's signing key (from {@link signingKey}): what the place vouches for, its exports sign with it. */
export interface SigningKey {
  readonly kid: string;
  readonly algorithm: BundleKeyAlgorithm;
  /** @internal The WebCrypto keys: the private one signs, the public one lets the place trust its own signatures. */
  readonly keys: { readonly sign: unknown; readonly verify: unknown };
}

/** The public keys a place trusts (from {@link trustedKeys}), by `kid`. */
export interface TrustedKeys {
  readonly kids: readonly string[];
  /** @internal */
  readonly byKid: ReadonlyMap<string, { readonly algorithm: BundleKeyAlgorithm; readonly key: unknown }>;
}

/**
 * A place's keys. Both are optional, and the default is the safe one: a
 * place with no `trusted` keys keeps no decision it did not make itself
 * (every call a run brings in undecided, approved or started is decided
 * again here), and one with no `signing` key vouches for nothing it exports.
 */
export interface PlaceKeys {
  /** Signs what this place vouches for; its public half is trusted here too. */
  readonly signing?: SigningKey;
  /** The places this one takes decisions from: a run they vouch for up to its seal keeps its approvals here. */
  readonly trusted?: TrustedKeys;
}

/** A bundle's signature, in its trailer: `kid`'s key vouches for the run's events up to `seq`, whose hash is `hash`. */
export interface BundleSignature {
  readonly kid: string;
  readonly seq: number;
  readonly hash: string;
  /** The signature's bytes, base64. */
  readonly sig: string;
}

interface Subtle {
  generateKey(algorithm: object, extractable: boolean, usages: string[]): Promise<{ privateKey: unknown; publicKey: unknown }>;
  importKey(format: "jwk", key: object, algorithm: object, extractable: boolean, usages: string[]): Promise<unknown>;
  exportKey(format: "jwk", key: unknown): Promise<Record<string, unknown>>;
  sign(algorithm: object, key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
  verify(algorithm: object, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

const HEX64 = /^[0-9a-f]{64}$/;

function subtle(): Subtle {
  const s = (globalThis as unknown as { crypto?: { subtle?: Subtle } }).crypto?.subtle;
  if (s === undefined) throw new MoveError("BUNDLE_KEY_INVALID", "crypto.subtle is not available on this platform: bundles cannot be signed or verified here");
  return s;
}

const params = (a: BundleKeyAlgorithm): { key: object; sign: object } =>
  a === "Ed25519" ? { key: { name: "Ed25519" }, sign: { name: "Ed25519" } } : { key: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } };

/** The key's algorithm, from its JWK; BUNDLE_KEY_INVALID for anything else. */
function algorithmOf(jwk: unknown, what: string): { jwk: BundleJwk; algorithm: BundleKeyAlgorithm } {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) throw new MoveError("BUNDLE_KEY_INVALID", `${what} is not a JWK object`);
  const j = jwk as Record<string, unknown>;
  if (!isId(j["kid"])) throw new MoveError("BUNDLE_KEY_INVALID", `${what} needs a kid (1 to 128 of A-Z a-z 0-9 _ . : -): signatures name their key by it`);
  const algorithm = j["kty"] === "OKP" && j["crv"] === "Ed25519" ? "Ed25519" : j["kty"] === "EC" && j["crv"] === "P-256" ? "ECDSA-P256" : undefined;
  if (algorithm === undefined)
    throw new MoveError("BUNDLE_KEY_INVALID", `${what} (kid ${j["kid"]}) is a ${JSON.stringify(j["kty"])}/${JSON.stringify(j["crv"])} key: a bundle key is Ed25519 (kty OKP) or ECDSA P-256 (kty EC)`);
  return { jwk: j as unknown as BundleJwk, algorithm };
}

/** A JWK given as its JSON text (a secret's value) parsed; `refusal` when it is not JSON. */
const parsed = (v: unknown, refusal: string): unknown => {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new MoveError("BUNDLE_KEY_INVALID", refusal);
  }
};

async function importJwk(jwk: BundleJwk, algorithm: BundleKeyAlgorithm, usage: "sign" | "verify", what: string): Promise<unknown> {
  const { d: _d, key_ops: _o, use: _u, alg: _a, ext: _e, ...pub } = jwk as BundleJwk & Record<string, unknown>;
  try {
    return await subtle().importKey("jwk", usage === "sign" ? { ...pub, d: jwk.d } : pub, params(algorithm).key, false, [usage]);
  } catch (e) {
    if (isMoveError(e)) throw e;
    const unsupported = (e as { name?: unknown }).name === "NotSupportedError";
    throw new MoveError(
      "BUNDLE_KEY_INVALID",
      unsupported
        ? `${what} (kid ${jwk.kid}): this platform's WebCrypto has no ${algorithm}; use an ${algorithm === "Ed25519" ? "ECDSA P-256" : "Ed25519"} key`
        : `${what} (kid ${jwk.kid}) is not a usable ${algorithm} key`,
    );
  }
}

/**
 * A new key pair for a place, as JWKs named `kid`: keep `privateJwk` where
 * the place keeps secrets, and give `publicJwk` to the places that trust it.
 *
 * @example
 * ```ts
 * const { privateJwk, publicJwk } = await generateBundleKey("edge-2026")
 * ```
 */
export async function generateBundleKey(kid: string, algorithm: BundleKeyAlgorithm = "Ed25519"): Promise<{ privateJwk: BundleJwk; publicJwk: BundleJwk }> {
  if (!isId(kid)) throw new MoveError("BUNDLE_KEY_INVALID", "a kid is 1 to 128 of A-Z a-z 0-9 _ . : -");
  let pair: { privateKey: unknown; publicKey: unknown };
  try {
    pair = await subtle().generateKey(params(algorithm).key, true, ["sign", "verify"]);
  } catch {
    throw new MoveError("BUNDLE_KEY_INVALID", `this platform's WebCrypto cannot make an ${algorithm} key`);
  }
  const strip = ({ key_ops: _o, ext: _e, alg: _a, ...k }: Record<string, unknown>) => ({ ...k, kid }) as unknown as BundleJwk;
  return { privateJwk: strip(await subtle().exportKey("jwk", pair.privateKey)), publicJwk: strip(await subtle().exportKey("jwk", pair.publicKey)) };
}

/** A place's signing key from its private JWK (an object, or its JSON text: a secret's value). BUNDLE_KEY_INVALID for anything else. */
export async function signingKey(privateJwk: BundleJwk | string): Promise<SigningKey> {
  const { jwk, algorithm } = algorithmOf(parsed(privateJwk, "the signing key is not JSON"), "the signing key");
  if (typeof jwk.d !== "string") throw new MoveError("BUNDLE_KEY_INVALID", `the signing key (kid ${jwk.kid}) is a public key: signing takes the private JWK (with d)`);
  return { kid: jwk.kid, algorithm, keys: { sign: await importJwk(jwk, algorithm, "sign", "the signing key"), verify: await importJwk(jwk, algorithm, "verify", "the signing key") } };
}

/** The public keys a place trusts, from their JWKs (a list, or its JSON text). BUNDLE_KEY_INVALID for a private key, a kid given twice, or anything not a bundle key. */
export async function trustedKeys(publicJwks: readonly BundleJwk[] | string): Promise<TrustedKeys> {
  const list = parsed(publicJwks, "the trusted keys are not JSON");
  if (!Array.isArray(list)) throw new MoveError("BUNDLE_KEY_INVALID", "the trusted keys are a list of public JWKs");
  const byKid = new Map<string, { algorithm: BundleKeyAlgorithm; key: unknown }>();
  for (const [k, item] of list.entries()) {
    const what = `trusted key ${k + 1}`;
    const { jwk, algorithm } = algorithmOf(item, what);
    if (jwk.d !== undefined) throw new MoveError("BUNDLE_KEY_INVALID", `${what} (kid ${jwk.kid}) holds a private key (d): a place trusts another by its public key only`);
    if (byKid.has(jwk.kid)) throw new MoveError("BUNDLE_KEY_INVALID", `${what}: kid ${jwk.kid} is given twice`);
    byKid.set(jwk.kid, { algorithm, key: await importJwk(jwk, algorithm, "verify", what) });
  }
  return { kids: [...byKid.keys()], byKid };
}

/**
 * A place's keys from configuration: its private JWK and the public JWKs it
 * trusts, each an object or its JSON text (as an environment holds them),
 * either left out. BUNDLE_KEY_INVALID, saying which, for anything that is
 * not a bundle key.
 *
 * @example
 * ```ts
 * const keys = await placeKeys({ signingKey: env.ISOAGENT_SIGNING_KEY, trustedKeys: env.ISOAGENT_TRUSTED_KEYS })
 * localPlace(store, { name: "edge", keys })
 * ```
 */
export async function placeKeys(config: { readonly signingKey?: BundleJwk | string | undefined; readonly trustedKeys?: readonly BundleJwk[] | string | undefined }): Promise<PlaceKeys> {
  const signing = config.signingKey === undefined || config.signingKey === "" ? undefined : await signingKey(config.signingKey);
  const trusted = config.trustedKeys === undefined || config.trustedKeys === "" ? undefined : await trustedKeys(config.trustedKeys);
  return { ...(signing === undefined ? {} : { signing }), ...(trusted === undefined ? {} : { trusted }) };
}

/**
 * What a signature signs: the run, the event vouched up to, its hash, and
 * the key, as canonical JSON (RFC 8785). The members are written in their
 * canonical order, and every value is ASCII a kid, a run id or a hash
 * allows, or a whole number, for which JSON.stringify writes the canonical
 * form.
 */
const message = (kid: string, runId: string, seq: number, hash: string): Uint8Array => encodeUtf8(JSON.stringify({ hash, kid, purpose: "isoagent.run-bundle.vouch", runId, seq, version: 1 }));

/** Signs that `key` vouches for run `runId` up to event `seq` (whose hash is `hash`). */
export async function signVouch(key: SigningKey, runId: string, seq: number, hash: string): Promise<BundleSignature> {
  const sig = new Uint8Array(await subtle().sign(params(key.algorithm).sign, key.keys.sign, message(key.kid, runId, seq, hash)));
  return { kid: key.kid, seq, hash, sig: toBase64(sig) };
}

/** A trailer's signature, checked for shape (BUNDLE_SIGNATURE_INVALID otherwise), not yet verified. */
export function asSignature(v: unknown, to: number): BundleSignature {
  const s = (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
  const seq = s["seq"];
  if (
    !isId(s["kid"]) ||
    typeof seq !== "number" ||
    !Number.isSafeInteger(seq) ||
    seq < 1 ||
    typeof s["hash"] !== "string" ||
    !HEX64.test(s["hash"]) ||
    typeof s["sig"] !== "string" ||
    Object.keys(s).length !== 4
  ) {
    throw new MoveError("BUNDLE_SIGNATURE_INVALID", "the bundle's signature is not {kid, seq, hash, sig}; nothing was written");
  }
  if (seq > to) throw new MoveError("BUNDLE_SIGNATURE_INVALID", `the bundle's signature vouches for event ${seq}, past its last event ${to}; nothing was written`);
  return s as unknown as BundleSignature;
}

/**
 * The seq a bundle's signature vouches for the run up to, when it was made
 * by a key `keys` trusts (its own signing key included); 0 when the bundle
 * has none, or one by a key not trusted here (the bundle is then taken as
 * any untrusted one is). BUNDLE_SIGNATURE_INVALID when a trusted key's
 * signature does not verify, or names an event whose hash is not `hashAt`'s.
 */
export async function vouchedSeq(runId: string, signature: BundleSignature | undefined, keys: PlaceKeys | undefined, hashAt: (seq: number) => Promise<string | undefined>): Promise<number> {
  if (signature === undefined) return 0;
  const own = keys?.signing;
  const key = own !== undefined && own.kid === signature.kid ? { algorithm: own.algorithm, key: own.keys.verify } : keys?.trusted?.byKid.get(signature.kid);
  if (key === undefined) return 0;
  const bytes = fromBase64(signature.sig);
  let ok = false;
  try {
    ok = bytes !== undefined && (await subtle().verify(params(key.algorithm).sign, key.key, bytes, message(signature.kid, runId, signature.seq, signature.hash)));
  } catch {
    ok = false;
  }
  if (!ok)
    throw new MoveError(
      "BUNDLE_SIGNATURE_INVALID",
      `the bundle's signature by key ${signature.kid}, which this place trusts, does not verify: the bundle was changed after it was signed; nothing was written`,
    );
  if ((await hashAt(signature.seq)) !== signature.hash) {
    throw new MoveError(
      "BUNDLE_SIGNATURE_INVALID",
      `key ${signature.kid} vouched for event ${signature.seq} with another hash than this run's event ${signature.seq}: the signature belongs to another history; nothing was written`,
    );
  }
  return signature.seq;
}
