// docs/json.md's example: the strict parser, the refusal as data, the
// canonical form and its hash, each as the comments say.
import assert from "node:assert/strict";

const bytes = new TextEncoder().encode('{"note":"caf\u00e9"}');
// DOCS: begin
import { parseJson, tryParseJson, canonicalJson, hashJson, sha256Hex } from "../../src/json/index.js";

const value = parseJson('{"a":[1,2]}'); // { a: [1, 2] }
const fromBytes = parseJson(bytes); // Uint8Array: UTF-8, checked
const r = tryParseJson('{"a":1,"a":2}'); // refusal as data
// r.ok === false; r.error.code === "JSON_DUPLICATE_KEY";
// r.error.message === 'duplicate key "a" at line 1, column 8'; r.error.offset === 7

const canonical = canonicalJson({ b: 1, a: [true, -0] }); // '{"a":[true,0],"b":1}' (RFC 8785)
const hash = await hashJson({ b: 1, a: 2 }); // SHA-256 hex of the canonical form (crypto.subtle)
// hash === await sha256Hex('{"a":2,"b":1}'); sha256Hex takes text or bytes
// DOCS: end

assert.deepEqual(value, { a: [1, 2] });
assert.deepEqual(fromBytes, { note: "café" });
// Bytes that are not UTF-8 are refused, not decoded with replacement characters.
assert.throws(() => parseJson(new Uint8Array([0x22, 0xff, 0x22])), { code: "JSON_INVALID_UTF8" });
assert.equal(r.ok, false);
assert(!r.ok);
assert.equal(r.error.code, "JSON_DUPLICATE_KEY");
assert.equal(r.error.message, 'duplicate key "a" at line 1, column 8');
assert.equal(r.error.offset, 7);
assert.equal(canonical, '{"a":[true,0],"b":1}');
assert.equal(hash, await sha256Hex('{"a":2,"b":1}'));
assert.equal(hash, await sha256Hex(new TextEncoder().encode('{"a":2,"b":1}')));
assert.match(hash, /^[0-9a-f]{64}$/);
