/**
 * The optional peer dependencies, and the one rule for a missing one.
 * `npm i isoagent` installs neither: an entry that needs one imports it on
 * first use, and when it is not installed says which package, which range
 * and which entry, instead of the platform's "cannot find package".
 * test/peers.test.ts holds PEER_RANGES to package.json's peerDependencies.
 */
import { IsoagentError } from "./errors.js";

/** Each optional peer and the range isoagent supports (package.json's peerDependencies). */
export const PEER_RANGES = {
  "just-bash": "3.4.2",
  "@modelcontextprotocol/client": "2.4.0",
} as const;

/** An optional peer dependency's package name. */
export type PeerName = keyof typeof PEER_RANGES;

/**
 * True when `e` says that `name` itself could not be found (Node's
 * `Cannot find package 'x'`, a browser's `Failed to resolve module
 * specifier "x"`, workerd's `No such module "x"`): the package named in
 * quotes, so that a package missing deeper down (named in a path) is not
 * taken for it.
 */
export function isMissingModule(e: unknown, name: string): boolean {
  if (typeof e !== "object" || e === null) return false;
  const message = (e as { message?: unknown }).message;
  if (typeof message !== "string") return false;
  const quoted = message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`'${name}/`) || message.includes(`"${name}/`);
  return quoted && (/cannot find (package|module)|failed to resolve module specifier|no such module/i.test(message) || (e as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND");
}

/** The error an entry gives when `name` is not installed. */
export function peerMissing(name: PeerName, entry: string, cause?: unknown): IsoagentError {
  const range = PEER_RANGES[name];
  return new IsoagentError("PEER_MISSING", `${entry} needs ${name} (an optional peer dependency, supported: ${range}), and it is not installed: npm i ${name}@${range}`, { cause });
}

/** Imports an optional peer, turning its absence (and only that) into PEER_MISSING. */
export async function importPeer<T>(name: PeerName, entry: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    throw isMissingModule(e, name) ? peerMissing(name, entry, e) : e;
  }
}
