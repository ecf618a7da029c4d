/**
 * The thread boundary of bash (issue 26): an interpreter in a thread of its
 * own asks the owning thread for every file operation, and the owning
 * thread decides each one (the WorkspaceFs, the run's policy). The thread
 * is not trusted: this property test replaces it with a hostile one that
 * speaks the protocol directly, with random operations, paths, argument
 * types, run ids and results, and holds the owning thread to its promises:
 *
 * - no answer carries a denied file's content, nor the name of a denied
 *   file the thread did not name itself;
 * - nothing lands in the workspace but what the policy lets this call
 *   write, and denied files are as they were;
 * - a message outside the protocol ends the command ("the shell failed"),
 *   and the call always ends: it never hangs, never throws anything else.
 */
import { describe, expect, it } from "vitest";
import { ToolError, type ResourceRef } from "../../src/index.js";
import { memoryWorkspace } from "../../src/toolkit/index.js";
import { bashTool, type BashRunner, type BashThread } from "../../src/toolkit/bash/index.js";
import { FS_METHODS } from "../../src/toolkit/bash/protocol.js";
import { testContext } from "../helpers/context.js";
import { rng } from "../helpers/rng.js";

const SECRET = "TOKEN=s3cr3t-5a1f";
const UNNAMED = "zz-unnamed-7f3";
const SEED: Record<string, string> = { "notes/a.md": "one\ntwo\n", "secrets/key.env": `${SECRET}\n`, [`secrets/${UNNAMED}.env`]: `${SECRET}2\n`, "public.txt": "hi\n" };
const denied = (key: string): boolean => key === "secrets" || key.startsWith("secrets/");

/** The run's policy: nothing under secrets/ may be read, written or deleted. */
const permit = (resources: readonly ResourceRef[]) => (resources.some((r) => r.kind === "path" && denied(r.value)) ? { permission: "deny" as const } : { permission: "allow" as const });

const PATHS = [
  "/workspace/notes/a.md",
  "/workspace/secrets/key.env",
  "/workspace/secrets/../secrets/key.env",
  "/workspace/./secrets//key.env",
  "/workspace/secrets",
  "/workspace/secrets/",
  "/workspace",
  "/",
  "/etc/passwd",
  "/workspace/../etc/passwd",
  "/workspace/new/x.txt",
  "/dev/null",
  "secrets/key.env",
  "",
  "/workspace/secrets/new.txt",
  "/workspace/notes",
  "/workspace/public.txt",
  "/workspace/secrets\u0000/key.env",
  "/workspace/se\u0301crets/key.env",
  "/workspace/notes/../../workspace/secrets/key.env",
  "/dev/fd/3",
  "a".repeat(70_000),
  "/workspace/x/../secrets",
];
// Besides the operations that cross: the filesystem's own methods that must not (bytesOf reads past the policy), and prototype names.
const METHODS: readonly string[] = [
  ...FS_METHODS,
  ...FS_METHODS,
  ...FS_METHODS,
  ...FS_METHODS,
  ...FS_METHODS,
  ...FS_METHODS,
  "resolvePath",
  "getAllPaths",
  "changes",
  "cancel",
  "stage",
  "bytesOf",
  "bytesOf",
  "bytesOf",
  "constructor",
  "__proto__",
  "toString",
];

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function value(r: Rand): unknown {
  switch (Math.floor(r() * 12)) {
    case 0:
      return Math.floor(r() * 0o1000);
    case 1:
      return null;
    case 2:
      return { recursive: r() < 0.5, force: r() < 0.5 };
    case 3:
      return { encoding: pick(r, ["base64", "hex", "latin1", "utf8", "nope", null]) };
    case 4:
      return pick(r, ["base64", "binary", "evil"]);
    case 5:
      return new Uint8Array([0x41, 0x42, 0x0a]);
    case 6:
      return "written by the thread\n";
    case 7:
      return [pick(r, PATHS)];
    case 8:
      return { toString: "x", valueOf: 1, __proto__: { recursive: true } };
    case 9:
      return -1;
    default:
      return pick(r, PATHS);
  }
}

/** A message the hostile thread sends, and whether the owning thread must answer it (or else end the command). */
function request(r: Rand, run: number, id: number): { message: unknown; answered: boolean; ignored?: boolean } {
  const roll = r();
  if (roll < 0.01) return { message: pick(r, [null, 7, "fs", [], { t: "nope", run }]), answered: false };
  if (roll < 0.04) return { message: { t: "fs", run: run - 1, id, method: "readFile", args: ["/workspace/secrets/key.env"] }, answered: false, ignored: true };
  if (roll < 0.05) return { message: { t: "fs", run: run + 1, id, method: "readFile", args: ["/workspace/notes/a.md"] }, answered: false };
  if (roll < 0.06) return { message: { t: "fetch", run, id, url: "https://example.com/", options: {} }, answered: false };
  const method = pick(r, METHODS);
  // Mostly arguments of the shape the operation takes (so that the run goes on), sometimes anything.
  const args = r() < 0.92 ? shaped(r, method) : Array.from({ length: Math.floor(r() * 4) }, (_, k) => (k === 0 && r() < 0.85 ? pick(r, PATHS) : value(r)));
  if (r() < 0.02) args.push("extra", "args", "too many");
  const wellFormed = (FS_METHODS as readonly string[]).includes(method) && args.length <= 3 && shapeOk(method, args);
  return { message: { t: "fs", run, id, method, args }, answered: wellFormed };
}

/** Arguments of the shape `method` takes, with random paths, contents and options. */
function shaped(r: Rand, method: string): unknown[] {
  const p = (): string =>
    r() < 0.25
      ? "/workspace/notes/a.md"
      : pick(
          r,
          PATHS.filter((x) => x.length < 1000),
        );
  const content = (): unknown => pick(r, ["written by the thread\n", new Uint8Array([0x41, 0x0a]), ""]);
  const opt = (): unknown => pick(r, [undefined, { recursive: true }, { recursive: true, force: true }, { force: true }, {}]);
  const enc = (): unknown => pick(r, [undefined, "utf8", "base64", { encoding: "latin1" }, { encoding: null }]);
  switch (method) {
    case "readFile":
      return [p(), enc()];
    case "writeFile":
    case "appendFile":
      return [p(), content(), enc()];
    case "mkdir":
    case "rm":
      return [p(), opt()];
    case "cp":
      return [p(), p(), opt()];
    case "mv":
    case "symlink":
    case "link":
      return [p(), p()];
    case "chmod":
      return [p(), 0o755];
    default:
      return [p()];
  }
}

/** Whether the owning thread takes these arguments (protocol.ts fsArgs); anything else ends the command. */
function shapeOk(method: string, args: unknown[]): boolean {
  const isPath = (v: unknown) => typeof v === "string" && v.length <= 65_536;
  const opts = (v: unknown) => v === undefined || v === null || (typeof v === "object" && !Array.isArray(v));
  const enc = (v: unknown) => v === undefined || v === null || typeof v === "string" || (typeof v === "object" && !Array.isArray(v));
  const content = (v: unknown) => typeof v === "string" || v instanceof Uint8Array;
  if (!isPath(args[0])) return false;
  switch (method) {
    case "readFile":
      return enc(args[1]);
    case "writeFile":
    case "appendFile":
      return content(args[1]) && enc(args[2]);
    case "mkdir":
    case "rm":
      return opts(args[1]);
    case "cp":
      return isPath(args[1]) && opts(args[2]);
    case "mv":
    case "symlink":
    case "link":
      return isPath(args[1]);
    case "chmod":
      return typeof args[1] === "number" && Number.isSafeInteger(args[1]) && args[1] >= 0;
    default:
      return true;
  }
}

/** Every string an answer carries (bytes decoded). */
function texts(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (v instanceof Uint8Array) out.push(new TextDecoder().decode(v), String.fromCharCode(...v.subarray(0, 4096)));
  else if (Array.isArray(v)) for (const x of v) texts(x, out);
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) texts(x, out);
  return out;
}

/** A runner whose thread is the hostile one: it answers "ready", then on "run" sends `count` random requests and a random end. */
function hostile(seed: number, log: { asked: unknown[]; answers: unknown[]; named: boolean }): BashRunner {
  return {
    start(): BashThread {
      let deliver: (m: unknown) => void = () => {};
      const r = rng(seed);
      const waiting = new Map<number, (v: unknown) => void>();
      const send = (m: unknown): void => queueMicrotask(() => deliver(m));
      const play = async (run: number): Promise<void> => {
        const count = 5 + Math.floor(r() * 35);
        for (let id = 1; id <= count; id++) {
          const q = request(r, run, id);
          log.asked.push(q.message);
          if (JSON.stringify(q.message ?? null).includes(UNNAMED)) log.named = true;
          if (!q.answered) {
            send(q.message);
            if (q.ignored === true) continue;
            return; // the owning thread must end the command now
          }
          const answer = new Promise((resolve) => waiting.set(id, resolve));
          send(q.message);
          log.answers.push(await answer);
        }
        const end = r();
        if (end < 0.7) send({ t: "done", run, result: { stdout: "out\n", stderr: "", exitCode: r() < 0.7 ? 0 : 1, halted: false, available: ["cat", "rm", "evil-cmd"] } });
        else if (end < 0.8) send({ t: "done", run, result: { stdout: 1, stderr: [], exitCode: "0" } });
        else if (end < 0.9) send({ t: "failed", run });
        else send({ t: "done", run: run + 7, result: {} });
      };
      return {
        postMessage: (m) => {
          const msg = m as { t: string; run: number; id: number; value?: unknown; error?: unknown; ok: boolean };
          if (msg.t === "run") void play(msg.run);
          else if (msg.t === "reply") waiting.get(msg.id)?.(msg.ok ? msg.value : msg.error);
        },
        listen: (onMessage) => {
          deliver = onMessage;
          send({ t: "ready" });
        },
        terminate: () => {
          deliver = () => {};
        },
      };
    },
  };
}

describe("the owning thread decides every file operation of an untrusted interpreter thread (property)", () => {
  it("300 hostile threads: no denied content or unnamed denied file in any answer, nothing written where the policy denies, every call ends in a result or a ToolError", async () => {
    // The test reaches what it judges: reads answered with allowed content, and commands that commit.
    let readAllowed = 0;
    let committed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const ws = memoryWorkspace(SEED);
      const log = { asked: [] as unknown[], answers: [] as unknown[], named: false };
      const bash = bashTool({ workspace: ws, requireApproval: false, timeoutMs: 5000, runner: hostile(seed, log) });
      let outcome: unknown;
      try {
        outcome = await bash.tool.call({ command: "cat notes/a.md" }, testContext({ callId: `c${seed}`, permit }));
      } catch (e) {
        outcome = e;
      }
      const where = `seed ${seed}: ${JSON.stringify(log.asked).slice(0, 2000)}`;
      if (outcome instanceof Error) {
        expect(outcome, where).toBeInstanceOf(ToolError);
        expect((outcome as ToolError).summary, where).toBe("the shell failed while running the command; nothing was changed");
      } else {
        expect(typeof outcome, where).toBe("string");
        // Only the commands the shell has are listed as available.
        expect(String(outcome), where).not.toContain("evil-cmd");
      }
      if (texts(log.answers).some((t) => t.includes("one\ntwo"))) readAllowed++;
      if (typeof outcome === "string" && outcome.includes("[Committed")) committed++;
      for (const t of texts(log.answers)) {
        expect(t.includes("s3cr3t"), where).toBe(false);
        if (!log.named) expect(t.includes(UNNAMED), where).toBe(false);
      }
      // The denied files are as they were; nothing new under secrets/.
      const after = await ws.list("");
      expect(
        after
          .filter((f) => denied(f.path))
          .map((f) => f.path)
          .sort(),
        where,
      ).toEqual(["secrets/key.env", `secrets/${UNNAMED}.env`]);
      expect(new TextDecoder().decode((await ws.read("secrets/key.env"))!), where).toBe(`${SECRET}\n`);
    }
    expect(readAllowed).toBeGreaterThan(20);
    expect(committed).toBeGreaterThanOrEqual(5);
  }, 300_000);
});
