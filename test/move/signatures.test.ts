/**
 * Authentic handovers (issue 26): signatures and keys. A trusted key's
 * signature that fails is refused with its typed error and nothing
 * written; keys that cannot be used are refused saying why; the signature
 * is the documented one; an export vouches for exactly what its place does.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/json/index.js";
import { bundleText, exportRun, generateBundleKey, importRun, localPlace, mirrorRuns, sealRun, signingKey, trustedKeys } from "../../src/move/index.js";
import { layout, parse, reseal, signAs } from "./forge.js";
import { approveAll, keyed, place, refusal, SHAPES, waitFor } from "./trust-world.js";

describe("signatures and keys: typed errors, exact texts, nothing written", () => {
  it("a trusted key's signature that does not verify, or that names another history's event, is refused (BUNDLE_SIGNATURE_INVALID); an unknown key's is taken as no signature", async () => {
    const keys = await keyed({ t: { signs: true, trusts: [] }, d: { signs: false, trusts: ["t"] } });
    const t = place("t", { agent: waitFor("private/b") });
    const runId = (await t.driver.start("write")).runId;
    const signed = await bundleText(exportRun(t.store, runId, { signing: keys["t"]!.signing! }));
    const p = parse(signed);
    const sig = p.end["signature"] as { kid: string; seq: number; hash: string; sig: string };
    expect([sig.kid, sig.seq, sig.hash]).toEqual(["key-t", p.events.length, p.events.at(-1)!.hash]);
    const d = place("d");
    const into = (text: string) => importRun(d.store, text, { here: "D", tools: SHAPES, keys: keys["d"]! });
    const refused = async (text: string) => {
      const r = await refusal(into(text));
      expect(await d.driver.listRuns()).toEqual([]);
      return r;
    };
    const bytes = Buffer.from(sig.sig, "base64");
    bytes[0] = bytes[0]! ^ 1;
    expect(await refused(layout(p, p.events, { signature: { ...sig, sig: bytes.toString("base64") } }))).toEqual({
      code: "BUNDLE_SIGNATURE_INVALID",
      message: "the bundle's signature by key key-t, which this place trusts, does not verify: the bundle was changed after it was signed; nothing was written",
    });
    // The same signature over another history of the same length (its last event's time changed, the chain sealed again).
    const other = [...p.events.slice(0, -1), ...reseal([{ ...p.events.at(-1)!, at: 1 }], p.events.length, p.events.at(-2)!.hash)];
    expect(await refused(layout(p, other, { signature: sig }))).toEqual({
      code: "BUNDLE_SIGNATURE_INVALID",
      message: `key key-t vouched for event ${sig.seq} with another hash than this run's event ${sig.seq}: the signature belongs to another history; nothing was written`,
    });
    for (const bad of [{ ...sig, extra: 1 }, { ...sig, seq: 0 }, { ...sig, kid: "" }, "signed", { ...sig, hash: "ab" }]) {
      expect(await refused(layout(p, p.events, { signature: bad }))).toEqual({ code: "BUNDLE_SIGNATURE_INVALID", message: "the bundle's signature is not {kid, seq, hash, sig}; nothing was written" });
    }
    expect(await refused(layout(p, p.events, { signature: { ...sig, seq: sig.seq + 1 } }))).toEqual({
      code: "BUNDLE_SIGNATURE_INVALID",
      message: `the bundle's signature vouches for event ${sig.seq + 1}, past its last event ${sig.seq}; nothing was written`,
    });
    // A key nobody here trusts (and a broken signature by it): the bundle is taken, as one with no signature is.
    const unknown = { ...sig, kid: "key-elsewhere", sig: bytes.toString("base64") };
    expect((await into(layout(p, p.events, { signature: unknown }))).outcome).toBe("created");
  });

  it("keys that cannot be used are refused (BUNDLE_KEY_INVALID), each saying why", async () => {
    const ed = await generateBundleKey("k1");
    const ec = await generateBundleKey("k2", "ECDSA-P256");
    const cases: [() => Promise<unknown>, string][] = [
      [() => signingKey("{not json"), "the signing key is not JSON"],
      [() => signingKey({ ...ed.privateJwk, kid: "" }), "the signing key needs a kid (1 to 128 of A-Z a-z 0-9 _ . : -): signatures name their key by it"],
      [() => signingKey({ kty: "RSA", crv: "", x: "", kid: "r" }), 'the signing key (kid r) is a "RSA"/"" key: a bundle key is Ed25519 (kty OKP) or ECDSA P-256 (kty EC)'],
      [() => signingKey(ed.publicJwk), "the signing key (kid k1) is a public key: signing takes the private JWK (with d)"],
      [() => signingKey({ ...ed.privateJwk, d: "AAAA" }), "the signing key (kid k1) is not a usable Ed25519 key"],
      [() => trustedKeys("[1"), "the trusted keys are not JSON"],
      [() => trustedKeys(JSON.stringify(ed.publicJwk)), "the trusted keys are a list of public JWKs"],
      [() => trustedKeys([ec.publicJwk, ed.privateJwk]), "trusted key 2 (kid k1) holds a private key (d): a place trusts another by its public key only"],
      [() => trustedKeys([ed.publicJwk, { ...ec.publicJwk, kid: "k1" }]), "trusted key 2: kid k1 is given twice"],
      [() => trustedKeys([{ ...ec.publicJwk, x: "AAAA" }]), "trusted key 1 (kid k2) is not a usable ECDSA-P256 key"],
      [() => generateBundleKey("not a kid"), "a kid is 1 to 128 of A-Z a-z 0-9 _ . : -"],
    ];
    for (const [make, message] of cases) expect(await refusal(make())).toEqual({ code: "BUNDLE_KEY_INVALID", message });
    // Both algorithms sign and verify; a key read from its JSON text (a secret's value) is the same key.
    for (const pair of [ed, ec]) {
      const mine = await signingKey(JSON.stringify(pair.privateJwk));
      const trusting = await trustedKeys(JSON.stringify([pair.publicJwk]));
      expect(trusting.kids).toEqual([pair.publicJwk.kid]);
      const t = place("t", { agent: waitFor("private/b") });
      const runId = (await t.driver.start("write")).runId;
      await sealRun(t.store, runId, { from: "T", to: "D" });
      const d = place("d");
      const r = await importRun(d.store, await bundleText(exportRun(t.store, runId, { signing: mine })), { here: "D", tools: SHAPES, keys: { trusted: trusting } });
      expect([mine.algorithm, r.custody, r.reopened]).toEqual([mine.algorithm, undefined, 0]);
    }
  });
});

describe("the signature is what docs/moves.md says it is", () => {
  it("an export's signature is the documented one (canonical JSON of {purpose, version, kid, runId, seq, hash}), and one made by hand that way is taken", async () => {
    for (const algorithm of ["Ed25519", "ECDSA-P256"] as const) {
      const pair = await generateBundleKey("by-hand", algorithm);
      const t = place("t", { agent: waitFor("private/b") });
      const runId = (await t.driver.start("write")).runId;
      await approveAll(t.driver, runId, "t-operator");
      await sealRun(t.store, runId, { from: "T", to: "D" });
      const p = parse(await bundleText(exportRun(t.store, runId)));
      const last = p.events.at(-1)!;
      const byHand = await signAs(pair.privateJwk, "by-hand", runId, last.seq, last.hash);
      const d = place("d");
      const r = await importRun(d.store, layout(p, p.events, { signature: byHand }), { here: "D", tools: SHAPES, keys: { trusted: await trustedKeys([pair.publicJwk]) } });
      expect([algorithm, r.reopened]).toEqual([algorithm, 0]);
      // And the export's own signature verifies by hand, with WebCrypto and the documented message.
      const signed = parse(await bundleText(exportRun(t.store, runId, { signing: await signingKey(pair.privateJwk) }))).end["signature"] as { kid: string; seq: number; hash: string; sig: string };
      const { kid: _k, ...pub } = pair.publicJwk;
      const ed = algorithm === "Ed25519";
      const key = await crypto.subtle.importKey("jwk", pub as JsonWebKey, ed ? { name: "Ed25519" } : { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
      const message = new TextEncoder().encode(canonicalJson({ purpose: "isoagent.run-bundle.vouch", version: 1, kid: "by-hand", runId, seq: last.seq, hash: last.hash }));
      expect(await crypto.subtle.verify(ed ? { name: "Ed25519" } : { name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(signed.sig, "base64"), message)).toBe(true);
    }
  });
});

describe("what a place's export vouches for", () => {
  it("all of a run it owns; a copy only as far as a place it trusts vouched for it; nothing of a copy nobody it trusts vouched for", async () => {
    const keys = await keyed({ t: { signs: true, trusts: [] }, m: { signs: true, trusts: ["t"] } });
    const t = place("t", { agent: waitFor("private/b") });
    const runId = (await t.driver.start("write")).runId;
    const owned = parse(await bundleText(exportRun(t.store, runId, { signing: keys["t"]!.signing! })));
    expect((owned.end["signature"] as { seq: number }).seq).toBe(owned.events.length);
    // M mirrors it: signed by T, whom M trusts, so M's copy is vouched for up to there, and M's export of it signs that far.
    const m = place("m");
    await importRun(m.store, await bundleText(exportRun(t.store, runId, { signing: keys["t"]!.signing! })), { keys: keys["m"]! });
    expect(await m.store.custody!(runId)).toMatchObject({ role: "mirror", vouched: owned.events.length });
    const relayed = parse(await bundleText(exportRun(m.store, runId, { signing: keys["m"]!.signing! })));
    expect((relayed.end["signature"] as { kid: string; seq: number }).kid).toBe("key-m");
    // The same run mirrored unsigned: M vouches for none of it.
    const n = place("n");
    await importRun(n.store, await bundleText(exportRun(t.store, runId)), { keys: keys["m"]! });
    expect(await n.store.custody!(runId)).toMatchObject({ role: "mirror" });
    expect((await n.store.custody!(runId))?.vouched).toBeUndefined();
    expect(parse(await bundleText(exportRun(n.store, runId, { signing: keys["m"]!.signing! }))).end["signature"]).toBeUndefined();
    // A mirror's pushes carry the signature of the place that mirrors (here T, which owns the run): M's copy is vouched for as it grows.
    const o = place("o");
    const mirror = mirrorRuns({ store: t.store, to: localPlace(o.store, { name: "O", keys: keys["m"]! }), signing: keys["t"]!.signing! });
    try {
      const synced = await mirror.synced(runId);
      expect((await o.store.custody!(runId))?.vouched).toBe(synced.seq);
    } finally {
      await mirror.stop();
    }
  });
});
