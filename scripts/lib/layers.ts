/**
 * The layering of src/ and adapters/, as data: which layer may import which
 * (issue 28, item 2). A layer is a folder of src/ (`src/driver`), the files
 * at src/'s top level but the root entry (`src/base`: errors, ids, clock,
 * web, peers, vocabulary, retry, workspace, paths, sse), the root entry itself
 * (`src/index`), or an adapter (`adapters/idb`). Files of one layer import
 * each other freely; an arrow between two layers must be listed here, and
 * every arrow points down (test/arrows.test.ts holds both).
 *
 * From the bottom: the base; patterns, JSON, schemas; the tool contract and
 * the journal; stores and policies; the call pipeline (a call through the
 * gate to its observation); the agents; the driver (the loop: session,
 * recovery, operator, compaction); the features beside it (toolkit, otel,
 * move, mcp, http, testkit); the root entry; the adapters.
 */

const BASE = ["src/base"];
const DATA = [...BASE, "src/json", "src/pattern", "src/schema"];
const CORE = [...DATA, "src/tools", "src/journal", "src/store", "src/policy"];

export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  "src/base": [],
  "src/pattern": BASE,
  "src/json": BASE,
  "src/schema": [...BASE, "src/json", "src/pattern"],
  "src/tools": DATA,
  "src/journal": [...BASE, "src/json"],
  "src/store": [...BASE, "src/json", "src/journal"],
  "src/policy": [...DATA, "src/tools"],
  "src/call": CORE,
  "src/agents": [...DATA, "src/tools", "src/journal"],
  "src/driver": [...CORE, "src/call", "src/agents"],
  "src/otel": [...BASE, "src/json", "src/journal", "src/store"],
  "src/toolkit": [...CORE, "src/call"],
  "src/move": [...CORE, "src/call"],
  "src/mcp": [...CORE, "src/call", "src/toolkit"],
  "src/http": [...CORE, "src/call", "src/driver", "src/move", "src/otel"],
  "src/testkit": [...CORE, "src/call", "src/agents", "src/driver", "src/move", "src/otel"],
  "src/index": [...CORE, "src/agents", "src/driver"],
  "adapters/idb": [...CORE, "src/index", "src/otel", "src/toolkit"],
  "adapters/durable-object": [...CORE, "src/index", "src/call", "src/driver", "src/http", "src/move", "src/otel", "src/testkit", "src/toolkit"],
  "adapters/mcp-stdio": [...BASE, "src/index", "src/mcp"],
  "adapters/bash-node": ["src/toolkit"],
  "adapters/bash-web": ["src/toolkit"],
};

/** The layer of a file of src/ or adapters/ (a path relative to the repository). */
export function layerOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "src") {
    if (parts.length === 2) return parts[1] === "index.ts" ? "src/index" : "src/base";
    return `src/${parts[1]}`;
  }
  return `${parts[0]}/${parts[1]}`;
}
