/**
 * A conversation's cost per turn stays flat (issue 29): the driver keeps
 * the state its last drive of a run ended with, so the next send and the
 * next turn read only what was appended since; a new driver (another
 * process, a restart) reads the snapshot, which holds a conversation's
 * transcript with or without a context budget, and the tail after it,
 * never the whole journal.
 */
import { describe, expect, it } from "vitest";
import { createDriver, final, memoryStore, scriptedAgent, type RunId, type Store } from "../../src/index.js";

/** A store that counts what it is asked to read. */
function counting(store: Store) {
  const reads: { from: number; events: number }[] = [];
  let snapshots = 0;
  const counted: Store = {
    ...store,
    async read(runId, fromSeq) {
      const events = await store.read(runId, fromSeq);
      reads.push({ from: fromSeq ?? 1, events: events.length });
      return events;
    },
    async getSnapshot(runId) {
      snapshots++;
      return store.getSnapshot(runId);
    },
  };
  return { store: counted, reads, snapshots: () => snapshots, reset: () => void ((reads.length = 0), (snapshots = 0)) };
}

const answers = scriptedAgent((view) => final(`answer ${view.transcript.length}`));

async function turns(driver: ReturnType<typeof createDriver>, chat: RunId, from: number, n: number): Promise<void> {
  for (let k = from; k < from + n; k++) {
    await driver.send(chat, { id: `m${k}`, text: `message ${k}` });
    const out = await driver.resume(chat);
    if (out.status !== "idle") throw new Error(`turn ${k} ended ${out.status}`);
  }
}

describe("a conversation's cost per turn", () => {
  it("on the driver that ran the last turn: each send and each turn read only the events appended since, and no snapshot", async () => {
    const c = counting(memoryStore());
    const driver = createDriver({ store: c.store, agent: answers, tools: [] });
    const chat = await driver.create(null, { conversation: true });
    await turns(driver, chat, 1, 300);
    c.reset();
    await turns(driver, chat, 301, 5);
    expect(c.snapshots()).toBe(0);
    // A send reads the tail after the kept state (nothing, or what another driver appended); a turn, the message.
    expect(Math.max(...c.reads.map((r) => r.events))).toBeLessThanOrEqual(2);
    expect(c.reads.every((r) => r.from > 1_000)).toBe(true);
  });

  it("on a new driver, without a context budget: the snapshot (with the transcript) and a tail, never the journal from its start", async () => {
    const base = memoryStore();
    const first = createDriver({ store: base, agent: answers, tools: [], snapshotEvery: 64 });
    const chat = await first.create(null, { conversation: true });
    await turns(first, chat, 1, 300);
    const snapshot = await base.getSnapshot(chat);
    expect(snapshot?.state.transcriptOmitted).toBeUndefined();
    expect(snapshot!.state.transcript.length).toBeGreaterThan(300);
    const c = counting(base);
    const second = createDriver({ store: c.store, agent: answers, tools: [], snapshotEvery: 64 });
    await turns(second, chat, 301, 1);
    const { seq } = await second.state(chat);
    // The snapshot is at most a transcript's length of events behind (snapshots are spaced by it), and nothing is read from the start.
    expect(c.reads.every((r) => r.from > 1)).toBe(true);
    expect(Math.max(...c.reads.map((r) => r.events))).toBeLessThan(seq / 2);
    // The agent was shown the whole conversation: every message, in order.
    const transcript = (await second.state(chat)).transcript.filter((t) => t.type === "user");
    expect(transcript.map((t) => (t as { messageId: string }).messageId)).toEqual(Array.from({ length: 301 }, (_, k) => `m${k + 1}`));
  });
});
