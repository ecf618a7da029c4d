import { describe, expect, it } from "vitest";
import { allOf, globMatch, rulesPolicy, strictest, type PolicyRequest } from "../../src/index.js";

const req = (over: Partial<PolicyRequest> = {}): PolicyRequest => ({ tool: "write_file", sideEffect: "local_mutation", args: {}, resources: [{ kind: "path", value: "notes/a.md" }], ...over });

describe("globs", () => {
  it("match paths: * within a segment, ** across, ? one character, the rest literal", () => {
    const cases: [string, string, boolean][] = [
      ["notes/*.md", "notes/a.md", true],
      ["notes/*.md", "notes/sub/a.md", false],
      ["notes/**", "notes/sub/a.md", true],
      ["notes/**/a.md", "notes/a.md", true],
      ["notes/**/a.md", "notes/x/y/a.md", true],
      ["**/.env", "app/.env", true],
      ["**/.env", ".env", true],
      ["a?.md", "ab.md", true],
      ["a?.md", "a/.md", false],
      ["a.md", "aXmd", false],
      ["(x)+[y]", "(x)+[y]", true],
      ["*.example.com", "api.example.com", true],
      ["*.example.com", "example.com", false],
    ];
    for (const [glob, value, want] of cases) expect(globMatch(glob, value), `${glob} ~ ${value}`).toBe(want);
  });
});

describe("policies, composed conservatively", () => {
  it("the strictest permission wins: deny over ask over allow", () => {
    expect([strictest("allow", "ask"), strictest("deny", "ask"), strictest("allow", "allow")]).toEqual(["ask", "deny", "allow"]);
  });

  it("rules match on tool, side effect and resources; the strictest matching rule decides", () => {
    const policy = rulesPolicy([
      { tool: "write_*", permission: "ask", reason: "writes need a person" },
      { resource: { kind: "path", match: "**/.env" }, permission: "deny", reason: "environment files" },
      { sideEffect: ["destructive"], permission: "deny" },
    ]);
    expect(policy(req())).toEqual({ permission: "ask", reason: "writes need a person" });
    expect(policy(req({ resources: [{ kind: "path", value: "app/.env" }] }))).toEqual({ permission: "deny", reason: "environment files" });
    expect(policy(req({ tool: "read_file", sideEffect: "read_only" }))).toEqual({ permission: "allow" });
    expect(policy(req({ tool: "shred", sideEffect: "destructive" }))).toEqual({ permission: "deny", reason: undefined });
    expect(rulesPolicy([], { otherwise: "ask" })(req())).toEqual({ permission: "ask" });
  });

  it("allOf: allow only when every policy allows", () => {
    const allow = () => ({ permission: "allow" as const });
    const ask = () => ({ permission: "ask" as const, reason: "second opinion" });
    const deny = () => ({ permission: "deny" as const, reason: "no" });
    expect(allOf(allow, allow)(req())).toEqual({ permission: "allow" });
    expect(allOf(allow, ask)(req())).toEqual({ permission: "ask", reason: "second opinion" });
    expect(allOf(ask, deny, allow)(req())).toEqual({ permission: "deny", reason: "no" });
  });
});
