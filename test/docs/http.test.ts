import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { regionOf } from "../helpers/package-imports.js";

/** docs/http.md's example: shown verbatim there (with the package's import paths), and run here. */
const region = (file: string): string => regionOf(new URL(file, import.meta.url));

describe("docs/http.md's example of the console's session", () => {
  it("is shown verbatim in docs/http.md", () => {
    const code = region("./http-session.ts");
    expect(code.length).toBeGreaterThan(500);
    expect(readFileSync(new URL("../../docs/http.md", import.meta.url), "utf8").includes("```ts\n" + code + "```\n")).toBe(true);
  });

  it("runs as its comments say: a login by code, once; a logout that ends the session", async () => {
    const { after, again, listed, login } = await import("./http-session.js");
    expect(login).toMatch(/^http:\/\/localhost\/login#code=c1\.\d+\.[0-9a-f]{32}\.[0-9a-f]{64}$/);
    expect([listed, again, after]).toEqual([200, 401, 401]);
  });
});
