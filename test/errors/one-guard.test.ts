/**
 * One way to recognise an error (issue 28, item 5): every error isoagent
 * throws is an IsoagentError with a stable code, recognised by
 * `isIsoagentError(e, code)`, which works across bundle copies (two copies of
 * the library on one page, where `instanceof` fails).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { filesUnder, isSource } from "../../scripts/lib/files.js";
import { AgentError } from "../../src/agents/port.js";
import { NetworkError, StreamError } from "../../src/agents/model/transport.js";
import { ReplayDriftError } from "../../src/agents/record/index.js";
import { Crash, isCrash } from "../../src/call/crash.js";
import { isToolError } from "../../src/call/gate.js";
import { DriverError } from "../../src/call/refusal.js";
import { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "../../src/errors.js";
import { HttpError } from "../../src/http/wire.js";
import { isJournalError, JournalError } from "../../src/journal/errors.js";
import { JsonValueError } from "../../src/json/canonical.js";
import { JsonBoundaryError } from "../../src/json/errors.js";
import { McpError } from "../../src/mcp/errors.js";
import { isMoveError, MoveError } from "../../src/move/errors.js";
import { PatternRefusal } from "../../src/pattern/parse.js";
import { PolicyError } from "../../src/policy/error.js";
import { SchemaError } from "../../src/schema/errors.js";
import { isStoreError, StoreError } from "../../src/store/errors.js";
import { ProtocolError } from "../../src/toolkit/bash/protocol.js";
import { isSearchError, SearchError } from "../../src/toolkit/search/port.js";
import { ToolSpecError } from "../../src/tools/compile.js";
import { AbortRunError, isAbortRun, isPermissionDenied, PermissionDeniedError, ToolError } from "../../src/tools/tool.js";

// The one allowed: the operator console's page script (console/app.ts, sent to
// the browser as a string) runs where isoagent is not loaded, and cannot import it.
const NOT_OURS = new Set(["console/app.ts ApiError"]);

describe("one way to recognise an error", () => {
  it("no class of src/ or adapters/ extends Error, TypeError or RangeError but IsoagentError itself", () => {
    const files = ["src", "adapters", "console"].flatMap((d) => filesUnder(d, isSource));
    expect(files.length).toBeGreaterThan(200);
    const found: string[] = [];
    const allowed: string[] = [];
    for (const f of files) {
      for (const m of readFileSync(f, "utf8").matchAll(/\bclass\s+(\w+)\s+extends\s+(Error|TypeError|RangeError)\b/g)) {
        const what = `${f.replaceAll("\\", "/")} ${m[1]}`;
        if (NOT_OURS.has(what)) allowed.push(what);
        else if (m[1] !== "IsoagentError") found.push(`${what} extends ${m[2]}`);
      }
    }
    expect(found).toEqual([]);
    // The scan finds what it allows (a scan that read nothing would hold nothing).
    expect(allowed).toEqual([...NOT_OURS]);
  });

  // Each project error class, built once, with the code it must carry.
  const cases: [string, () => unknown, IsoagentErrorCode][] = [
    ["IsoagentError", () => new IsoagentError("PEER_MISSING", "m"), "PEER_MISSING"],
    ["SchemaError", () => new SchemaError("SCHEMA_INVALID", "m"), "SCHEMA_INVALID"],
    ["JsonValueError", () => new JsonValueError("JSON_NOT_SERIALIZABLE", "r", "$"), "JSON_NOT_SERIALIZABLE"],
    ["JsonBoundaryError", () => new JsonBoundaryError("JSON_SYNTAX", "r", { offset: 0, line: 1, column: 1 }), "JSON_SYNTAX"],
    ["JournalError", () => new JournalError("JOURNAL_INVALID", "m"), "JOURNAL_INVALID"],
    ["StoreError", () => new StoreError("RUN_NOT_FOUND", "m"), "RUN_NOT_FOUND"],
    ["PolicyError", () => new PolicyError("m"), "POLICY_INVALID"],
    ["ToolSpecError", () => new ToolSpecError("TOOL_NAME_INVALID", "m", undefined, "name"), "TOOL_NAME_INVALID"],
    ["DriverError", () => new DriverError("RUN_NOT_ACTIVE", "m"), "RUN_NOT_ACTIVE"],
    ["AgentError", () => new AgentError("m"), "AGENT_ERROR"],
    ["ReplayDriftError", () => new ReplayDriftError("m", "$", 1, 2), "AGENT_ERROR"],
    ["MoveError", () => new MoveError("BUNDLE_INVALID", "m"), "BUNDLE_INVALID"],
    ["McpError", () => new McpError("MCP_CLOSED", "m"), "MCP_CLOSED"],
    ["ToolError", () => new ToolError("s"), "TOOL_ERROR"],
    ["PermissionDeniedError", () => new PermissionDeniedError([{ kind: "host", value: "x" }]), "PERMISSION_DENIED"],
    ["AbortRunError", () => new AbortRunError("d"), "ABORT_RUN"],
    ["Crash", () => new Crash(), "CRASH"],
    ["StreamError", () => new StreamError(500, "t", "m", "overloaded"), "MODEL_STREAM_ERROR"],
    ["NetworkError", () => new NetworkError("m"), "NETWORK_ERROR"],
    ["SearchError", () => new SearchError("network"), "SEARCH_FAILED"],
    ["ProtocolError", () => new ProtocolError("m"), "BASH_PROTOCOL"],
    ["HttpError", () => new HttpError("INVALID_QUERY", "m"), "HTTP_REFUSED"],
    ["PatternRefusal", () => new PatternRefusal("why"), "PATTERN_UNSUPPORTED"],
  ];

  it.each(cases)("%s is an IsoagentError with its code", (_name, make, code) => {
    const e = make();
    expect(isIsoagentError(e, code)).toBe(true);
    expect((e as IsoagentError).code).toBe(code);
    expect(e).toBeInstanceOf(Error);
  });

  it("keeps each class's name, and what the classes that had fields of their own called them", () => {
    expect(cases.filter(([n]) => n !== "HttpError" && n !== "PatternRefusal").map(([n, make]) => [n, (make() as Error).name])).toEqual(
      cases.filter(([n]) => n !== "HttpError" && n !== "PatternRefusal").map(([n]) => [n, n]),
    );
    expect(new StreamError(500, "t", "m", "overloaded").providerCode).toBe("overloaded");
    expect(new HttpError("INVALID_QUERY", "m").apiCode).toBe("INVALID_QUERY");
    expect(new PatternRefusal("why").message).toBe("why");
  });

  // What another bundle's copy of the library throws: the same registered
  // symbol brand and a code, but none of this copy's classes.
  const copy = (code: IsoagentErrorCode, extra: Record<string, unknown> = {}): unknown =>
    Object.assign(Object.defineProperty(new Error("from another copy"), Symbol.for("isoagent.error"), { value: true }), { code }, extra);

  it("recognises a copy from another bundle by the brand and the code, where instanceof fails", () => {
    for (const [, , code] of cases) {
      const e = copy(code);
      expect(e instanceof IsoagentError).toBe(false);
      expect(isIsoagentError(e, code)).toBe(true);
      expect(isIsoagentError(e)).toBe(true);
      expect(isIsoagentError(e, code === "CRASH" ? "TOOL_ERROR" : "CRASH")).toBe(false);
    }
    // Without the brand, a look-alike is not one.
    expect(isIsoagentError({ code: "TOOL_ERROR", name: "ToolError", summary: "s" }, "TOOL_ERROR")).toBe(false);
  });

  it("the recogniser functions are the guard with their code, for this copy and another", () => {
    const recognisers: [(e: unknown) => boolean, IsoagentErrorCode[], unknown][] = [
      [isCrash, ["CRASH"], new Crash()],
      [isToolError, ["TOOL_ERROR"], new ToolError("s")],
      [isAbortRun, ["ABORT_RUN"], new AbortRunError("d")],
      [isPermissionDenied, ["PERMISSION_DENIED"], new PermissionDeniedError([])],
      [isSearchError, ["SEARCH_FAILED"], new SearchError("malformed")],
      [isJournalError, ["JOURNAL_INVALID", "JOURNAL_HASH_MISMATCH"], new JournalError("JOURNAL_HASH_MISMATCH", "m")],
      [isStoreError, ["RUN_NOT_FOUND", "STORE_CLOSED", "RUN_MOVED"], new StoreError("LEASE_NOT_HELD", "m")],
      [isMoveError, ["BUNDLE_TAMPERED", "RUN_DIVERGED", "MOVE_FENCED", "MOVE_REFUSED"], new MoveError("BUNDLE_VERSION", "m")],
    ];
    for (const [recognise, codes, own] of recognisers) {
      expect(recognise(own), recognise.name).toBe(true);
      for (const code of codes) expect(recognise(copy(code)), `${recognise.name} ${code}`).toBe(true);
      expect(recognise(copy("PEER_MISSING")), recognise.name).toBe(false);
      expect(recognise(new Error("x")), recognise.name).toBe(false);
    }
  });
});
