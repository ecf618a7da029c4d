import { describe, expect, it } from "vitest";
import { runFormatConformance } from "../../scripts/lib/schema-conformance.js";
import { isIsoagentError, loadFullSchemaSupport } from "../../src/index.js";
import { compileSchema } from "../../src/schema/index.js";
import { FORMAT_CHECKERS, formatSupport, UNCHECKED_FORMATS } from "../../src/schema/formats/index.js";
import { punycodeDecode, punycodeEncode } from "../../src/schema/formats/punycode.js";
import { suiteDir } from "../helpers/suites.js";

// These tests reach what only full schema support has (formats, @cfworker,
// the carried metaschemas); the core alone is tested in full-support.test.ts.
await loadFullSchemaSupport();

const { dir, present } = suiteDir("JSON-Schema-Test-Suite");

/** The formats issue 15 lists: each must be checked, never refused. */
const LISTED = [
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uuid",
  "json-pointer",
  "relative-json-pointer",
  "regex",
  "uri-template",
];

describe.skipIf(!present)("formats asserted over the JSON Schema Test Suite's optional/format tests", () => {
  const reports = present ? runFormatConformance(dir) : [];

  it("gives no wrong answer in draft7 and draft2020-12", () => {
    expect(reports.map((r) => r.dir)).toEqual(["draft2020-12", "draft7"]);
    for (const r of reports) for (const f of r.files) expect(f.failed, `${r.dir} ${f.file}`).toEqual([]);
  });

  it("checks every listed format (none refused), and refuses only idn-email and idn-hostname", () => {
    const figures = Object.fromEntries(
      reports.map((r) => [r.dir, Object.fromEntries(r.files.map((f) => [f.file.replace(/\.json$/, ""), [f.passed, f.failed.length, f.refused.reduce((n, c) => n + c.tests, 0)]]))]),
    );
    expect(figures["draft2020-12"]).toEqual({
      "date-time": [33, 0, 0],
      date: [81, 0, 0],
      duration: [52, 0, 0],
      "ecmascript-regex": [12, 0, 0],
      email: [27, 0, 0],
      hostname: [64, 0, 0],
      "idn-email": [0, 0, 18],
      "idn-hostname": [0, 0, 90],
      ipv4: [41, 0, 0],
      ipv6: [42, 0, 0],
      "iri-reference": [13, 0, 0],
      iri: [24, 0, 0],
      "json-pointer": [40, 0, 0],
      regex: [8, 0, 0],
      "relative-json-pointer": [25, 0, 0],
      time: [47, 0, 0],
      unknown: [7, 0, 0],
      "uri-reference": [28, 0, 0],
      "uri-template": [38, 0, 0],
      uri: [46, 0, 0],
      uuid: [28, 0, 0],
    });
    expect(figures["draft7"]).toEqual({
      "date-time": [33, 0, 0],
      date: [81, 0, 0],
      "ecmascript-regex": [12, 0, 0],
      email: [20, 0, 0],
      hostname: [64, 0, 0],
      "idn-email": [0, 0, 18],
      "idn-hostname": [0, 0, 89],
      ipv4: [41, 0, 0],
      ipv6: [42, 0, 0],
      "iri-reference": [13, 0, 0],
      iri: [24, 0, 0],
      "json-pointer": [40, 0, 0],
      regex: [8, 0, 0],
      "relative-json-pointer": [25, 0, 0],
      time: [47, 0, 0],
      unknown: [7, 0, 0],
      "uri-reference": [28, 0, 0],
      "uri-template": [38, 0, 0],
      uri: [46, 0, 0],
    });
    for (const r of reports) {
      for (const f of r.files) for (const c of f.refused) expect(c.message).toMatch(/format "idn-(email|hostname)" cannot be checked exactly/);
    }
  });
});

describe("the format checkers", () => {
  it("cover every listed format, and no other standard format but the two unchecked", () => {
    for (const name of LISTED) expect(formatSupport(name), name).toBe("checked");
    expect(Object.keys(FORMAT_CHECKERS).sort()).toEqual([...LISTED].sort());
    expect(UNCHECKED_FORMATS).toEqual(["idn-email", "idn-hostname"]);
    for (const name of ["cuid", "cuid2", "emoji", "nanoid", "jwt", "base64", "cidrv4", "url", "unknown"]) expect(formatSupport(name), name).toBe("annotation");
  });

  it("date-time, date, time, duration: RFC 3339, leap seconds at 23:59:60 UTC only", () => {
    const ok = (f: string, s: string): boolean => FORMAT_CHECKERS[f]!(s);
    expect(ok("date", "2024-02-29")).toBe(true);
    expect(ok("date", "2023-02-29")).toBe(false);
    expect(ok("date", "2000-02-29")).toBe(true);
    expect(ok("date", "1900-02-29")).toBe(false);
    expect(ok("date-time", "1985-04-12T23:20:50.52Z")).toBe(true);
    expect(ok("date-time", "1985-04-12t23:20:50.52z")).toBe(true);
    expect(ok("date-time", "1985-04-12 23:20:50Z")).toBe(false);
    expect(ok("date-time", "1990-12-31T15:59:60-08:00")).toBe(true);
    expect(ok("date-time", "1990-12-31T15:59:60-07:00")).toBe(false);
    expect(ok("time", "00:00:60+00:01")).toBe(true);
    expect(ok("duration", "P3Y6M4DT12H30M5S")).toBe(true);
    expect(ok("duration", "p1d")).toBe(true); // ABNF strings are case-insensitive
    expect(ok("duration", "P1Y2D")).toBe(false);
  });

  it("email: RFC 5321 Mailbox, address literals by section 4.1.3", () => {
    const email = FORMAT_CHECKERS["email"]!;
    expect(email("not-an-email")).toBe(false);
    expect(email("a.b+tag@example.com")).toBe(true);
    expect(email('"a\\"b"@example.com')).toBe(true);
    expect(email("a@[IPv6:1:2:3:4:5:6::]")).toBe(true);
    // RFC 5321: "::" stands for at least two groups, so seven groups and "::" is not an address literal.
    expect(email("a@[IPv6:1:2:3:4:5:6:7::]")).toBe(false);
    expect(email("a@[tag:content]")).toBe(false);
    expect(email("a@[001.2.3.4]")).toBe(true); // Snum allows leading zeros
    expect(email("a@-example.com")).toBe(false);
  });

  it("ipv4, ipv6, uri, uri-reference, iri, uri-template, uuid, pointers, regex", () => {
    const ok = (f: string, s: string): boolean => FORMAT_CHECKERS[f]!(s);
    expect(ok("ipv4", "192.168.0.1")).toBe(true);
    expect(ok("ipv4", "192.168.0.01")).toBe(false);
    expect(ok("ipv6", "1:2:3:4:5:6:7::")).toBe(true);
    expect(ok("ipv6", "::ffff:192.0.2.1")).toBe(true);
    expect(ok("ipv6", "1.2.3.4::")).toBe(false);
    expect(ok("ipv6", "fe80::1%eth0")).toBe(false);
    expect(ok("uri", "https://user@example.com:8080/a/b?q=1#f")).toBe(true);
    expect(ok("uri", "not a uri")).toBe(false);
    expect(ok("uri", "/relative")).toBe(false);
    expect(ok("uri-reference", "/relative")).toBe(true);
    expect(ok("uri-reference", "a:b:c")).toBe(true);
    expect(ok("uri-reference", ":b")).toBe(false);
    expect(ok("uri", "http://例え.jp/")).toBe(false);
    expect(ok("iri", "http://例え.jp/")).toBe(true);
    expect(ok("iri", "http://example.com/?\u{E000}")).toBe(true);
    expect(ok("iri", "http://example.com/#\u{E000}")).toBe(false);
    expect(ok("uri-template", "/users/{id}{?fields*,page:3}")).toBe(true);
    expect(ok("uri-template", "/users/{id")).toBe(false);
    expect(ok("uuid", "123e4567-e89b-12d3-a456-426614174000")).toBe(true);
    expect(ok("json-pointer", "/a~1b/~0")).toBe(true);
    expect(ok("json-pointer", "a")).toBe(false);
    expect(ok("relative-json-pointer", "0#")).toBe(true);
    expect(ok("regex", "^[a-z]+$")).toBe(true);
    expect(ok("regex", "(")).toBe(false);
  });

  it("hostname: RFC 1123, A-labels checked by IDNA2008 and the Bidi rule", () => {
    const hostname = FORMAT_CHECKERS["hostname"]!;
    expect(hostname("www.example.com")).toBe(true);
    expect(hostname("EXAMPLE.com")).toBe(true);
    expect(hostname("münchen.de")).toBe(false); // a U-label is not a hostname; its A-label is
    expect(hostname("xn--mnchen-3ya.de")).toBe(true);
    expect(hostname("XN--MNCHEN-3YA.de")).toBe(true);
    expect(hostname("xn--mnchen-3yA.de")).toBe(true); // Punycode digits are case-insensitive
    // Host names are case-insensitive (RFC 4343): an A-label is read in lower case, as IDNA2008's authors advise.
    expect(hostname("xn--Mnchen-3ya.de")).toBe(true);
    expect(hostname("xn--mnchen-3ya-.de")).toBe(false); // a label may not end with a hyphen
    expect(hostname("xn--X")).toBe(false);
    expect(hostname("xn--4db.example")).toBe(true); // א: a right-to-left label among left-to-right ones
    expect(hostname("xn--4db.0example")).toBe(false); // a Bidi domain name: a label may not begin with a digit
    expect(hostname("0example.com")).toBe(true); // ... which is fine in a name without right-to-left labels
  });

  it("Punycode: the samples of RFC 3492, section 7.1, both ways", () => {
    const samples: [string, string][] = [
      ["\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F", "egbpdaj6bu4bxfgehfvwxn"],
      ["\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587", "ihqwcrb4cv8a8dqg056pqjye"],
      ["3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"],
      ["\u00FC", "tda"],
    ];
    for (const [u, a] of samples) {
      expect(punycodeEncode(Array.from(u, (c) => c.codePointAt(0)!))).toBe(a); // basic code points keep their case
      expect(String.fromCodePoint(...punycodeDecode(a)!)).toBe(u);
    }
    expect(punycodeDecode("99999999999999999999")).toBeUndefined(); // overflow
  });
});

describe("compileSchema: formats", () => {
  it("follows the draft by default, checks exactly when asked, and refuses what it cannot check exactly", () => {
    expect(compileSchema({ format: "email" }).validate("nope").valid).toBe(true);
    expect(compileSchema({ format: "email" }, { assertFormats: true }).validate("nope").valid).toBe(false);
    // Draft-07 asserts by default, now with the exact checkers: this A-label is not valid Punycode.
    expect(compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", format: "hostname" }).validate("xn--X").valid).toBe(false);
    expect(compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", format: "uri-template" }).validate("a'b").valid).toBe(true);
    // Draft-07 may check a subset: idn-hostname stays an annotation there, unless every format must assert.
    expect(compileSchema({ $schema: "http://json-schema.org/draft-07/schema#", format: "idn-hostname" }).validate("-").valid).toBe(true);
    let error: unknown;
    try {
      compileSchema({ properties: { host: { format: "idn-hostname" } } }, { assertFormats: true });
    } catch (e) {
      error = e;
    }
    expect(isIsoagentError(error, "SCHEMA_UNSUPPORTED_KEYWORD")).toBe(true);
    expect((error as Error).message).toBe(
      'schema uses a keyword the validator cannot evaluate correctly: format "idn-hostname" cannot be checked exactly, and a format is never approximated (at /properties/host/format)',
    );
    // Formats no draft defines are annotations, asserted or not.
    expect(compileSchema({ format: "cuid" }, { assertFormats: true }).validate("!").valid).toBe(true);
    expect(compileSchema({ format: "url" }, { assertFormats: true }).validate("not a url").valid).toBe(true);
  });

  it("checks formats the same way in both evaluators, with the same issue", () => {
    const schema = { type: "object", properties: { to: { type: "string", format: "email" } }, unevaluatedProperties: false };
    const reference = compileSchema(schema, { assertFormats: true });
    expect(reference.evaluator).toBe("reference");
    const fast = compileSchema({ type: "object", properties: { to: { type: "string", format: "email" } } }, { assertFormats: true });
    expect(fast.evaluator).toBe("fast");
    const issue = { keyword: "format", instanceLocation: "/to", keywordLocation: "/properties/to/format", message: "must be a valid email" };
    // (@cfworker also reports the failing property as unevaluated.)
    expect(reference.validate({ to: "not-an-email" }).issues).toContainEqual(issue);
    expect(reference.validate({ to: "a@example.com" }).valid).toBe(true);
    expect(fast.validate({ to: "not-an-email" }).issues).toEqual([issue]);
    // An A-label @cfworker/json-schema's own hostname check would accept.
    const host = { type: "object", properties: { h: { format: "hostname" } }, unevaluatedProperties: false };
    expect(compileSchema(host, { assertFormats: true }).validate({ h: "xn--X" }).valid).toBe(false);
    // The caller's copy keeps the format's own name.
    expect(reference.schema).toEqual(schema);
  });
});
