/**
 * Stores that confirm an append later than they resolve it (a Durable
 * Object's output gate): a side effect waits for the confirmation of its
 * start; a read-only call does not ask for one (issue 21: the driver area's
 * mutation run found this untested in Node).
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, memoryStore, type Store } from "../../src/index.js";
import { harness } from "./helpers.js";

function confirming(log: string[], gate: Promise<void>): Store {
  return Object.assign(Object.create(null) as object, memoryStore(), {
    async confirm() {
      log.push("confirm asked");
      await gate;
      log.push("confirmed");
    },
  }) as Store;
}

describe("a store that confirms later", () => {
  it("holds a side effect until its start is confirmed", async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const h = harness([calls(call("write_file", { path: "a.md", content: "x" })), final("ok")]);
    const store = confirming(log, gate);
    const running = h.driver({ store }).start("t");
    // Waits on the store being asked, not on time.
    while (!log.includes("confirm asked")) await new Promise((r) => setTimeout(r, 0));
    expect(h.world.executions).toEqual([]);
    release();
    expect((await running).status).toBe("completed");
    expect(log).toEqual(["confirm asked", "confirmed"]);
    expect(h.world.executions).toHaveLength(1);
  });

  it("does not ask for a read-only call", async () => {
    const log: string[] = [];
    const h = harness([calls(call("read_file", { path: "notes.md" })), final("ok")]);
    expect((await h.driver({ store: confirming(log, Promise.resolve()) }).start("t")).status).toBe("completed");
    expect(log).toEqual([]);
    expect(h.world.executions).toHaveLength(1);
  });
});
