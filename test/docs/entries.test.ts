/**
 * Every entry of the package has a guide (issue 27, finding 7): docs/entries.md
 * lists each of package.json's entries, exactly once, with a link to the page
 * that documents it, and that page names the entry. links.test.ts checks that
 * the links lead somewhere.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const page = readFileSync(new URL("../../docs/entries.md", import.meta.url), "utf8");
const exports = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> }).exports;
const names = Object.keys(exports)
  .filter((s) => s !== "./package.json")
  .map((s) => (s === "." ? "isoagent" : `isoagent/${s.slice(2)}`));

/** The guide table's rows: entry -> the pages it links. */
function guides(markdown: string): Map<string, string[]> {
  const table = markdown.slice(markdown.indexOf("## Each entry's guide"));
  const rows = new Map<string, string[]>();
  for (const m of table.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)) {
    if (rows.has(m[1]!)) throw new Error(`${m[1]} is listed twice`);
    rows.set(
      m[1]!,
      [...m[2]!.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((l) => l[1]!),
    );
  }
  return rows;
}

describe("docs/entries.md", () => {
  const rows = guides(page);

  it("lists every entry of package.json with a guide, and nothing else", () => {
    expect(names.length).toBeGreaterThan(20);
    expect([...rows.keys()].sort()).toEqual([...names].sort());
    for (const [entry, links] of rows) expect(links.length, entry).toBeGreaterThan(0);
  });

  it("each entry's first guide names it", () => {
    const unnamed = [...rows].flatMap(([entry, [first]]) => {
      if (entry === "isoagent") return []; // the root: the README's first program imports it
      const text = readFileSync(new URL(`../../docs/${first}`, import.meta.url), "utf8");
      return text.includes(`\`${entry}\``) ? [] : [`${first} does not name ${entry}`];
    });
    expect(unnamed).toEqual([]);
  });
});
