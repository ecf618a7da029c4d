import { spawnSync } from "node:child_process";

/**
 * Whether any process's command line contains `text` (`pgrep -f`, fixed
 * text, never read as an option). pgrep exits 0 when it found one and 1 when
 * it found none; anything else (a bad pattern, pgrep missing) is the probe's
 * own failure and throws, so it can never pass for "none left".
 */
export function processesRunning(text: string): boolean {
  const r = spawnSync("pgrep", ["-f", "--", escapeRegExp(text)], { encoding: "utf8" });
  if (r.status === 0) return true;
  if (r.status === 1) return false;
  throw new Error(`pgrep failed (status ${String(r.status)}${r.error === undefined ? "" : `, ${r.error.message}`}): ${r.stderr.trim()}`);
}

/** pgrep takes an extended regular expression: the text is matched as it is. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
