/**
 * The console's script is its type-checked source, bundled (issue 28, item
 * 8): src/http/console-script.ts is what `npm run gen:console` makes of
 * console/app.ts now (a change to one without the other fails here), and
 * the script the app serves is that bundle, with nothing of the source's
 * type imports left.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { consoleScript, consoleScriptSource } from "../../scripts/lib/console-bundle.js";
import { CONSOLE_JS } from "../../src/http/console-script.js";

describe("the console's script", () => {
  it("is what npm run gen:console makes of console/app.ts", async () => {
    expect(readFileSync(new URL("../../src/http/console-script.ts", import.meta.url), "utf8")).toBe(await consoleScriptSource());
  });

  it("is served as that bundle: one module that imports nothing, its types erased", async () => {
    expect(CONSOLE_JS).toBe(await consoleScript());
    expect(CONSOLE_JS).not.toMatch(/^\s*import\b/m);
    expect(CONSOLE_JS).not.toMatch(/\binterface\s+RunView\b|:\s*HTMLElement\b/);
    expect(CONSOLE_JS).toContain('document.body.dataset.ready = "yes"');
  });
});
