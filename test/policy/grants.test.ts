/**
 * workspacePolicy's grants hold for every resource that reaches out or
 * changes things, whatever its kind (found by mutation testing, issue 21):
 * a URL's network access was never grant-checked, so a third-party tool
 * that declared only `{ kind: "url" }` got past an allowlist of hosts; a
 * custom kind with a write was let through; and a kind named like an
 * Object member ("constructor") made the policy throw, a denial with the
 * wrong reason.
 */
import { describe, expect, it } from "vitest";
import { workspacePolicy, type PolicyRequest, type ResourceRef } from "../../src/index.js";
import type { Operation } from "../../src/tools/index.js";

const req = (resources: ResourceRef[]): PolicyRequest => ({ tool: "third_party", sideEffect: "remote_mutation", args: {}, resources });
const grants = workspacePolicy({
  grants: [
    { operation: "network", match: "api.example.com" },
    { operation: "write", match: "prod-*" },
  ],
});
const NO = (op: string) => ({ permission: "deny", reason: `no grant allows ${op} there` });

describe("workspacePolicy's grants, on every kind of resource", () => {
  it("check a URL's host: another host, or a URL that does not parse, is denied; the granted host is allowed", () => {
    expect(grants(req([{ kind: "url", value: "https://evil.example/steal?x=1" }]))).toEqual(NO("network"));
    expect(grants(req([{ kind: "url", value: "https://api.example.com.evil.example/" }]))).toEqual(NO("network"));
    expect(grants(req([{ kind: "url", value: "not a url" }]))).toEqual(NO("network"));
    expect(grants(req([{ kind: "url", value: "https://API.example.com/v1/items" }]))).toEqual({ permission: "allow" });
  });

  it("deny a URL that does not parse even under a grant of every host (no host is not a host called 'undefined')", () => {
    const everyHost = workspacePolicy({ grants: [{ operation: "network", match: "*" }] });
    expect(everyHost(req([{ kind: "url", value: "https://any.example/" }]))).toEqual({ permission: "allow" });
    for (const value of ["not a url", "http://[bad", ""]) expect(everyHost(req([{ kind: "url", value }])), value).toEqual(NO("network"));
  });

  it("check a kind they do not know by its value, and a kind named like an Object member is judged like any other", () => {
    expect(grants(req([{ kind: "database", value: "staging", operation: "write" }]))).toEqual(NO("write"));
    expect(grants(req([{ kind: "database", value: "prod-eu", operation: "write" }]))).toEqual({ permission: "allow" });
    for (const kind of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(grants(req([{ kind, value: "x", operation: "delete" }])), kind).toEqual(NO("delete"));
      expect(grants(req([{ kind, value: "x", operation: "read" }])), kind).toEqual({ permission: "allow" });
    }
  });

  it("never allow an operation they cover on a value no grant matches (property: 3,000 random resources)", () => {
    let seed = 20261201;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const kinds = ["url", "host", "command", "database", "queue", "constructor", "mcp_tool", "x"];
    const values = ["https://api.example.com/a", "https://evil.example/", "api.example.com", "evil.example", "prod-1", "staging", "rm -rf /", "", "::", "https://[::1]/"];
    const ops: (Operation | undefined)[] = ["read", "write", "delete", "network", "execute", undefined];
    const allowlist = [
      { operation: "network" as const, match: "api.example.com" },
      { operation: ["write", "delete"] as Operation[], match: "prod-*" },
      { operation: "execute" as const, match: "ls *" },
    ];
    const policy = workspacePolicy({ grants: allowlist });
    for (let k = 0; k < 3000; k++) {
      const kind = kinds[rand(kinds.length)]!;
      const value = values[rand(values.length)]!;
      const op = ops[rand(ops.length)];
      const r: ResourceRef = { kind, value, ...(op === undefined ? {} : { operation: op }) };
      const decision = policy(req([r]));
      const effective = op ?? (kind === "url" || kind === "host" ? "network" : kind === "command" ? "execute" : undefined);
      if (effective === undefined || effective === "read") continue;
      const target = kind === "url" ? (URL.canParse(value) ? new URL(value).hostname : undefined) : kind === "host" ? value.toLowerCase() : value;
      const granted =
        target !== undefined &&
        allowlist.some((g) => (Array.isArray(g.operation) ? g.operation : [g.operation]).includes(effective) && new RegExp(`^${g.match.replace(/[.]/g, "\\.").replace(/\*/g, "[^/]*")}$`).test(target));
      if (!granted) expect(decision, JSON.stringify(r)).toEqual(NO(effective));
    }
  });
});
