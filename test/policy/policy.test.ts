import { describe, expect, it } from "vitest";
import { allOf, pathScopePolicy, rulesPolicy, workspacePolicy, type PolicyRequest } from "../../src/index.js";
import { evaluatePolicy, globMatch, normalizeDecision, strictest } from "../../src/policy/index.js";

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

describe("fail-closed evaluation", () => {
  it("takes exactly allow, ask or deny; anything else denies with the fault as the reason", () => {
    const cases: [unknown, unknown][] = [
      [{ permission: "allow" }, { permission: "allow" }],
      [
        { permission: "ask", reason: "why" },
        { permission: "ask", reason: "why" },
      ],
      [{ permission: "ALLOW" }, { permission: "deny", reason: 'policy returned an unknown permission "ALLOW"; a policy answers allow, ask or deny' }],
      [{ permission: 1 }, { permission: "deny", reason: "policy returned an unknown permission a number; a policy answers allow, ask or deny" }],
      [{}, { permission: "deny", reason: "policy returned an unknown permission undefined; a policy answers allow, ask or deny" }],
      [null, { permission: "deny", reason: "policy returned null; a policy answers { permission: allow | ask | deny }" }],
      ["allow", { permission: "deny", reason: 'policy returned "allow"; a policy answers { permission: allow | ask | deny }' }],
      [Promise.reject(new Error("x")), { permission: "deny", reason: "policy returned a Promise; policies are synchronous" }],
      [
        {
          get permission() {
            throw new Error("trap");
          },
        },
        { permission: "deny", reason: "the policy threw; a policy that cannot decide denies" },
      ],
    ];
    for (const [answer, want] of cases) expect(normalizeDecision(answer)).toEqual(want);
    expect(
      evaluatePolicy(() => {
        throw new Error("x");
      }, req()),
    ).toEqual({ permission: "deny", reason: "the policy threw; a policy that cannot decide denies" });
    // strictest ranks anything unknown as deny.
    expect(strictest("allow", "block" as never)).toBe("deny");
  });

  it("refuses a rule it cannot mean when the policy is made (POLICY_INVALID)", () => {
    expect(() => rulesPolicy([{ permission: "block" as never }])).toThrow('rule 1: permission must be allow, ask or deny, not "block"');
    expect(() => rulesPolicy([{ permission: "deny", sideEffect: "writes" as never }])).toThrow("rule 1: sideEffect must be side-effect classes");
    expect(() => rulesPolicy([], { otherwise: "maybe" as never })).toThrow('otherwise must be allow, ask or deny, not "maybe"');
  });

  it("applies only resource rules to what a running call discovers (stage discovered)", () => {
    const policy = rulesPolicy([
      { sideEffect: "local_mutation", permission: "ask" },
      { resource: { kind: "path", match: "**/.env" }, permission: "deny" },
    ]);
    expect(policy(req({ stage: "discovered", resources: [{ kind: "path", value: "a.md" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ stage: "discovered", resources: [{ kind: "path", value: "x/.env" }] }))).toEqual({ permission: "deny", reason: undefined });
    expect(policy(req())).toEqual({ permission: "ask", reason: undefined });
  });
});

describe("workspacePolicy: a hard workspace boundary", () => {
  const path = (value: string, operation?: "read" | "write" | "delete") => req({ resources: [{ kind: "path", value, ...(operation === undefined ? {} : { operation }) }] });
  it("denies any path outside the workspace, or that could name something else", () => {
    const policy = workspacePolicy();
    for (const p of ["/etc/passwd", "../x", "a/../../x", "~/.ssh/id_rsa", "C:/x", "file:///etc/passwd", "a\\b", "a\u0000b", "/workspacex/a"]) {
      expect(policy(path(p)), p).toEqual({ permission: "deny", reason: "outside the workspace" });
    }
    for (const p of ["a.md", "/workspace/a.md", "/workspace", "", "/", "notes/", "./a.md"]) expect(policy(path(p)), p).toEqual({ permission: "allow" });
  });

  it("denies and asks by glob, relative to the workspace root", () => {
    const policy = workspacePolicy({ deny: ["**/.env", "secrets/**"], ask: ["package.json"] });
    expect(policy(path("app/.env"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(policy(path("/workspace/secrets/k.txt"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(policy(path("secrets/"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(policy(path("package.json"))).toEqual({ permission: "ask", reason: "the workspace policy asks for approval" });
    expect(policy(path("src/a.ts"))).toEqual({ permission: "allow" });
  });

  it("grants: left out is no allowlist; [] denies every grant-checked request; given, write, delete, network and execute need one", () => {
    const write = path("docs/a.md", "write");
    expect(workspacePolicy()(write)).toEqual({ permission: "allow" });
    expect(workspacePolicy({ grants: [] })(write)).toEqual({ permission: "deny", reason: "no grant allows write there" });
    expect(workspacePolicy({ grants: [] })(path("docs/a.md", "read"))).toEqual({ permission: "allow" });
    const policy = workspacePolicy({
      grants: [
        { operation: "write", match: "docs/**" },
        { operation: "network", match: "*.example.com" },
        { operation: "execute", match: "git status*" },
      ],
    });
    expect(policy(write)).toEqual({ permission: "allow" });
    expect(policy(path("docs/a.md", "delete"))).toEqual({ permission: "deny", reason: "no grant allows delete there" });
    expect(policy(path("src/a.ts", "write"))).toEqual({ permission: "deny", reason: "no grant allows write there" });
    // A path without an operation is written by any tool that is not read_only.
    expect(policy(req({ resources: [{ kind: "path", value: "src/a.ts" }] }))).toEqual({ permission: "deny", reason: "no grant allows write there" });
    expect(policy(req({ sideEffect: "read_only", resources: [{ kind: "path", value: "src/a.ts" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ resources: [{ kind: "host", value: "API.Example.com" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ resources: [{ kind: "host", value: "evil.test" }] }))).toEqual({ permission: "deny", reason: "no grant allows network there" });
    expect(policy(req({ resources: [{ kind: "command", value: "git status --short" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ resources: [{ kind: "command", value: "rm -rf /" }] }))).toEqual({ permission: "deny", reason: "no grant allows execute there" });
  });

  it("asks for side effects and commands on whole calls, not on what a running call discovers", () => {
    const policy = workspacePolicy({ askForSideEffects: true, requireCommandApproval: true });
    expect(policy(req())).toEqual({ permission: "ask", reason: "local_mutation calls need an operator's approval" });
    expect(policy(req({ sideEffect: "read_only" }))).toEqual({ permission: "allow" });
    expect(policy(req({ sideEffect: "read_only", resources: [{ kind: "command", value: "ls" }] }))).toEqual({ permission: "ask", reason: "commands need an operator's approval" });
    expect(policy(req({ stage: "discovered" }))).toEqual({ permission: "allow" });
    expect(workspacePolicy({ askForSideEffects: ["destructive"] })(req())).toEqual({ permission: "allow" });
  });

  it("refuses options it cannot mean", () => {
    expect(() => workspacePolicy({ root: "workspace" })).toThrow("root must be an absolute path");
    expect(() => workspacePolicy({ grants: [{ operation: "fly" as never, match: "x" }] })).toThrow("grant 1: operation must be read, write, delete, network or execute");
    expect(() => workspacePolicy({ grants: {} as never })).toThrow("grants must be a list");
    expect(() => workspacePolicy({ deny: [""] })).toThrow("deny must be a list of globs");
  });
});

describe("pathScopePolicy: explicitly approved paths", () => {
  const policy = pathScopePolicy({ scopes: [{ path: "/workspace" }, { path: "/home/ana/reference", operations: ["read"] }] });
  const path = (value: string, operation: "read" | "write") => req({ resources: [{ kind: "path", value, operation }] });
  it("allows an operation only inside a scope that allows it, and denies everything else", () => {
    expect(policy(path("notes/a.md", "write"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference/book.md", "read"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference/book.md", "write"))).toEqual({ permission: "deny", reason: "outside the approved paths for write" });
    expect(policy(path("/home/ana/referenced/x", "read"))).toEqual({ permission: "deny", reason: "outside the approved paths for read" });
    expect(policy(path("/home/ana/reference/../secret", "read"))).toEqual({ permission: "deny", reason: "outside the approved paths for read" });
    expect(policy(req({ resources: [{ kind: "host", value: "x" }] }))).toEqual({ permission: "allow" });
    expect(() => pathScopePolicy({ scopes: [{ path: "relative" }] })).toThrow("scope 1: path must be an absolute path");
  });
});
