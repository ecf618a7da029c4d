/**
 * The artifacts a journal names, one rule (src/journal/artifacts.ts): the
 * run's state keeps them at hand, only they are served through the run, and
 * a bundle carries them. Before it lived once, the bundle's reading named
 * an elided output's artifact and the journal's did not.
 */
import { describe, expect, it } from "vitest";
import { artifactsNamed, journalNames } from "../../src/journal/artifacts.js";
import type { JournalEvent, Observation } from "../../src/journal/index.js";
import { artifactNames } from "../../src/move/format.js";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);
const D = "d".repeat(64);
const truncated: Observation = { type: "result", content: "cut…", truncated: { artifact: A, totalBytes: 9000, shownBytes: 100 } } as Observation;
const elided: Observation = { type: "result", content: "[elided]", elided: { artifact: B, bytes: 5000 } } as Observation;

describe("the artifacts a journal names", () => {
  it("an event names a truncated output's, an elided one's and a compaction's artifacts; nothing else names one", () => {
    const finished = { type: "call.finished", observation: truncated } as unknown as JournalEvent;
    const reconciled = { type: "call.reconciled", observation: elided } as unknown as JournalEvent;
    const compacted = {
      type: "context.compacted",
      artifacts: [C],
      items: [
        { type: "observation", observation: { ...elided, elided: { artifact: D, bytes: 1 } } },
        { type: "task", task: "t" },
      ],
    } as unknown as JournalEvent;
    expect(artifactsNamed(finished)).toEqual([A]);
    expect(artifactsNamed(reconciled)).toEqual([B]);
    expect(artifactsNamed(compacted)).toEqual([C, D]);
    expect(artifactsNamed({ type: "call.reconciled" } as unknown as JournalEvent)).toEqual([]);
    expect(artifactsNamed({ type: "call.finished", observation: { type: "result", content: "x", truncated: { artifact: "", totalBytes: 1, shownBytes: 1 } } } as unknown as JournalEvent)).toEqual([]);
    expect(artifactsNamed({ type: "step.decided", artifact: A } as unknown as JournalEvent)).toEqual([]);
    const events = [finished, reconciled, compacted];
    for (const sha of [A, B, C, D]) expect(journalNames(events, sha)).toBe(true);
    expect(journalNames(events, "e".repeat(64))).toBe(false);
    expect([...artifactNames(events.map((e, k) => ({ ...e, seq: k + 1 }) as JournalEvent)).keys()]).toEqual([A, B, C, D]);
  });
});
