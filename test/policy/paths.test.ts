/**
 * One path rule (src/paths.ts; issue 28, item 6): what the workspace policy
 * judges is the key the workspace tools touch, and the key the shell's
 * filesystem reaches. Before it lived once, the policy had a rule of its
 * own: it refused a name with a colon the tools write ("note:1.md"), and it
 * matched a decomposed name (NFD) that the tools store composed (NFC)
 * against no deny glob.
 */
import { describe, expect, it } from "vitest";
import { keyUnder } from "../../src/paths.js";
import { workspacePolicy, type PolicyRequest } from "../../src/policy/index.js";
import { normalizePath } from "../../src/toolkit/bash/fs.js";
import { resolvePath } from "../../src/toolkit/paths.js";
import { rng } from "../helpers/rng.js";

const ROOT = "/workspace";
const CASES = Number(process.env["ISOAGENT_PATHS_CASES"] ?? 4000);
const SEED = Number(process.env["ISOAGENT_PATHS_SEED"] ?? 20261203);

function request(value: string, operation: "read" | "write" = "write"): PolicyRequest {
  return { stage: "call", tool: "custom_write", sideEffect: "local_mutation", args: {}, resources: [{ kind: "path", value, operation }] };
}

const decide = (deny: string[], value: string) => workspacePolicy({ deny })(request(value));

/** The key resolvePath gives, or the start of its error's message. */
function toolKey(raw: string): { key: string } | { error: string } {
  try {
    return { key: resolvePath(raw, ROOT) };
  } catch (e) {
    return { error: (e as Error).message.split(":")[0]! };
  }
}

describe("one path rule for tools, policy and shell", () => {
  it("finding: a name with a colon the tools write is inside the workspace for the policy too", () => {
    expect(resolvePath("note:1.md", ROOT)).toBe("note:1.md");
    expect(decide([], "note:1.md")).toEqual({ permission: "allow" });
    expect(decide(["*.md"], "note:1.md")).toMatchObject({ permission: "deny", reason: "denied by the workspace policy" });
    // A URL, a drive and a home directory stay outside, for both.
    for (const p of ["https://example.com/x", "C:/x", "c:x", "~/x", "~"]) {
      expect(toolKey(p)).toEqual({ error: "path outside the workspace" });
      expect(decide([], p)).toMatchObject({ permission: "deny", reason: "outside the workspace" });
    }
  });

  it("finding: a deny glob on a composed name holds for the decomposed spelling of it", () => {
    const nfd = "secret/cafe\u0301.md";
    expect(resolvePath(nfd, ROOT)).toBe("secret/caf\u00e9.md");
    expect(decide(["secret/caf\u00e9.md"], nfd)).toMatchObject({ permission: "deny", reason: "denied by the workspace policy" });
  });

  it(`${CASES} random paths: the policy judges the key the tools resolve, and the shell reaches it (seed ${SEED})`, () => {
    const r = rng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const names = ["a", "b", "caf\u00e9", "cafe\u0301", ".", "..", "", "~", "C:", "x:", "note:1", "http:", " ", " a ", "a\\b", "a\u0001", "workspace", "workspacex", "é.md"];
    const starts = ["", "", "/workspace/", "/workspace", "/", "~/", "//workspace/", " /workspace/"];
    const counts = { key: 0, refused: 0, shell: 0 };
    for (let i = 0; i < CASES; i++) {
      const raw = pick(starts) + Array.from({ length: Math.floor(r() * 5) }, () => pick(names)).join("/") + (r() < 0.2 ? "/" : "");
      if (raw.trim() === "/") continue; // the policy's name for the root, which no tool resolves
      const tool = toolKey(raw);
      const judged = decide([], raw);
      if ("error" in tool) {
        counts.refused++;
        expect(judged, JSON.stringify(raw)).toMatchObject({ permission: "deny", reason: "outside the workspace" });
        continue;
      }
      counts.key++;
      expect(judged, JSON.stringify(raw)).toEqual({ permission: "allow" });
      // A deny glob naming the tool's key (no glob syntax among the names) holds for the raw path.
      if (tool.key !== "") expect(decide([tool.key], raw), JSON.stringify(raw)).toMatchObject({ permission: "deny", reason: "denied by the workspace policy" });
      // The shell's filesystem (no trimming, `..` resolved as a shell does) reaches the same key.
      if (raw === raw.trim() && !raw.startsWith("~")) {
        counts.shell++;
        expect(keyUnder(normalizePath(raw.startsWith("/") ? raw : `${ROOT}/${raw}`), ROOT), JSON.stringify(raw)).toBe(tool.key);
      }
    }
    // The generator reaches every branch often.
    expect(Math.min(counts.key, counts.refused, counts.shell)).toBeGreaterThan(CASES / 10);
  });
});
