/**
 * The export cursor suite on Chromium's IndexedDB (idbCursor): opened again
 * means a new connection to the same database, as a reloaded tab makes.
 */
import { deleteDB } from "idb";
import { describe, it } from "vitest";
import { idbCursor, type IdbCursor } from "../../adapters/idb/index.js";
import { runCursorConformance } from "../../src/testkit/index.js";

let n = 0;

describe("the IndexedDB export cursor in Chromium", () => {
  runCursorConformance({
    name: "idb cursor (Chromium)",
    test: it,
    create: () => {
      const name = `cursor-${Date.now()}-${++n}`;
      const opened: IdbCursor[] = [idbCursor({ name })];
      return {
        cursor: opened[0]!,
        reopen: async () => {
          opened.at(-1)!.close();
          opened.push(idbCursor({ name }));
          return opened.at(-1)!;
        },
        dispose: async () => {
          for (const c of opened) c.close();
          await deleteDB(name);
        },
      };
    },
  });
});
