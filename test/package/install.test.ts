/**
 * The package as a user gets it (issue 27, findings 1 and 2): packed, and
 * installed from its tarball into a scratch project outside the repository
 * (the registry brings its dependencies), a strict TypeScript program
 * type-checks and runs against it in Node, and bundles for the browser and
 * for workerd. The footprint is measured from that install: packages, install
 * scripts, isoagent's own unpacked size.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const bin = (name: string) => join(repo, "node_modules/.bin", name);
const scale = Number(process.env.ISOAGENT_TEST_TIMEOUT_SCALE ?? "1") || 1;
const minutes = (n: number) => n * 60_000 * scale;

/** The goals of finding 2: `npm i isoagent` alone installs this many packages at most (isoagent's own included), and isoagent unpacks to at most this many bytes. */
const MAX_PACKAGES = 5;
const MAX_UNPACKED_BYTES = 5_000_000;

let dir = "";
let unpackedSize = 0;

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return exec(cmd, args, cwd);
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`, { cause: e });
  }
}

function exec(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" },
  });
}

// lib es2022 and no @types: isoagent's declarations need neither the DOM nor Node; the program declares the one global it uses.
const program = `declare const console: { log(line: string): void };
import { createDriver, memoryStore, defineTool, scriptedAgent, calls, call, final, strictObject, string, isIsoagentError } from "isoagent";
import { memoryWorkspace } from "isoagent/toolkit";

const files = new Map<string, string>();
const writeFile = defineTool({
  name: "write_file", description: "Write a text file.", sideEffect: "local_mutation", permission: "allow", timeoutMs: 10_000,
  inputSchema: strictObject({ path: string(), content: string() }),
  resources: (a) => [{ kind: "path", value: a.path }],
  call: async (args) => {
    const path: string = args.path;
    files.set(path, args.content);
    return { written: args.content.length };
  },
});
const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([calls(call("write_file", { path: "a.md", content: "hi" })), final("done")]), tools: [writeFile] });
const outcome = await driver.start({ goal: "write a.md" });
void memoryWorkspace;
const ok: boolean = isIsoagentError(new Error("x"));
console.log(JSON.stringify({ status: outcome.status, file: files.get("a.md"), ok }));
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "isoagent-install-"));
  // A build already here is packed as it is. Without one, build first: npm
  // pack's prepack would print the build's lines on stdout, before the JSON.
  if (!existsSync(join(repo, "dist/types/src/index.d.ts"))) run("npm", ["run", "build"], repo);
  const packed = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], repo)) as [{ filename: string; unpackedSize: number }];
  unpackedSize = packed[0].unpackedSize;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  run("npm", ["install", join(dir, packed[0].filename)], dir);
  writeFileSync(join(dir, "main.ts"), program);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: false, types: [], lib: ["es2022"] },
      files: ["main.ts"],
    }),
  );
}, minutes(6));

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

describe("isoagent installed from its tarball into a project of its own", () => {
  it(`brings at most ${MAX_PACKAGES} packages, none with an install script, and unpacks to at most ${MAX_UNPACKED_BYTES} bytes (no source maps)`, () => {
    const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const installed = Object.keys(lock.packages).filter((k) => k !== "");
    console.log(`install footprint: ${installed.length} packages (${installed.map((k) => k.replace(/^node_modules\//, "")).join(", ")}), isoagent unpacked ${unpackedSize} bytes`);
    expect(installed).toContain("node_modules/isoagent");
    expect(installed.length).toBeLessThanOrEqual(MAX_PACKAGES);
    expect(installed.filter((k) => lock.packages[k]!.hasInstallScript === true)).toEqual([]);
    expect(installed.some((k) => k.endsWith("/just-bash") || k.endsWith("/@modelcontextprotocol/client"))).toBe(false);
    expect(unpackedSize).toBeLessThanOrEqual(MAX_UNPACKED_BYTES);
    expect(run("find", ["node_modules/isoagent", "-name", "*.map"], dir).trim()).toBe("");
  });

  it(
    "a strict TypeScript program type-checks against it, and runs in Node",
    () => {
      run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], dir);
      run(bin("esbuild"), ["main.ts", "--outfile=main.mjs", "--format=esm", "--platform=node", "--packages=external"], dir);
      const out = JSON.parse(run(process.execPath, ["main.mjs"], dir).trim()) as unknown;
      expect(out).toEqual({ status: "completed", file: "hi", ok: false });
    },
    minutes(2),
  );

  it(
    "bundles for the browser and for workerd, by their export conditions",
    () => {
      for (const [name, args] of [
        ["browser", ["--platform=browser", "--conditions=browser"]],
        ["workerd", ["--platform=neutral", "--conditions=workerd,worker", "--main-fields=module,main"]],
      ] as const) {
        run(bin("esbuild"), ["main.ts", "--bundle", "--format=esm", "--target=es2022", `--outfile=${name}.js`, ...args], dir);
        const text = readFileSync(join(dir, `${name}.js`), "utf8");
        expect(text, name).toContain("write_file");
        expect(text, name).not.toMatch(/from\s*["']node:/);
      }
    },
    minutes(2),
  );

  it(
    "isoagent/toolkit/bash without just-bash says what to install (PEER_MISSING), as the bash tool's observed error",
    () => {
      const probe = `import("isoagent/toolkit/bash").then(async ({ bashTool }) => {
      const { createDriver, memoryStore, scriptedAgent, calls, call, final } = await import("isoagent");
      const { memoryWorkspace } = await import("isoagent/toolkit");
      const driver = createDriver({ store: memoryStore(), agent: scriptedAgent([calls(call("bash", { command: "echo hi" })), final("done")]), tools: [bashTool({ workspace: memoryWorkspace(), requireApproval: false }).tool] });
      const o = await driver.start({ goal: "x" });
      const events = await driver.events(o.runId);
      console.log(JSON.stringify(events));
    })`;
      writeFileSync(join(dir, "bash.mjs"), probe);
      const out = run(process.execPath, ["bash.mjs"], dir);
      const finished = (JSON.parse(out) as { type: string; observation?: { type: string; error?: string } }[]).filter((e) => e.type === "call.finished");
      expect(finished).toHaveLength(1);
      expect(finished[0]!.observation?.type).toBe("tool_error");
      expect(finished[0]!.observation?.error).toContain(
        "isoagent/toolkit/bash needs just-bash (an optional peer dependency, supported: 3.4.2), and it is not installed: npm i just-bash@3.4.2; nothing was run",
      );
    },
    minutes(2),
  );

  it(
    "isoagent/mcp/stdio without @modelcontextprotocol/client says what to install (PEER_MISSING)",
    () => {
      writeFileSync(
        join(dir, "stdio.mjs"),
        `const { connectStdio } = await import("isoagent/mcp/stdio");
      try { await connectStdio({ command: process.execPath, args: ["-e", ""] }); console.log("connected"); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`,
      );
      expect(JSON.parse(run(process.execPath, ["stdio.mjs"], dir))).toEqual({
        code: "PEER_MISSING",
        message: "isoagent/mcp/stdio needs @modelcontextprotocol/client (an optional peer dependency, supported: 2.4.0), and it is not installed: npm i @modelcontextprotocol/client@2.4.0",
      });
    },
    minutes(2),
  );
});
