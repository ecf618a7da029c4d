import { deleteDB } from "idb";
import { describe, it } from "vitest";
import { idbStore } from "../../adapters/idb/index.js";
import { manualClock } from "../../src/testkit/index.js";
import { runStoreConformance } from "../../src/testkit/index.js";

let n = 0;

describe("IndexedDB store in Chromium", () => {
  runStoreConformance({
    name: "idb (Chromium)",
    test: it,
    create: () => {
      const clock = manualClock();
      const name = `conformance-${Date.now()}-${++n}`;
      const store = idbStore({ name, clock });
      return {
        store,
        advance: async (ms) => clock.advance(ms),
        dispose: async () => {
          store.close();
          await deleteDB(name);
        },
      };
    },
  });
});
