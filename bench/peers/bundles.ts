/**
 * The peers' size as a browser app would ship them, measured the way
 * isoagent measures its own core (scripts/lib/bundle.ts: coreBrowserBundle):
 * esbuild, bundled with every dependency, minified, ESM for the browser,
 * ES2022, in memory; then gzip at level 9.
 *
 * Each entry is a one-line module that imports what a tool-using agent needs
 * and re-exports it, so tree shaking keeps exactly that. No entry includes a
 * model provider (isoagent's core number has none either): what is compared
 * is the agent loop, its tool definitions and what they drag in.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { browserBundle } from "../../scripts/lib/bundle.js";

export interface PeerBundle {
  readonly name: string;
  /** The entry module's source. */
  readonly entry: string;
  readonly ok: boolean;
  readonly minBytes?: number;
  readonly gzipBytes?: number;
  /** Why the bundle could not be made (when !ok). */
  readonly why?: string;
}

interface PeerEntry {
  readonly name: string;
  /** The packages that must be installed in bench/node_modules for the attempt to mean anything. */
  readonly packages: readonly string[];
  readonly entry: string;
}

/** bench/: the peers are installed in bench/node_modules, not the root's. */
const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

const ENTRIES: readonly PeerEntry[] = [
  {
    name: "OpenAI Agents SDK (@openai/agents-core)",
    packages: ["@openai/agents-core"],
    entry: `export { Agent, Runner, tool } from "@openai/agents-core";`,
  },
  {
    name: "Vercel AI SDK (ai, JSON Schema tools)",
    packages: ["ai"],
    entry: `export { generateText, jsonSchema, stepCountIs, tool } from "ai";`,
  },
  {
    name: "Vercel AI SDK (ai + zod tools)",
    packages: ["ai", "zod"],
    // `z` is a namespace object, so all of zod stays: that is what `import { z } from "zod"` ships.
    entry: `export { generateText, stepCountIs, tool } from "ai";\nexport { z } from "zod";`,
  },
  {
    name: "LangGraph.js (@langchain/langgraph/web, prebuilt ReAct agent)",
    packages: ["@langchain/langgraph", "@langchain/core"],
    // /web is LangGraph's browser entry (no AsyncLocalStorage); the prebuilt agent lives in its own subpath.
    entry: `export { MemorySaver } from "@langchain/langgraph/web";\nexport { createReactAgent } from "@langchain/langgraph/prebuilt";\nexport { tool } from "@langchain/core/tools";`,
  },
  {
    name: "Mastra (@mastra/core Agent)",
    packages: ["@mastra/core"],
    entry: `export { Agent } from "@mastra/core/agent";\nexport { createTool } from "@mastra/core/tools";`,
  },
];

/** esbuild's failure, as one short line: the first error and where, and how many there were. */
function describeFailure(err: unknown): string {
  const errors = (err as { errors?: { text: string; location?: { file: string } | null }[] }).errors;
  const first = errors?.[0];
  if (!first) return err instanceof Error ? err.message.split("\n")[0]! : String(err);
  const where = first.location ? ` (${first.location.file.replace(/^.*node_modules\//, "")})` : "";
  const more = errors.length > 1 ? `; ${errors.length} errors in all` : "";
  return `${first.text}${where}${more}`;
}

async function measure(peer: PeerEntry): Promise<PeerBundle> {
  const { name, entry } = peer;
  const missing = peer.packages.filter((pkg) => !existsSync(`${BENCH_DIR}node_modules/${pkg}/package.json`));
  if (missing.length > 0) return { name, entry, ok: false, why: `not installed (${missing.join(", ")})` };
  try {
    const { minBytes, gzipBytes } = await browserBundle({ stdin: { contents: entry, resolveDir: BENCH_DIR, sourcefile: "peer-entry.js", loader: "js" }, absWorkingDir: BENCH_DIR });
    return { name, entry, ok: true, minBytes, gzipBytes };
  } catch (err) {
    return { name, entry, ok: false, why: describeFailure(err) };
  }
}

export async function peerBundles(): Promise<PeerBundle[]> {
  // One at a time: esbuild's service is shared, and the sizes do not depend on order.
  const out: PeerBundle[] = [];
  for (const peer of ENTRIES) out.push(await measure(peer));
  return out;
}
