/**
 * What the peer benchmarks share: the version of a peer as installed, and
 * the AI SDK kept quiet (a console write in a timed loop would be timed).
 */
import { readFileSync } from "node:fs";

/** The installed version, from the package's own package.json in bench/node_modules (some export maps hide it from require). */
export function versionOf(pkg: string): string {
  const url = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

/** Silences the AI SDK's console warnings. */
export function quietAiSdk(): void {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
}
