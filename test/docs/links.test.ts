/**
 * Every relative link in the README and docs/ leads somewhere (issue 27,
 * finding 7): the file exists, and an anchor names a heading of that file as
 * GitHub writes its id. External links (a scheme, or //) are not fetched.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, isMarkdown } from "../../scripts/lib/files.js";

const root = resolve(import.meta.dirname, "../..");

/** The text outside fenced code blocks. */
function unfenced(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^]*?^\1[^\n]*$/gm, "");
}

/** The text outside code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return unfenced(markdown).replace(/`[^`\n]*`/g, "");
}

/** A heading's id as GitHub makes it: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of unfenced(markdown).split("\n")) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) ids.add(m[1]!);
  return ids;
}

type Link = { from: string; target: string };

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const m of prose(readFileSync(file, "utf8")).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
    links.push({ from: file, target });
  }
  return links;
}

/** Why a link leads nowhere, or undefined when it leads somewhere. */
function broken({ from, target }: Link): string | undefined {
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const path = pathPart === "" ? from : resolve(dirname(from), decodeURIComponent(pathPart));
  if (!existsSync(path)) return "no such file";
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(path).isDirectory() || !path.endsWith(".md")) return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : "an anchor into a file that is not markdown";
  return headingIds(readFileSync(path, "utf8")).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading #${anchor}`;
}

describe("links in the README and docs/", () => {
  const files = [join(root, "README.md"), join(root, "DEVELOPERS.md"), ...filesUnder(join(root, "docs"), isMarkdown)];

  it("every relative link names a file that exists and, with an anchor, one of its headings", () => {
    const links = files.flatMap(relativeLinks);
    expect(links.length).toBeGreaterThan(20);
    const bad = links.flatMap((l) => {
      const why = broken(l);
      return why === undefined ? [] : [`${relative(root, l.from)}: (${l.target}) ${why}`];
    });
    expect(bad).toEqual([]);
  });

  it("the checker itself catches a missing file, a missing heading and a renamed one", () => {
    const readme = join(root, "README.md");
    expect(broken({ from: readme, target: "docs/no-such-page.md" })).toBe("no such file");
    expect(broken({ from: readme, target: "docs/recovery.md#no-such-heading" })).toBe("no heading #no-such-heading");
    expect(broken({ from: readme, target: "docs/recovery.md" })).toBeUndefined();
    expect([...headingIds("# Moves: `isoagent/move`\n## A b\n## A b\n```\n# not a heading\n```\n")]).toEqual(["moves-isoagentmove", "a-b", "a-b-1"]);
  });
});
