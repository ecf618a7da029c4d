import { describe, expect, it } from "vitest";
import { backoffMs, resolveRetry, retryableStatus, retryAfterMs } from "../../src/retry.js";
import type { ModelResponse } from "../../src/agents/model/transport.js";
import { cleanMessage } from "../../src/agents/model/agent.js";
import { strictCompatible } from "../../src/agents/openai/index.js";

const res = (status: number, headers: Record<string, string> = {}): ModelResponse => ({
  status,
  header: (n) => headers[n.toLowerCase()] ?? null,
  body: { async *[Symbol.asyncIterator]() {} },
});

describe("retry rules (as the official SDKs have them)", () => {
  it("retries 408, 409, 429 and 5xx, and what x-should-retry says", () => {
    expect([400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503, 529].filter((s) => retryableStatus(res(s)))).toEqual([408, 409, 429, 500, 503, 529]);
    expect(retryableStatus(res(400, { "x-should-retry": "true" }))).toBe(true);
    expect(retryableStatus(res(503, { "x-should-retry": "false" }))).toBe(false);
  });

  it("reads retry-after-ms, retry-after in seconds, and retry-after as an HTTP date", () => {
    const now = Date.parse("2026-11-30T10:00:00Z");
    expect(retryAfterMs(res(429, { "retry-after-ms": "250.5" }), now)).toBe(251);
    expect(retryAfterMs(res(429, { "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(res(429, { "retry-after": "Mon, 30 Nov 2026 10:00:07 GMT" }), now)).toBe(7000);
    expect(retryAfterMs(res(429, { "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(res(429), now)).toBeUndefined();
  });

  it("backs off exponentially to a cap, with up to 25% jitter off", () => {
    const r = resolveRetry({ random: () => 0 });
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(r, n))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(resolveRetry({ random: () => 0.999999 }), 0)).toBe(375);
  });

  it("keeps keys and key-shaped strings out of messages, and bounds them", () => {
    expect(cleanMessage("Incorrect API key provided: sk-proj-****abcd. And my-secret-value too", ["my-secret-value"])).toBe("Incorrect API key provided: [REDACTED]. And [REDACTED] too");
    expect(cleanMessage("x".repeat(600), []).length).toBe(501);
  });
});

describe("strictCompatible", () => {
  it("allows strict mode only for closed objects with every property required and the keywords every version supports", () => {
    const closed = { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { type: "integer" } } }, required: ["a", "b"], additionalProperties: false };
    expect(strictCompatible(closed)).toBe(true);
    expect(strictCompatible({ ...closed, required: ["a"] })).toBe(false);
    expect(strictCompatible({ ...closed, additionalProperties: true })).toBe(false);
    expect(strictCompatible({ ...closed, properties: { a: { type: "string", pattern: "^x" }, b: closed.properties.b } })).toBe(false);
    expect(strictCompatible({ anyOf: [closed] })).toBe(false);
    expect(strictCompatible({ ...closed, properties: { a: {}, b: closed.properties.b } })).toBe(false);
  });
});
