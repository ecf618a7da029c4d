/**
 * search_files on a long search: it yields to the event loop (so the
 * call's timeout and every other run's timers keep firing) and stops once
 * its signal is aborted. The work per line is linear (src/pattern/); this
 * is about many lines.
 */
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/index.js";
import { memoryWorkspace, workspaceTools } from "../../src/toolkit/index.js";
import { testContext } from "../helpers/context.js";

/** A pattern whose DFA has more states than the matcher keeps: it goes thread by thread, about 100 threads a code point. */
const HEAVY = "(?:[ab]*a[ab]{100})c";

async function workspace(): Promise<ReturnType<typeof workspaceTools>> {
  const ws = memoryWorkspace();
  let text = "";
  let x = 7;
  for (let line = 0; line < 400; line++) {
    for (let k = 0; k < 500; k++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      text += (x >> 16) & 1 ? "a" : "b";
    }
    text += "\n";
  }
  await ws.commit([{ path: "ab.txt", bytes: new TextEncoder().encode(text) }]);
  return workspaceTools(ws);
}

describe("search_files yields on a long search", () => {
  it("lets a timer armed before the call fire during it, and still answers", async () => {
    const { searchFiles } = await workspace();
    let fired = false;
    setTimeout(() => (fired = true), 0);
    let firedBeforeTheEnd = false;
    const out = await (async () => {
      const r = await searchFiles.call({ query: HEAVY, regex: true }, testContext());
      firedBeforeTheEnd = fired;
      return r;
    })();
    expect(out).toBe(`No matches for ${JSON.stringify(HEAVY)} (regular expression) under the workspace.`);
    expect(firedBeforeTheEnd).toBe(true);
  });

  it("stops with a ToolError once its signal is aborted", async () => {
    const { searchFiles } = await workspace();
    const controller = new AbortController();
    controller.abort();
    const r = await (async () => searchFiles.call({ query: HEAVY, regex: true }, testContext({ signal: controller.signal })))().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(r).toBeInstanceOf(ToolError);
    expect((r as ToolError).message).toBe("the search was cancelled");
  });
});
