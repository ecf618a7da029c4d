/**
 * Optional peer dependencies (issue 27, finding 2): `npm i isoagent` brings
 * neither just-bash nor @modelcontextprotocol/client, and an entry that needs
 * one says so when it is missing, with the package, the supported range and
 * the entry, instead of the platform's "cannot find package".
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isIsoagentError } from "../src/index.js";
import { importPeer, isMissingModule, PEER_RANGES, peerMissing } from "../src/peers.js";

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

describe("optional peers", () => {
  it("PEER_RANGES is package.json's peerDependencies, each optional, each a dev dependency at that version, none a dependency", () => {
    expect(PEER_RANGES).toEqual(pkg.peerDependencies);
    for (const name of Object.keys(PEER_RANGES)) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name]);
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });

  it("a package that is really missing (Node's own error) becomes PEER_MISSING with the package, the range and the entry", async () => {
    const missing = "isoagent-test-no-such-package";
    const nodeError = await import(missing).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMissingModule(nodeError, missing)).toBe(true);
    // The same error, as if it named just-bash: what loadJustBash sees without it.
    const asJustBash = Object.assign(new Error(String((nodeError as Error).message).replaceAll(missing, "just-bash")), { code: (nodeError as { code?: string }).code });
    const e = await importPeer("just-bash", "isoagent/toolkit/bash", () => Promise.reject(asJustBash)).catch((x: unknown) => x);
    expect(isIsoagentError(e, "PEER_MISSING")).toBe(true);
    expect((e as Error).message).toBe("isoagent/toolkit/bash needs just-bash (an optional peer dependency, supported: 3.4.2), and it is not installed: npm i just-bash@3.4.2");
    expect((e as Error).cause).toBe(asJustBash);
  });

  it("reads each platform's words for a missing module, the package named in quotes (a subpath too)", () => {
    const name = "@modelcontextprotocol/client";
    for (const message of [
      `Cannot find package '${name}' imported from /app/node_modules/isoagent/dist/node/mcp/stdio.js`,
      `Cannot find module '${name}/stdio'`,
      `Failed to resolve module specifier "${name}/stdio". Relative references must start with either "/", "./", or "../".`,
      `No such module "${name}/stdio".`,
    ]) {
      expect(isMissingModule(new Error(message), name), message).toBe(true);
    }
    expect(peerMissing(name, "isoagent/mcp/stdio").message).toBe(
      "isoagent/mcp/stdio needs @modelcontextprotocol/client (an optional peer dependency, supported: 2.4.0), and it is not installed: npm i @modelcontextprotocol/client@2.4.0",
    );
  });

  it("a failure that is not the peer's absence passes through unchanged: a package missing deeper down, a peer that throws, a non-error", async () => {
    const deeper = Object.assign(new Error("Cannot find package 'sql.js' imported from /app/node_modules/just-bash/dist/index.js"), { code: "ERR_MODULE_NOT_FOUND" });
    const thrown = new TypeError("just-bash: something broke while loading");
    for (const cause of [deeper, thrown, "just-bash", undefined, { message: 42 }]) {
      expect(isMissingModule(cause, "just-bash")).toBe(false);
      await expect(importPeer("just-bash", "isoagent/toolkit/bash", () => Promise.reject(cause))).rejects.toBe(cause);
    }
    await expect(importPeer("just-bash", "isoagent/toolkit/bash", () => Promise.resolve(7))).resolves.toBe(7);
  });
});
