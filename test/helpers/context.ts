/**
 * A ToolContext for calling a tool directly in a test, outside a driver:
 * everything allowed, no artifacts. One place to grow when ToolContext does.
 */
import type { ToolContext } from "../../src/index.js";

export function testContext(overrides: Omit<Partial<ToolContext>, "runId" | "callId"> & { readonly callId?: string; readonly runId?: string } = {}): ToolContext {
  const { runId = "r", callId = "c", ...rest } = overrides as Partial<ToolContext> & { readonly callId?: string; readonly runId?: string };
  return {
    runId: runId as never,
    step: 1,
    callId: callId as never,
    attempt: 1,
    idempotencyKey: `${runId}:1:${callId}`,
    fencingToken: 1,
    signal: new AbortController().signal,
    permit: () => ({ permission: "allow" }),
    readArtifact: async () => undefined,
    progress: () => {},
    putArtifact: async () => ({ sha256: "", size: 0 }),
    ...rest,
  };
}
