/**
 * Policy behaviours pinned for mutation testing (issue 21): each test names
 * the behaviour, and a comment says which of src/policy's mutants it kills
 * (file:line, as test/mutation/summary.md lists them).
 *
 * Policies are made inside the tests, not in a describe body: Stryker turns a
 * mutant on for a test, so code run while the file is collected runs unmutated.
 */
import { describe, expect, it } from "vitest";
import { allOf, pathScopePolicy, rulesPolicy, workspacePolicy, type Policy, type PolicyRequest, type ResourceRef } from "../../src/index.js";
import { globMatch, compileGlob, normalizeDecision, PolicyError, strictest } from "../../src/policy/index.js";

const req = (over: Partial<PolicyRequest> = {}): PolicyRequest => ({ tool: "write_file", sideEffect: "local_mutation", args: {}, resources: [{ kind: "path", value: "notes/a.md" }], ...over });
const path = (value: string, operation?: ResourceRef["operation"]) => req({ resources: [{ kind: "path", value, ...(operation === undefined ? {} : { operation }) }] });

/** What `make` throws: a PolicyError (POLICY_INVALID) with exactly `message`. */
function refusal(make: () => unknown): { name: string; code: string; message: string } {
  try {
    make();
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    const { name, code, message } = e as PolicyError;
    return { name, code, message };
  }
  throw new Error("not refused");
}
const refused = (message: string) => ({ name: "PolicyError", code: "POLICY_INVALID", message });

describe("globs", () => {
  it("anchor at both ends: a glob matches a whole value, not a part of it", () => {
    // glob.ts:12 ("^" → ""): unanchored at the start.
    expect(globMatch("a.md", "xa.md")).toBe(false);
    expect(globMatch("notes/*.md", "old/notes/a.md")).toBe(false);
    expect(globMatch("a.md", "a.md")).toBe(true);
  });

  it("**/ is a run of whole folders: **/.env does not match app.env", () => {
    // glob.ts:16 (glob[k + 1] → glob[k - 1]): "**/" became "*" then "*", the slash dropped.
    expect(globMatch("**/.env", "app.env")).toBe(false);
    expect(globMatch("**/x", "ax")).toBe(false);
    expect(globMatch("**/x", "a/b/x")).toBe(true);
  });

  it("** not followed by a slash matches across folders, at the end or inside a name", () => {
    // glob.ts:21 (the "**" block → {}: it became two "*", neither crossing a slash). The globs are
    // used nowhere else: a glob compiled by an earlier test comes from the cache, unmutated.
    expect(globMatch("double-star-tail/**", "double-star-tail/a/b.md")).toBe(true);
    expect(globMatch("double-star**inside", "double-star/a/b/inside")).toBe(true);
    expect(globMatch("double-star**inside", "double-star/a/b/outside")).toBe(false);
  });

  it("? is one character, not one UTF-16 code unit (an emoji is one)", () => {
    // glob.ts:34 (flag "u" → ""): without it, [^/] matches half a surrogate pair.
    expect(globMatch("?", "😀")).toBe(true);
    expect(globMatch("a?.md", "a😀.md")).toBe(true);
    expect(globMatch("?", "😀😀")).toBe(false);
  });

  it("compiles a glob once: the same regular expression comes back", () => {
    // glob.ts:11 (the cache hit → false) and glob.ts:36 (cache.set removed): a new RegExp each time.
    const re = compileGlob("compiled-once/**");
    expect(compileGlob("compiled-once/**")).toBe(re);
    // (Nothing is compiled between the two: a new glob could find the bounded cache full and empty it.)
    expect(compileGlob("compiled-once-other")).not.toBe(re);
  });

  it("the cache is bounded: once it holds 1001 globs, the next new glob empties it", () => {
    // glob.ts:35 (cache.size > 1000 → true, false, >= 1000, <= 1000; cache.clear() removed).
    // A sentinel glob's RegExp changes identity exactly when the cache was emptied.
    let n = 0;
    const fill = () => compileGlob(`cache-fill-${n++}`);
    let sentinel = compileGlob("cache-sentinel");
    // Fill until the cache is emptied once (it may hold up to 1001 globs from the tests before).
    let guard = 0;
    while (compileGlob("cache-sentinel") === sentinel) {
      fill();
      expect(++guard, "the cache was never emptied").toBeLessThanOrEqual(1002);
    }
    // Now it holds the last fill and the sentinel: 2 globs; count new globs until it is emptied again.
    sentinel = compileGlob("cache-sentinel");
    let added = 0;
    do {
      fill();
      added++;
    } while (compileGlob("cache-sentinel") === sentinel && added <= 1002);
    // 2 + 999 = 1001 globs held; the 1000th new one finds more than 1000 and empties the cache.
    expect(added).toBe(1000);
  });
});

describe("a glob too long to match", () => {
  const long = "*a".repeat(600);
  const shown = JSON.stringify(`${long.slice(0, 40)}…`);
  const why = "(its pattern expands to more than 1000 steps (each repetition counts its copies: a{1000} is 1,000))";

  it("is refused with its first 40 characters and where it is", () => {
    expect(refusal(() => compileGlob(long))).toEqual(refused(`glob: the glob ${shown} is too long to match ${why}`));
    expect(refusal(() => compileGlob(long, "grant 3"))).toEqual(refused(`grant 3: the glob ${shown} is too long to match ${why}`));
  });

  it("is refused when the policy is made, as a rule's tool or its resource, not at its first call", () => {
    expect(refusal(() => rulesPolicy([{ permission: "deny" }, { tool: long, permission: "deny" }]))).toEqual(refused(`rule 2: the glob ${shown} is too long to match ${why}`));
    expect(refusal(() => rulesPolicy([{ resource: { kind: "path", match: long }, permission: "deny" }]))).toEqual(refused(`rule 1: the glob ${shown} is too long to match ${why}`));
    expect(
      refusal(() =>
        workspacePolicy({
          grants: [
            { match: "notes/**", operation: "read" },
            { match: long, operation: ["read", "write"] },
          ],
        }),
      ),
    ).toEqual(refused(`grant 2: the glob ${shown} is too long to match ${why}`));
  });
});

describe("rulesPolicy", () => {
  it("refuses rules that are not objects", () => {
    // policy.ts:159 (the check → false, || → &&, each side → false; its message).
    expect(refusal(() => rulesPolicy([null as never]))).toEqual(refused("rule 1 must be an object"));
    expect(refusal(() => rulesPolicy([{ permission: "deny" }, "deny" as never]))).toEqual(refused("rule 2 must be an object"));
  });

  it("refuses a tool matcher that is not a glob", () => {
    // policy.ts:161 (the tool check → false, its block → {}) and policy.ts:162 (→ false; its message).
    expect(refusal(() => rulesPolicy([{ tool: 5 as never, permission: "deny" }]))).toEqual(refused("rule 1: tool must be a glob"));
  });

  it("refuses a side-effect list with any class that is not one", () => {
    // policy.ts:167 (some → every).
    expect(refusal(() => rulesPolicy([{ sideEffect: ["destructive", "writes" as never], permission: "deny" }]))).toEqual(refused("rule 1: sideEffect must be side-effect classes"));
  });

  it("refuses a resource matcher without a kind or a match", () => {
    // policy.ts:169 (the check → false, || → &&, each side → false, resource?.kind → resource.kind; its message).
    expect(refusal(() => rulesPolicy([{ resource: { kind: "path" } as never, permission: "deny" }]))).toEqual(refused("rule 1: resource must be { kind, match }"));
    expect(refusal(() => rulesPolicy([{ resource: { match: "**" } as never, permission: "deny" }]))).toEqual(refused("rule 1: resource must be { kind, match }"));
    expect(refusal(() => rulesPolicy([{ resource: null as never, permission: "deny" }]))).toEqual(refused("rule 1: resource must be { kind, match }"));
  });

  it("refuses a reason that is not text", () => {
    // policy.ts:172 (→ false; its message).
    expect(refusal(() => rulesPolicy([{ permission: "deny", reason: 5 as never }]))).toEqual(refused("rule 1: reason must be text"));
  });

  it("refuses rules that are not a list", () => {
    // policy.ts:192 (→ false; its message).
    expect(refusal(() => rulesPolicy({} as never))).toEqual(refused("rules must be a list"));
    expect(refusal(() => rulesPolicy("deny" as never))).toEqual(refused("rules must be a list"));
  });

  it("PolicyError is an IsoagentError named PolicyError with code POLICY_INVALID", () => {
    // policy.ts:63 ("POLICY_INVALID" → "") and policy.ts:64 ("PolicyError" → "").
    const e = new PolicyError("x");
    expect([e.name, e.code, e.message]).toEqual(["PolicyError", "POLICY_INVALID", "x"]);
  });

  it("matches a rule's side effect as a whole class name, not a part of one", () => {
    // policy.ts:147 (typeof … === "string" → false, "string" → ""): a single class was then
    // searched as text, so "local_mutation" contained "local".
    const policy = rulesPolicy([{ sideEffect: "local_mutation", permission: "deny" }]);
    expect(policy(req({ sideEffect: "local" as never }))).toEqual({ permission: "allow" });
    expect(policy(req())).toEqual({ permission: "deny", reason: undefined });
  });

  it("among matching rules with the strictest permission, the first gives the reason", () => {
    // policy.ts:201 (rank > → >=: the last one would).
    const policy = rulesPolicy([
      { tool: "write_*", permission: "deny", reason: "first" },
      { resource: { kind: "path", match: "notes/**" }, permission: "deny", reason: "second" },
      { tool: "*", permission: "ask", reason: "third" },
    ]);
    expect(policy(req())).toEqual({ permission: "deny", reason: "first" });
  });
});

describe("allOf", () => {
  const ask =
    (reason: string): Policy =>
    () => ({ permission: "ask", reason });
  const allow: Policy = () => ({ permission: "allow" });

  it("keeps a stricter answer against a later laxer one, and the first of equally strict ones", () => {
    // policy.ts:217 (rank > → true: the last answer would win; → >=: the last of equals would).
    expect(allOf(ask("first"), allow)(req())).toEqual({ permission: "ask", reason: "first" });
    expect(allOf(ask("first"), ask("second"))(req())).toEqual({ permission: "ask", reason: "first" });
  });

  it("stops at the first denial: later policies are not consulted", () => {
    // policy.ts:218 (the break → false, "deny" → "").
    const asked: string[] = [];
    const deny: Policy = () => ({ permission: "deny", reason: "no" });
    const later: Policy = () => {
      asked.push("later");
      return { permission: "allow" };
    };
    expect(allOf(deny, later)(req())).toEqual({ permission: "deny", reason: "no" });
    expect(asked).toEqual([]);
  });
});

describe("answers and permissions taken fail-closed", () => {
  it("strictest ranks an object that only reads as a permission as deny", () => {
    // policy.ts:52 (typeof p === "string" && … → true, && → ||): an object whose text is
    // "allow" or "ask" would then rank as that permission.
    const lookalike = (p: string) => ({ toString: () => p }) as never;
    expect(strictest(lookalike("allow"), "allow")).toBe("deny");
    expect(strictest("allow", lookalike("ask"))).toBe("deny");
  });

  it("names an unknown permission in full up to 40 characters, and cut with … beyond", () => {
    // policy.ts:71 (v.length > 40 → false, >= 40; the cut and its "…").
    const forty = "p".repeat(40);
    expect(normalizeDecision({ permission: forty })).toEqual({ permission: "deny", reason: `policy returned an unknown permission "${forty}"; a policy answers allow, ask or deny` });
    expect(normalizeDecision({ permission: `${forty}q` })).toEqual({ permission: "deny", reason: `policy returned an unknown permission "${forty}…"; a policy answers allow, ask or deny` });
  });

  it("names a permission that is a list as an array", () => {
    // policy.ts:72 (→ false; "an array" → "").
    expect(normalizeDecision({ permission: ["allow"] })).toEqual({ permission: "deny", reason: "policy returned an unknown permission an array; a policy answers allow, ask or deny" });
  });

  it("denies an answer whose reason is not text, and says so", () => {
    // policy.ts:101 (its message → "").
    expect(normalizeDecision({ permission: "allow", reason: 5 })).toEqual({ permission: "deny", reason: "policy returned a reason that is not text" });
  });

  it("leaves the reason out of an answer that gave none (not a reason: undefined)", () => {
    // policy.ts:102 (reason === undefined → false: { permission, reason: undefined }).
    expect(Object.keys(normalizeDecision({ permission: "allow" }))).toEqual(["permission"]);
    expect(Object.keys(normalizeDecision({ permission: "ask", reason: "why" }))).toEqual(["permission", "reason"]);
  });
});

describe("workspacePolicy", () => {
  it("grant-checks a resource of any kind that declares an operation grants cover (fail closed), and leaves reads alone", () => {
    // workspace.ts grantChecked (includes(op) → true: reads denied; → false: a write to a table let through).
    const policy = workspacePolicy({ grants: [] });
    expect(policy(req({ resources: [{ kind: "table", value: "users", operation: "write" }] }))).toEqual({ permission: "deny", reason: "no grant allows write there" });
    expect(policy(req({ resources: [{ kind: "table", value: "users", operation: "read" }] }))).toEqual({ permission: "allow" });
  });

  it("does not grant-check a resource without an operation, whatever its kind is called", () => {
    // workspace.ts:41 (op !== undefined → true): GRANT_CHECKED["constructor"] is Object's, whose
    // `includes` is not a function; without the operation check first, that throws.
    const policy = workspacePolicy({ grants: [] });
    for (const kind of ["constructor", "toString", "table"]) expect(policy(req({ resources: [{ kind, value: "x" }] })), kind).toEqual({ permission: "allow" });
  });

  it("trims a path before judging it", () => {
    // workspace.ts:72 (value.trim() → value): " /etc/passwd" was a workspace key.
    const policy = workspacePolicy({ deny: ["secret.txt"] });
    expect(policy(path(" /etc/passwd"))).toEqual({ permission: "deny", reason: "outside the workspace" });
    expect(policy(path(" secret.txt "))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    // workspace.ts insideKey (value.trim() → value): spaces around "/" or a folder's slash are read as the tools read them.
    const folders = workspacePolicy({ deny: ["notes/"] });
    expect(folders(path("notes/ "))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(folders(path("notes"))).toEqual({ permission: "allow" });
    expect(folders(path(" / "))).toEqual({ permission: "allow" });
  });

  it("takes ~ alone as outside, and a colon after the first folder as part of a name", () => {
    // workspace.ts:73 (p === "~" → false; the drive and scheme patterns unanchored, or [^A-Za-z]).
    const policy = workspacePolicy();
    expect(policy(path("~"))).toEqual({ permission: "deny", reason: "outside the workspace" });
    for (const p of ["notes/a:b.md", "1:x.md", "notes/http://x"]) expect(policy(path(p)), p).toEqual({ permission: "allow" });
  });

  it("names the workspace root's folder as the empty key, however it is written", () => {
    // workspace.ts:75, 76 (the root's key "" → "Stryker was here!") and :86 (segments.length > 0 → >= 0:
    // "./" became the key "/"). "?**" matches every key with a name; "*/" every folder key.
    const named = workspacePolicy({ deny: ["?**"] });
    for (const p of ["/", "/workspace", "/workspace/", "", "./", "."]) expect(named(path(p)), p).toEqual({ permission: "allow" });
    expect(named(path("a"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    const folders = workspacePolicy({ ask: ["*/"] });
    for (const p of ["./", "/workspace/", "/"]) expect(folders(path(p)), p).toEqual({ permission: "allow" });
  });

  it("keeps a trailing slash only on a folder named with one", () => {
    // workspace.ts:86 (p.endsWith("/") && … → true: every key ended in "/").
    const policy = workspacePolicy({ ask: ["*/"] });
    expect(policy(path("notes/"))).toEqual({ permission: "ask", reason: "the workspace policy asks for approval" });
    for (const p of ["notes", "a.md", "/workspace/a.md"]) expect(policy(path(p)), p).toEqual({ permission: "allow" });
  });

  it("drops empty and . segments before matching globs", () => {
    // workspace.ts:82 (the skip → false, || → &&, each side → false, "" and "." changed).
    const policy = workspacePolicy({ deny: ["notes/a.md"] });
    for (const p of ["./notes/a.md", "notes//a.md", "notes/./a.md", "/workspace//notes/a.md", "notes/a.md/."]) {
      expect(policy(path(p)), p).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    }
  });

  it("matches a folder named with a slash against globs with it and without it", () => {
    // workspace.ts:172 (the trailing slash strip: /\/$/ → /\//, "" → "Stryker was here!"),
    // :174 (ask: key || bare → &&), :175 (grants: key || bare → &&).
    expect(workspacePolicy({ deny: ["a/b"] })(path("a/b/"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(workspacePolicy({ ask: ["notes"] })(path("notes/"))).toEqual({ permission: "ask", reason: "the workspace policy asks for approval" });
    expect(workspacePolicy({ grants: [{ operation: "write", match: "docs" }] })(path("docs/", "write"))).toEqual({ permission: "allow" });
  });

  it("refuses deny and ask lists with anything but non-empty globs", () => {
    // workspace.ts:91 (some → every; typeof g !== "string" → false) and :156 ("ask" → "").
    expect(refusal(() => workspacePolicy({ deny: ["a", ""] }))).toEqual(refused("deny must be a list of globs"));
    expect(refusal(() => workspacePolicy({ deny: [5 as never] }))).toEqual(refused("deny must be a list of globs"));
    expect(refusal(() => workspacePolicy({ deny: "secrets/**" as never }))).toEqual(refused("deny must be a list of globs"));
    expect(refusal(() => workspacePolicy({ ask: [""] }))).toEqual(refused("ask must be a list of globs"));
  });

  it("refuses a grant without operations it knows", () => {
    // workspace.ts:99 (g?.operation → g.operation, twice), :100 (each check → false, || → &&, some → every).
    const op = "grant 1: operation must be read, write, delete, network or execute";
    expect(refusal(() => workspacePolicy({ grants: [null as never] }))).toEqual(refused(op));
    expect(refusal(() => workspacePolicy({ grants: [{ operation: 5 as never, match: "x" }] }))).toEqual(refused(op));
    expect(refusal(() => workspacePolicy({ grants: [{ operation: [], match: "x" }] }))).toEqual(refused(op));
    expect(refusal(() => workspacePolicy({ grants: [{ operation: ["write", "fly" as never], match: "x" }] }))).toEqual(refused(op));
  });

  it("refuses a grant whose match is not a non-empty glob, naming the grant", () => {
    // workspace.ts:101 (each check → false, || → &&, "" → "Stryker was here!"; its message, k + 1 → k - 1).
    expect(
      refusal(() =>
        workspacePolicy({
          grants: [
            { operation: "write", match: "docs/**" },
            { operation: "write", match: 5 as never },
          ],
        }),
      ),
    ).toEqual(refused("grant 2: match must be a glob"));
    expect(refusal(() => workspacePolicy({ grants: [{ operation: "write", match: "" }] }))).toEqual(refused("grant 1: match must be a glob"));
  });

  it("takes askForSideEffects false as none, and refuses anything but true, false or classes", () => {
    // workspace.ts:107 (v === false → false) and :109 (→ false, || → &&, some → every, the test → undefined; its message).
    expect(workspacePolicy({ askForSideEffects: false })(req({ sideEffect: "destructive" }))).toEqual({ permission: "allow" });
    const message = "askForSideEffects must be true, false or side-effect classes";
    expect(refusal(() => workspacePolicy({ askForSideEffects: "destructive" as never }))).toEqual(refused(message));
    expect(refusal(() => workspacePolicy({ askForSideEffects: ["fly" as never] }))).toEqual(refused(message));
    expect(refusal(() => workspacePolicy({ askForSideEffects: ["destructive", "fly" as never] }))).toEqual(refused(message));
  });

  it("gives the reason of the first of equally strict findings", () => {
    // workspace.ts:121 (level > this.level → true, >=: a later finding's reason would replace it).
    const asks = workspacePolicy({ askForSideEffects: true, ask: ["notes/**"] });
    expect(asks(req())).toEqual({ permission: "ask", reason: "local_mutation calls need an operator's approval" });
    const denies = workspacePolicy({ deny: ["secrets/**"], grants: [] });
    expect(denies(path("secrets/k.txt", "write"))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(
      denies(
        req({
          resources: [
            { kind: "path", value: "/etc/passwd" },
            { kind: "path", value: "secrets/k" },
          ],
        }),
      ),
    ).toEqual({ permission: "deny", reason: "outside the workspace" });
  });

  it("stops at the first denied resource: the rest are not looked at", () => {
    // workspace.ts:126, 127 (denied → undefined, → false) and :181 (the break → false).
    const looked: string[] = [];
    const watched = {
      get kind() {
        looked.push("kind");
        return "path";
      },
      get value() {
        looked.push("value");
        return "a.md";
      },
    };
    const policy = workspacePolicy({ deny: ["secrets/**"], grants: [] });
    expect(policy(req({ resources: [{ kind: "path", value: "secrets/k" }, watched] }))).toEqual({ permission: "deny", reason: "denied by the workspace policy" });
    expect(policy(req({ resources: [{ kind: "host", value: "evil.test" }, watched] }))).toEqual({ permission: "deny", reason: "no grant allows network there" });
    expect(looked).toEqual([]);
  });

  it("strips any run of trailing slashes from the root", () => {
    // workspace.ts:153 (/\/+$/ → /\/$/; "" → "Stryker was here!").
    const policy = workspacePolicy({ root: "/srv/ws//" });
    for (const p of ["/srv/ws/a.md", "/srv/ws", "/srv/ws/"]) expect(policy(path(p)), p).toEqual({ permission: "allow" });
    expect(policy(path("/srv/wsx/a.md"))).toEqual({ permission: "deny", reason: "outside the workspace" });
  });

  it("asks for commands only: other resources of a call are not commands", () => {
    // workspace.ts:177 (r.kind === "command" → true).
    const policy = workspacePolicy({ requireCommandApproval: true });
    expect(policy(req({ resources: [{ kind: "host", value: "api.example.com" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ resources: [{ kind: "command", value: "ls" }] }))).toEqual({ permission: "ask", reason: "commands need an operator's approval" });
  });

  it("matches hosts whatever their case, and commands exactly", () => {
    // workspace.ts:178 (r.kind === "host" → true: commands were lowercased too).
    const policy = workspacePolicy({
      grants: [
        { operation: "execute", match: "git status*" },
        { operation: "network", match: "api.example.com" },
      ],
    });
    expect(policy(req({ resources: [{ kind: "command", value: "GIT STATUS" }] }))).toEqual({ permission: "deny", reason: "no grant allows execute there" });
    expect(policy(req({ resources: [{ kind: "command", value: "git status" }] }))).toEqual({ permission: "allow" });
    expect(policy(req({ resources: [{ kind: "host", value: "API.EXAMPLE.COM" }] }))).toEqual({ permission: "allow" });
  });
});

describe("pathScopePolicy", () => {
  const scopes = [{ path: "/workspace" }, { path: "/home/ana/reference", operations: ["read" as const] }];

  it("allows relative paths under the default workspace root, and a scope's own folder", () => {
    // workspace.ts:230 ("/workspace" → ""), :233 (the path check → false, === → !==, "string" → "",
    // startsWith → endsWith), :234 (→ true), :244 (p === s.path → false).
    const policy = pathScopePolicy({ scopes });
    expect(policy(path("notes/a.md", "write"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference", "read"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference/", "read"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference", "write"))).toEqual({ permission: "deny", reason: "outside the approved paths for write" });
  });

  it("drops . segments before comparing with a scope", () => {
    // workspace.ts:210 (s === "." → false, "." → "").
    const policy = pathScopePolicy({ scopes });
    expect(policy(path("/home/ana/./reference/book.md", "read"))).toEqual({ permission: "allow" });
    expect(policy(path("/home/ana/reference/./book.md", "read"))).toEqual({ permission: "allow" });
  });

  it("denies a path that could name something else", () => {
    // workspace.ts:204 (the control-character check → false), :205 (trim → value), :206 (each of
    // ~, ~/, the drive and scheme patterns → false, || → &&, "~" → "", startsWith → endsWith, the patterns changed).
    const policy = pathScopePolicy({ scopes });
    for (const p of ["~", "~/notes", "C:/notes", "c:notes", "https://x/y", "file:///etc/passwd", "a\u0000b", "a\u007fb", "a\\b", " /etc/passwd", "/workspace/../etc"]) {
      expect(policy(path(p, "read")), JSON.stringify(p)).toEqual({ permission: "deny", reason: "outside the approved paths for read" });
    }
  });

  it("takes a colon after the first folder, or after a digit, as part of a name", () => {
    // workspace.ts:206 (the drive and scheme patterns unanchored, or starting [^A-Za-z]).
    const policy = pathScopePolicy({ scopes });
    for (const p of ["notes/a:b.md", "1:x.md", "notes/http://x"]) expect(policy(path(p, "read")), p).toEqual({ permission: "allow" });
  });

  it("trims a path before judging it", () => {
    // workspace.ts:205 (value.trim() → value): " /home/ana/reference/b" became a relative path.
    const policy = pathScopePolicy({ scopes: [{ path: "/home/ana/reference" }] });
    expect(policy(path(" /home/ana/reference/b ", "read"))).toEqual({ permission: "allow" });
  });

  it("puts relative paths under a workspace root given with a trailing slash", () => {
    // workspace.ts:230 (the strip's "" → "Stryker was here!").
    const policy = pathScopePolicy({ scopes: [{ path: "/srv/ws" }], workspaceRoot: "/srv/ws/" });
    expect(policy(path("a.md", "write"))).toEqual({ permission: "allow" });
  });

  it("judges path resources only: a host is not a path", () => {
    // workspace.ts:241 (r.kind !== "path" → false: the host was taken as a relative path, for network).
    const policy = pathScopePolicy({ scopes: [{ path: "/workspace", operations: ["read", "write"] }] });
    expect(policy(req({ resources: [{ kind: "host", value: "api.example.com" }] }))).toEqual({ permission: "allow" });
  });

  it("a scope at / holds every absolute path", () => {
    // (workspace.ts:237 and :244's s.path === "/" are each redundant with the other: see equivalent.json.)
    const policy = pathScopePolicy({ scopes: [{ path: "/", operations: ["read"] }] });
    expect(policy(path("/etc/passwd", "read"))).toEqual({ permission: "allow" });
    expect(policy(path("/etc/passwd", "write"))).toEqual({ permission: "deny", reason: "outside the approved paths for write" });
  });

  it("refuses options, scopes and operations it cannot mean, naming the scope", () => {
    // workspace.ts:230, 231 (options?. → options.; the check → false; its message), :233 (typeof … → true,
    // s?.path → s.path), :236 (its message, k + 1 → k - 1).
    const list = "scopes must be a list of { path, operations? }";
    expect(refusal(() => pathScopePolicy(undefined as never))).toEqual(refused(list));
    expect(refusal(() => pathScopePolicy({ scopes: "/workspace" as never }))).toEqual(refused(list));
    const where = (k: number) => `scope ${k}: path must be an absolute path without . or .. segments`;
    expect(refusal(() => pathScopePolicy({ scopes: [null as never] }))).toEqual(refused(where(1)));
    expect(refusal(() => pathScopePolicy({ scopes: [{ path: "/a" }, { path: 5 as never }] }))).toEqual(refused(where(2)));
    expect(refusal(() => pathScopePolicy({ scopes: [{ path: "/a/../b" }] }))).toEqual(refused(where(1)));
    expect(refusal(() => pathScopePolicy({ scopes: [{ path: "/a" }, { path: "/b", operations: ["fly" as never] }] }))).toEqual(
      refused("scope 2: operations must be read, write, delete, network or execute"),
    );
    // workspace.ts:236 (some → every).
    expect(refusal(() => pathScopePolicy({ scopes: [{ path: "/a", operations: ["read", "fly" as never] }] }))).toEqual(refused("scope 1: operations must be read, write, delete, network or execute"));
  });
});
